package mnist

import (
	"context"
	"iter"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// Ref is a sample of a data set held in memory, by reference: the image
// is not copied, so a Ref is 24 bytes where a Sample is 800, and moving it
// through stages, batches and a sink's fill functions costs a few words
// instead of three copies of the image per step. Make them with
// [Dataset.Refs].
//
// The image belongs to the data set in memory, which every pass and, with
// the decoded-file cache (see [SetCacheBytes]), every Dataset over the
// same files shares: read it, never change it (take a copy with
// [Ref.Sample] to change one).
type Ref struct {
	img   *[Pixels]uint8
	Label uint8 // the digit
	Index int   // the sample's position in its file (0-based)
}

// Image returns the sample's pixels, row-major. They are shared: do not
// change them.
func (r Ref) Image() *[Pixels]uint8 { return r.img }

// Sample returns a copy of the sample.
func (r Ref) Sample() Sample {
	return Sample{Image: *r.img, Label: r.Label, Index: r.Index}
}

// Refs returns a reader of the dataset's samples by reference: the same
// samples in the same order as the dataset's passes (its shuffle, shard,
// classes and bad-record policy apply; [Prefetch] too), as a Ref each.
// Every pass holds the samples of its shard in memory, as a shuffled
// pass of the dataset does, and takes them from the decoded-file cache
// when it covers the whole files ([SetCacheBytes]): the files are read
// and decompressed once per process. It is the fast way to feed MNIST to
// a sink:
//
//	train := mnist.Train(dir, mnist.Scaling(mnist.ScaleSymmetric), mnist.Shuffle(42))
//	tensors := sink.New(128,
//		[]sink.Field[mnist.Ref]{train.RefImageField("image")},
//		[]sink.Field[mnist.Ref]{sink.Int32("label", nil, mnist.FillRefLabelInt32)})
//	feed := pipeline.Tensorize(pipeline.From(train.Refs()), tensors, batch.Keep).Buffered(4)
func (d *Dataset) Refs() source.Reader[Ref] {
	var r source.Reader[Ref] = newReader(d, "refs", d.refPass)
	if d.cfg.prefetch > 0 {
		r = stage.Buffered(r, d.cfg.prefetch)
	}
	return r
}

func (d *Dataset) refPass(ctx context.Context, epochs *source.Epochs, from int) iter.Seq2[Ref, error] {
	return func(yield func(Ref, error) bool) {
		ctx, ep := epochs.Start(ctx)
		log := tensorfeed.Logger(ctx)
		f, err := d.openContext(ctx)
		if err != nil {
			yield(Ref{}, err)
			return
		}
		defer f.close()
		start, end := d.cfg.shardRange(f.n)
		if ce := log.Check(zap.DebugLevel, "mnist pass"); ce != nil {
			ce.Write(zap.String("images", f.img.Name()), zap.String("labels", f.lab.Name()),
				zap.Int("epoch", ep), zap.Int("start", start), zap.Int("end", end), zap.Bool("refs", true),
				zap.Bool("gzip", f.img.Gzipped()), zap.Bool("shuffle", d.cfg.shuffle), zap.Bool("shuffle_once", d.cfg.once))
		}
		if err := f.img.Skip(start); err != nil {
			yield(Ref{}, err)
			return
		}
		if err := f.lab.Skip(start); err != nil {
			yield(Ref{}, err)
			return
		}
		dec, err := decodedOf(f, start, end, d.cfg.idx)
		if err != nil {
			yield(Ref{}, err)
			return
		}
		d.inMemory(ctx, log, dec, start, ep, from, func(j int) bool {
			return yield(Ref{img: (*[Pixels]uint8)(dec.image(j)), Label: dec.labels[j], Index: start + j}, nil)
		}, func(err error) { yield(Ref{}, err) })
	}
}

// FillRefImage is FillImage for a Ref.
func (d *Dataset) FillRefImage(r Ref, dst []float32) { d.cfg.scale.Pixels(r.img[:], dst) }

// RefImageField is ImageField for a Ref: a float32 sink field named name,
// of shape ImageShape, marked WritesAll.
func (d *Dataset) RefImageField(name string) sink.Field[Ref] {
	return sink.Float32(name, d.ImageShape(), d.FillRefImage).WritesAll()
}

// FillRefLabel writes the label of r into dst[0] as a float32.
func FillRefLabel(r Ref, dst []float32) { dst[0] = float32(r.Label) }

// FillRefLabelInt32 writes the label of r into dst[0].
func FillRefLabelInt32(r Ref, dst []int32) { dst[0] = int32(r.Label) }
