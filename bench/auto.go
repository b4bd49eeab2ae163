package main

import (
	"context"
	"fmt"
	"image"
	"runtime"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/imagegeom"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// mnistAutoRows measures the MNIST epoch with its sizes left to the
// pipeline: ReadIndexed(ShuffleIndex) -> Tensorize(128, Keep,
// Workers(Auto)) under Autotune(0, 0) (GOMAXPROCS cores), against the best
// plain loop with as many goroutines as the budget has cores. The note says what
// the steps chose by the end of the last timed epoch.
func mnistAutoRows(cfg config, f *mnistFiles) ([]Row, error) {
	outBytes, floor := f.outBytes, f.floor
	cores := runtime.GOMAXPROCS(0)
	feed, err := mnistAutoFeed(f)
	if err != nil {
		return nil, err
	}
	data, err := loadMNIST(f)
	if err != nil {
		return nil, err
	}
	var got, want uint64
	rs, err := measureEach(cfg.cheapReps(),
		func() (err error) { got, err = mnistAutoEpoch(feed); return err },
		func() (err error) { want, err = mnistBest(data, cores); return err })
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, fmt.Errorf("mnist-epoch auto: pipeline and plain loop differ (checksums %x, %x)", got, want)
	}
	chosen := ""
	for _, s := range feed.Stats() {
		if s.Auto != "" {
			chosen += fmt.Sprintf("; %s %s", s.Name, s.Auto)
		}
	}
	row := newRow("mnist-epoch", cores, f.n, outBytes, rs[0], rs[1], floor)
	row.Variant = "auto"
	row.Note = fmt.Sprintf("Load(IDX) -> ReadIndexed(ShuffleIndex(seed)) -> Tensorize(sink.Of[mnist.Sample](128), Keep, Workers(Auto)), "+
		"Autotune(0, 0): %d cores; against the best plain loop with %d goroutines; chosen%s", cores, cores, chosen)
	return []Row{row}, nil
}

// mnistAutoFeed builds the Auto pipeline over the training table.
func mnistAutoFeed(f *mnistFiles) (*pipeline.Pipe[*tensor.Batch], error) {
	tab, err := mnist.New(f.images, f.labels).Load(context.Background())
	if err != nil {
		return nil, err
	}
	samples := pipeline.From(source.ReadIndexed(tab, source.ShuffleIndex(mnistSeed)), pipeline.Autotune(0, 0))
	return pipeline.Tensorize(samples, mnistSink(), batch.Keep, pipeline.Workers(pipeline.Auto)), nil
}

// mnistAutoEpoch runs epoch 0 of feed and returns the checksum of what the
// consumer saw.
func mnistAutoEpoch(feed *pipeline.Pipe[*tensor.Batch]) (uint64, error) {
	ctx := source.WithEpoch(context.Background(), 0)
	var sum uint64
	for t, err := range feed.All(ctx) {
		if err != nil {
			return 0, err
		}
		sum = consumeBatch(sum, t.Data[0].F32, t.Label[0].I32)
		t.Release()
	}
	return sum, nil
}

// imagerecJob is one record of the imagerec auto row, its header parsed:
// the label and the JPEG bytes its row is decoded from.
type imagerecJob struct {
	rec   recordio.Record // where it lies, for errors; its Data is the record's
	label float32
	jpg   []byte
}

