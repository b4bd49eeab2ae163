package main

import (
	"context"
	"fmt"
	"image"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/imagegeom"
	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// imagerecSet is the part of the photo set a run reads: part 0 of parts
// equal byte ranges of the file (all of it with parts 1), loaded into
// memory once for the plain loops.
type imagerecSet struct {
	path     string
	parts    int
	payloads [][]byte // the records of the part, in file order
	// batch is the plain pipeline loop's batch, made by its first pass and
	// reused by every later one, as a training loop would.
	batch, label []float32
}

// imagerecDecoders returns the decoders this binary holds: Go's always,
// libjpeg-turbo's when built with -tags turbojpeg.
func imagerecDecoders() []decode.Decoder {
	ds := []decode.Decoder{decode.Go()}
	if d := decode.Default(); d.Name() != ds[0].Name() {
		ds = append(ds, d)
	}
	return ds
}

// imagerecRows measures images per second over the photo set: decoding
// only, and the full ImageRecordIter pipeline, with every thread count of
// cfg (1 and 2 by default) and every decoder the binary holds.
func imagerecRows(cfg config) ([]Row, error) {
	path := filepath.Join(cfg.dataDir, "imagerec", "bench", "photos_1536.rec")
	decoders := imagerecDecoders()
	if cfg.decoder != "" {
		decoders = slices.DeleteFunc(decoders, func(d decode.Decoder) bool { return d.Name() != cfg.decoder })
	}
	if _, err := os.Stat(path); err != nil {
		var rows []Row
		for _, d := range decoders {
			for _, name := range []string{"imagerec-decode", "imagerec-pipeline"} {
				for _, threads := range cfg.threadCounts() {
					rows = append(rows, Row{Name: name, Decoder: d.Name(), Threads: threads,
						Note: fmt.Sprintf("not measured: %s is missing (-data DIR)", path)})
				}
			}
			rows = append(rows, Row{Name: "imagerec-pipeline", Variant: "auto", Decoder: d.Name(), Threads: runtime.GOMAXPROCS(0),
				Note: fmt.Sprintf("not measured: %s is missing (-data DIR)", path)})
		}
		return rows, nil
	}
	// The short run reads a sixth of the photos (about 256), the long run
	// all 1536, a test about 16.
	parts := 6
	switch {
	case cfg.tiny:
		parts = 96
	case cfg.long:
		parts = 1
	}
	set := &imagerecSet{path: path, parts: parts}
	for rec, err := range recordio.Open(path, imagerecPart(parts)).All(context.Background()) {
		if err != nil {
			return nil, err
		}
		set.payloads = append(set.payloads, rec.Data)
	}
	// Memory first, each pipeline's first pass and each plain loop alone
	// (the payloads, loaded for the plain loops, are resident in both),
	// against a floor of one batch, the one the consumer holds.
	mems := map[string]memory{}
	plainPeaks := map[string]uint64{}
	for _, dec := range decoders {
		for _, threads := range cfg.threadCounts() {
			it, err := newImagerecIter(set, dec, threads)
			if err != nil {
				return nil, err
			}
			key := fmt.Sprint(dec.Name(), threads)
			set.batch = nil // the last plain loop's, not resident in this one
			mems[key], err = measureMemory(imagerecBatch*imagerecOut, func() error {
				_, err := imagerecPass(it)
				return err
			})
			if err != nil {
				return nil, err
			}
			plainPeaks[key], err = peakRSS(func() error {
				_, err := imagerecPlain(set, dec, threads)
				return err
			})
			if err != nil {
				return nil, err
			}
		}
	}
	var rows []Row
	for _, dec := range decoders {
		for _, threads := range cfg.threadCounts() {
			row, err := imagerecDecodeRow(cfg, set, dec, threads)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	for _, dec := range decoders {
		var one Row
		for _, threads := range cfg.threadCounts() {
			row, err := imagerecPipelineRow(cfg, set, dec, threads)
			if err != nil {
				return nil, err
			}
			key := fmt.Sprint(dec.Name(), threads)
			row.setMemory(mems[key])
			row.Note += fmt.Sprintf("; peak RSS %.0f MB (plain loop %.0f MB), both with the payloads in memory",
				float64(mems[key].peak)/1e6, float64(plainPeaks[key])/1e6)
			if threads == 1 {
				one = row
			} else if one.SamplesPerSec > 0 { // 1 came first in -threads
				row.Note += fmt.Sprintf("; scaling from 1 thread %.2fx (plain %.2fx)", row.SamplesPerSec/one.SamplesPerSec,
					one.NsPerSample*one.PlainRatio/(row.NsPerSample*row.PlainRatio))
			}
			rows = append(rows, row)
		}
		row, err := imagerecAutoRow(cfg, set, dec)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// imagerecChannels is the channel count every image is decoded to.
const imagerecChannels = 3

// imagerecDecodeRow measures decoding every image of the set to RGB:
// records read from the file, parsed and decoded by a Map (1 thread) or a
// ParallelMap, against the decoder called in a plain loop (or two
// goroutines sharing one) on the same bytes already in memory.
func imagerecDecodeRow(cfg config, set *imagerecSet, dec decode.Decoder, threads int) (Row, error) {
	opts := decode.Options{Channels: imagerecChannels}
	records := pipeline.From(recordio.Open(set.path, imagerecPart(set.parts)))
	decodeRec := func(rec recordio.Record) (imagerec.Example, error) { return imagerec.DecodeRecord(rec, dec, opts) }
	examples := pipeline.MapErr(records, decodeRec)
	if threads > 1 {
		examples = pipeline.ParallelMap(records, threads, decodeRec)
	}
	ctx := context.Background()
	var got, want uint64
	var outBytes int64
	rs, err := measureEach(cfg.reps, func() error {
		got = 0
		for ex, err := range examples.All(ctx) {
			if err != nil {
				return err
			}
			got = consumeImage(got, ex.Image)
		}
		return nil
	}, func() error {
		sums := make([]uint64, len(set.payloads))
		var bytes atomic.Int64
		err := plainParallel2(len(set.payloads), threads, func(i int) error {
			_, data, err := imagerec.ParseRecord(set.payloads[i])
			if err != nil {
				return err
			}
			img, err := dec.Decode(data, opts)
			if err != nil {
				return err
			}
			sums[i] = imageHash(img)
			bytes.Add(int64(len(img.Pix)))
			return nil
		})
		want = 0
		for _, s := range sums {
			want = want*31 + s
		}
		outBytes = bytes.Load()
		return err
	})
	if err != nil {
		return Row{}, err
	}
	if got != want {
		return Row{}, fmt.Errorf("imagerec-decode (%s, %d threads): pipeline and plain loop differ (%x, %x)", dec.Name(), threads, got, want)
	}
	floor, err := measureFloor(cfg.reps, outBytes, 1<<20)
	if err != nil {
		return Row{}, err
	}
	row := newRow("imagerec-decode", threads, len(set.payloads), outBytes, rs[0], rs[1], floor)
	row.Decoder = dec.Name()
	pipe := "MapErr(recordio.Open, imagerec.DecodeRecord) on the consumer's goroutine"
	plain := "ParseRecord and the decoder in a loop over the payloads in memory"
	if threads > 1 {
		pipe = fmt.Sprintf("ParallelMap(recordio.Open, %d, imagerec.DecodeRecord)", threads)
		plain = fmt.Sprintf("%d goroutines taking the next payload in memory", threads)
	}
	row.Note = fmt.Sprintf("%d photos to RGB: %s; plain: %s", len(set.payloads), pipe, plain)
	return row, nil
}

// consumeImage folds a decoded image into an order-sensitive checksum.
func consumeImage(sum uint64, img sample.Image) uint64 { return sum*31 + imageHash(img) }

// imageHash depends on an image's size and on a sample of its pixels.
func imageHash(img sample.Image) uint64 {
	h := uint64(img.Width)<<40 + uint64(img.Height)<<20 + uint64(img.Channels)
	for i := 0; i < len(img.Pix); i += 257 {
		h += uint64(img.Pix[i])
	}
	return h
}

// plainParallel2 calls f(0), ..., f(n-1) on threads goroutines (or on the
// caller's when threads is 1), each taking the next index, and returns the
// first error.
func plainParallel2(n, threads int, f func(i int) error) error {
	return plainWorkers(n, threads, func(_, i int) error { return f(i) })
}

// The full pipeline: ImageRecordIter's usual training input.
const (
	imagerecSize  = 224
	imagerecBatch = 128
	imagerecSeed  = 5
	// imagerecOut is the output of one image: CHW float32 and a label.
	imagerecOut = imagerecChannels*imagerecSize*imagerecSize*4 + 4
)

// imagerecNorm is the ImageNet mean and standard deviation.
var imagerecNorm = augment.Normalize{
	Mean: [4]float32{123.68, 116.28, 103.53},
	Std:  [4]float32{58.395, 57.12, 57.375},
}

// imagerecPipelineRow measures compat/mxnet's ImageRecordIter: decode, random 224x224 crop,
// random mirror, mean/std normalisation into float32 CHW, batches of 128,
// with the consumer releasing each batch. The plain loop (imagerecPlain)
// does the same per image, the best way the decoder's API allows, into one
// reused batch, with threads goroutines sharing the images of each batch.
func imagerecPipelineRow(cfg config, set *imagerecSet, dec decode.Decoder, threads int) (Row, error) {
	it, err := newImagerecIter(set, dec, threads)
	if err != nil {
		return Row{}, err
	}
	n := len(set.payloads)
	rs, floor, err := imagerecMeasure(cfg, set, dec, it, threads, "ImageRecordIter")
	if err != nil {
		return Row{}, err
	}
	// Bytes allocated by one more pass of each: a batch made anew every
	// pass shows here (the record payloads the Iter reads are in it).
	pipeAlloc, err := allocatedBy(func() error { _, err := imagerecPass(it); return err })
	if err != nil {
		return Row{}, err
	}
	plainAlloc, err := allocatedBy(func() error { _, err := imagerecPlain(set, dec, threads); return err })
	if err != nil {
		return Row{}, err
	}
	row := newRow("imagerec-pipeline", threads, n, int64(n)*imagerecOut, rs[0], rs[1], floor)
	row.Decoder = dec.Name()
	row.Note = fmt.Sprintf("%d photos: ImageRecordIter (preprocess_threads %d, prefetch_buffer 4), random 224 crop, random mirror, mean/std, float32 CHW, "+
		"batch 128, Release; plain: %d goroutine(s) per batch; a pass allocates %.1f MB (plain loop %.1f MB)",
		n, threads, threads, float64(pipeAlloc)/1e6, float64(plainAlloc)/1e6)
	return row, nil
}

// imagerecMeasure times feed's epoch-0 pass against imagerecPlain with
// threads goroutines, alternately, checks that both saw the same batches,
// and measures the floor of the output's size.
func imagerecMeasure(cfg config, set *imagerecSet, dec decode.Decoder, feed *pipeline.Pipe[*tensor.Batch], threads int, what string) ([]run, run, error) {
	var got, want uint64
	rs, err := measureEach(cfg.reps, func() (err error) { got, err = imagerecPass(feed); return err },
		func() (err error) { want, err = imagerecPlain(set, dec, threads); return err })
	if err != nil {
		return nil, run{}, err
	}
	if got != want {
		return nil, run{}, fmt.Errorf("imagerec-pipeline (%s, %d threads): %s and plain loop differ (%x, %x)", dec.Name(), threads, what, got, want)
	}
	floor, err := measureFloor(cfg.reps, int64(len(set.payloads))*imagerecOut, 1<<20)
	return rs, floor, err
}

// allocatedBy returns the bytes of heap memory fn allocates.
func allocatedBy(fn func() error) (uint64, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// newImagerecIter returns the ImageRecordIter of the pipeline rows.
func newImagerecIter(set *imagerecSet, dec decode.Decoder, threads int) (*pipeline.Pipe[*tensor.Batch], error) {
	return mxnet.ImageRecordIter(context.Background(), imagerecParams(mxnet.Params{
		"path_imgrec": set.path, "num_parts": set.parts, "part_index": 0,
		"seed": imagerecSeed, "preprocess_threads": threads, "decoder": dec,
	}))
}

// imagerecParams returns ImageRecordIter's parameters for the bench's
// pipeline, with more: 224 x 224 random crops, random mirror, the ImageNet
// mean and std, batches of 128 with the short one kept.
func imagerecParams(more mxnet.Params) mxnet.Params {
	n := imagerecNorm
	p := mxnet.Params{
		"data_shape": [3]int{imagerecChannels, imagerecSize, imagerecSize},
		"batch_size": imagerecBatch, "round_batch": batch.Keep,
		"rand_crop": true, "rand_mirror": true,
		"mean_r": n.Mean[0], "mean_g": n.Mean[1], "mean_b": n.Mean[2],
		"std_r": n.Std[0], "std_g": n.Std[1], "std_b": n.Std[2],
	}
	maps.Copy(p, more)
	return p
}

// imagerecPass reads one epoch-0 pass of it, releasing every batch, and
// returns its checksum.
func imagerecPass(it *pipeline.Pipe[*tensor.Batch]) (uint64, error) {
	var sum uint64
	ctx := source.WithEpoch(context.Background(), 0)
	for t, err := range it.All(ctx) {
		if err != nil {
			return 0, err
		}
		sum = consumeTensor(sum, t.Data[0].F32, t.Label[0].F32)
		t.Release()
	}
	return sum, nil
}

// consumeTensor folds a batch into a checksum: every label and a sample of
// the data, bit for bit.
func consumeTensor(sum uint64, data, label []float32) uint64 {
	for _, l := range label {
		sum = sum*31 + uint64(math.Float32bits(l))
	}
	for i := 0; i < len(data); i += 1009 {
		sum = sum*31 + uint64(math.Float32bits(data[i]))
	}
	return sum
}

// imagerecPlain is the hand loop for the full pipeline, the best a
// programmer who knows the decoder writes: threads goroutines share the
// images of each batch; each keeps one generator (reseeded per image as
// source.NewRand seeds it) and its crop callback; the decoder decodes only
// the rows and columns around the crop (DecodeRegion with Crop, no copy);
// the crop goes through per-channel tables straight into the reused batch,
// mirrored by storing forwards and loading backwards.
func imagerecPlain(set *imagerecSet, dec decode.Decoder, threads int) (uint64, error) {
	const per = imagerecChannels * imagerecSize * imagerecSize
	if set.batch == nil {
		set.batch = make([]float32, imagerecBatch*per)
		set.label = make([]float32, imagerecBatch)
	}
	data, label := set.batch, set.label
	lut := plainTables(imagerecNorm)
	workers := make([]*plainWorker, threads)
	for t := range workers {
		workers[t] = newPlainWorker()
	}
	rd, region := dec.(decode.RegionDecoder)
	var sum uint64
	for lo := 0; lo < len(set.payloads); lo += imagerecBatch {
		nb := min(imagerecBatch, len(set.payloads)-lo)
		err := plainWorkers(nb, threads, func(t, k int) error {
			i := lo + k
			h, jpg, err := imagerec.ParseRecord(set.payloads[i])
			if err != nil {
				return err
			}
			w := workers[t]
			seeded.SeedPCG(&w.pcg, imagerecSeed, 0, i)
			opts := decode.Options{Channels: imagerecChannels, Crop: w.crop}
			dst := data[k*per : (k+1)*per]
			if region {
				img, rect, release, err := rd.DecodeRegion(jpg, opts)
				if err != nil {
					return fmt.Errorf("image %d: %w", i, err)
				}
				plainNormalize(dst, img, rect, w.r.IntN(2) == 1, &lut)
				release()
			} else {
				img, err := dec.Decode(jpg, opts)
				if err != nil {
					return fmt.Errorf("image %d: %w", i, err)
				}
				plainNormalize(dst, img, image.Rect(0, 0, img.Width, img.Height), w.r.IntN(2) == 1, &lut)
			}
			label[k] = h.Label
			return nil
		})
		if err != nil {
			return 0, err
		}
		sum = consumeTensor(sum, data[:nb*per], label[:nb])
	}
	return sum, nil
}

// plainWorker is one goroutine's generator and crop callback.
type plainWorker struct {
	pcg  rand.PCG
	r    *rand.Rand
	crop func(w, h int) (image.Rectangle, error)
}

func newPlainWorker() *plainWorker {
	w := &plainWorker{}
	w.r = rand.New(&w.pcg)
	w.crop = func(iw, ih int) (image.Rectangle, error) {
		return imagegeom.RandomRect(iw, ih, imagerecSize, imagerecSize, w.r)
	}
	return w
}

// plainWorkers calls f(t, 0), ..., f(t, n-1) on threads goroutines (or on
// the caller's when threads is 1), t being the goroutine, each taking the
// next index, and returns the first error.
func plainWorkers(n, threads int, f func(t, i int) error) error {
	if threads == 1 {
		for i := range n {
			if err := f(0, i); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(t, i); err != nil {
					errs[t] = err
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// plainTables returns the value of every byte in every channel under n's
// mean and std, as Normalize computes them.
func plainTables(n augment.Normalize) (lut [3][256]float32) {
	for c := range lut {
		mul := 1 / n.Std[c]
		for v := range 256 {
			lut[c][v] = (float32(v)-n.Mean[c])*mul + 0 // + bias 0, as Normalize adds it
		}
	}
	return lut
}

// plainNormalize is the fused loop of the plain pipeline: rectangle r of
// the RGB image img through the tables into CHW float32, mirrored or not,
// one table load per value and the three planes written in one sweep,
// always stored forwards (a mirrored row is loaded backwards).
func plainNormalize(dst []float32, img sample.Image, r image.Rectangle, mirror bool, lut *[3][256]float32) {
	w, h := r.Dx(), r.Dy()
	plane := w * h
	stride := img.Width * 3
	l0, l1, l2 := &lut[0], &lut[1], &lut[2]
	for y := range h {
		o := (r.Min.Y+y)*stride + r.Min.X*3
		s := img.Pix[o : o+3*w]
		r0, r1, r2 := dst[y*w:(y+1)*w], dst[plane+y*w:plane+(y+1)*w], dst[2*plane+y*w:2*plane+(y+1)*w]
		r1, r2 = r1[:len(r0)], r2[:len(r0)]
		if mirror {
			for j := range r0 {
				i := 3 * (len(r0) - 1 - j)
				p := s[i : i+3 : i+3]
				r0[j], r1[j], r2[j] = l0[p[0]], l1[p[1]], l2[p[2]]
			}
			continue
		}
		for x := range r0 {
			p := s[3*x : 3*x+3 : 3*x+3]
			r0[x], r1[x], r2[x] = l0[p[0]], l1[p[1]], l2[p[2]]
		}
	}
}

// imagerecPart is the recordio option that reads part 0 of parts of the
// photos, as ImageRecordIter's num_parts cuts them (dmlc's byte ranges).
func imagerecPart(parts int) recordio.Option {
	return inputsplit.RecordIO(parts, 0).(recordio.Option)
}