// imagerecAutoRow measures the imagerec-pipeline workload (decode, random
// 224 crop, random mirror, mean/std into float32 CHW, batches of 128) with
// its parallelism left to the pipeline: recordio.Open -> MapErr (the
// header, named "parse") -> Tensorize whose data field decodes every crop
// straight into its row (decode.PlanarDecoder, or the decoder and
// Normalize.IntoRect), Workers(Auto) under Autotune(0, 0). The plain loop
// is imagerecPlain with GOMAXPROCS goroutines; the row is compared with the
// hand-tuned imagerec-pipeline rows of the same run by their samples/s. An
// image that does not decode ends the pass with an error naming its file,
// record and byte offset (the photo set has none).
func imagerecAutoRow(cfg config, set *imagerecSet, dec decode.Decoder) (Row, error) {
	cores := runtime.GOMAXPROCS(0)
	feed := imagerecAutoFeed(set, dec)
	n := len(set.payloads)
	rs, floor, err := imagerecMeasure(cfg, set, dec, feed, cores, "the auto pipeline")
	if err != nil {
		return Row{}, err
	}
	chosen := ""
	for _, s := range feed.Stats() {
		if s.Auto != "" {
			chosen += fmt.Sprintf("; %s %s", s.Name, s.Auto)
		}
	}
	row := newRow("imagerec-pipeline", cores, n, int64(n)*imagerecOut, rs[0], rs[1], floor)
	row.Decoder, row.Variant = dec.Name(), "auto"
	row.Note = fmt.Sprintf("%d photos: recordio.Open -> MapErr(ParseRecord) -> Tensorize(data decoded into its row, 128, Keep, Workers(Auto)), "+
		"Autotune(0, 0): %d cores; random 224 crop, random mirror, mean/std, float32 CHW; plain: %d goroutines per batch; chosen%s",
		n, cores, cores, chosen)
	return row, nil
}

// imagerecAutoFeed builds the auto row's pipeline over part 0 of
// set.parts of the photos.
func imagerecAutoFeed(set *imagerecSet, dec decode.Decoder) *pipeline.Pipe[*tensor.Batch] {
	records := pipeline.From(recordio.Open(set.path, imagerecPart(set.parts)), pipeline.Autotune(0, 0))
	jobs := pipeline.MapErr(records, func(rec recordio.Record) (imagerecJob, error) {
		h, jpg, err := imagerec.ParseRecord(rec.Data)
		if err != nil {
			return imagerecJob{}, fmt.Errorf("%s: record %d at byte %d: %w", rec.File, rec.Index, rec.Offset, err)
		}
		return imagerecJob{rec: rec, label: h.Label, jpg: jpg}, nil
	}).Named("parse")
	norm := imagerecNorm
	pd, planar := dec.(decode.PlanarDecoder)
	data := sink.Fill("data", []int{imagerecChannels, imagerecSize, imagerecSize}, func(j imagerecJob, dst []float32) error {
		// The draws of image i of epoch 0, in ImageRecordIter's order:
		// the crop (y, x), the mirror, then contrast and illumination.
		r := source.NewRand(imagerecSeed, 0, j.rec.Index)
		opts := decode.Options{Channels: imagerecChannels, Crop: func(w, h int) (image.Rectangle, error) {
			return imagegeom.RandomRect(w, h, imagerecSize, imagerecSize, r)
		}}
		var err error
		if planar {
			var ok bool
			ok, err = pd.DecodePlanar(j.jpg, opts, dst, func() decode.Planar {
				p := decode.Planar{Mirror: r.IntN(2) == 1, Mean: norm.Mean}
				p.Mul, p.Bias = norm.Linear(imagerecChannels, r)
				return p
			})
			if ok && err == nil {
				return nil
			}
		}
		if err == nil {
			var img sample.Image
			if img, err = dec.Decode(j.jpg, opts); err == nil {
				norm.Into(dst, img, r.IntN(2) == 1, r)
				return nil
			}
		}
		return &tensorfeed.Error{Path: j.rec.File, Offset: j.rec.Offset, Record: int64(j.rec.Index), Err: err}
	}).WritesAll()
	label := sink.Float32("softmax_label", nil, func(j imagerecJob, dst []float32) { dst[0] = j.label }).WritesAll()
	s := sink.New(imagerecBatch, []sink.Field[imagerecJob]{data}, []sink.Field[imagerecJob]{label})
	return pipeline.Tensorize(jobs, s, batch.Keep, pipeline.Workers(pipeline.Auto))
}
