package imagerec

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// Example is one image record, decoded.
type Example struct {
	Index int          // the record's index in the pass (recordio.Record.Index)
	ID    uint64       // the header's id: the image's index in the .lst file
	Label []float32    // the labels (see LabelsFrom)
	Image sample.Image // the pixels, HWC
}

// DecodeRecord parses rec's image record header and decodes its image. Any
// error is a *tensorfeed.Error naming rec's file, index and byte offset; it
// wraps the header parser's error for a malformed header (such as a label
// count that runs past the record), ErrImage for bytes that do not decode
// and ErrLabel for a missing label. It takes the options of Decode but
// Threads and SkipBad.
func DecodeRecord(rec recordio.Record, opts ...Option) (Example, error) {
	c := stageConfig(opts)
	return decodeRecord(rec, &c)
}

func decodeRecord(rec recordio.Record, c *config) (Example, error) {
	h, data, err := ParseRecord(rec.Data)
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	label, err := recordLabels(h, c.labels, 0)
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	img, err := c.decoder.Decode(data, decode.Options{Channels: c.channels, MaxPixels: c.maxPixels,
		MaxBytes: c.maxDecodeBytes})
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	return Example{Index: rec.Index, ID: h.ID, Label: append([]float32(nil), label...), Image: img}, nil
}

// recordLabels returns the labels of a record with header h: from labels by
// id when it is set, else from the header. width > 0 checks the count as
// ImageRecordIter does. The result may share memory with h or labels.
func recordLabels(h Header, labels *Labels, width int) ([]float32, error) {
	if labels != nil {
		l, ok := labels.Lookup(h.ID)
		if !ok {
			return nil, fmt.Errorf("%w: id %d is not in the .lst file", ErrLabel, h.ID)
		}
		return l, nil
	}
	if h.Flag > 0 {
		if width > 0 && len(h.Labels) != width {
			return nil, fmt.Errorf("%w: record has %d labels, label width is %d", ErrLabel, len(h.Labels), width)
		}
		return h.Labels, nil
	}
	if width > 1 {
		return nil, fmt.Errorf("%w: record has 1 label, label width is %d (give a .lst file)", ErrLabel, width)
	}
	return []float32{h.Label}, nil
}

// Decode returns a reader that decodes every record of r into an Example,
// in order (see DecodeRecord), with Decoder, Channels, LabelsFrom,
// MaxPixels and MaxDecodeBytes, on Threads goroutines (the order is kept
// either way; Decode holds at most max(Threads, 1) decodes at once). An
// error ends the pass, unless SkipBad lets it skip bad records: they are
// then skipped in the same order whatever Threads is, counted and logged
// through the pass's tensorfeed.Logger. The reader implements
// source.SkipCounted: its Skipped method counts the records it skipped.
// Decode panics if Channels is not 0, 1, 3 or 4.
func Decode(r source.Reader[recordio.Record], opts ...Option) source.Reader[Example] {
	c := stageConfig(opts)
	if ch := c.channels; ch != 0 && ch != 1 && ch != 3 && ch != 4 {
		panic(fmt.Sprintf("imagerec: Decode: %d channels (want 0, 1, 3 or 4)", ch))
	}
	f := func(rec recordio.Record) (decoded, error) {
		ex, err := decodeRecord(rec, &c)
		if errors.Is(err, tensorfeed.ErrBadData) {
			// Decided in order by the pass, so that what is skipped does
			// not depend on which worker saw it first.
			return decoded{err: err}, nil
		}
		return decoded{ex: ex}, err
	}
	var m source.Reader[decoded]
	if c.threads > 1 {
		m = stage.ParallelMap(r, c.threads, f)
	} else {
		m = stage.MapErr(r, f)
	}
	return &decodeReader{m: m, policy: c.skipBad}
}

// decoded is one record's result: its example, or its bad-data error.
type decoded struct {
	ex  Example
	err error
}

// decodeReader applies the bad-record policy to the decoded records.
type decodeReader struct {
	m       source.Reader[decoded]
	policy  *source.SkipPolicy
	skipped atomic.Int64
}

// Skipped returns how many records the reader skipped, over all passes.
func (d *decodeReader) Skipped() int64 { return d.skipped.Load() }

func (d *decodeReader) All(ctx context.Context) iter.Seq2[Example, error] {
	return func(yield func(Example, error) bool) {
		count := d.policy.Pass(-1, tensorfeed.Logger(ctx))
		for r, err := range d.m.All(ctx) {
			if err != nil {
				yield(Example{}, err)
				return
			}
			if r.err != nil {
				if err := count.Bad(r.err); err != nil {
					yield(Example{}, err)
					return
				}
				d.skipped.Add(1)
				continue
			}
			count.Good()
			if !yield(r.ex, nil) {
				return
			}
		}
		if err := count.End(); err != nil {
			yield(Example{}, err)
		}
	}
}

// Augment returns a reader that applies aug (augment.Compose makes one of
// several steps) to the image of every example of r, on Threads
// goroutines; the result does not depend on their number. Example i of
// epoch e draws from source.NewRand(seed, e, i), i being Example.Index and
// seed the one of Seed or Shuffle. The epoch of a pass is taken from ctx or
// counted by the reader. An error from a step ends the pass with an error
// naming the example's index and id that wraps the step's error.
func Augment(r source.Reader[Example], aug augment.Aug, opts ...Option) source.Reader[Example] {
	c := stageConfig(opts)
	var epochs source.Epochs
	return source.Func[Example](func(ctx context.Context) iter.Seq2[Example, error] {
		ctx, ep := epochs.Start(ctx)
		f := func(ex Example) (Example, error) {
			img, err := aug(ex.Image, source.NewRand(c.seed, ep, ex.Index))
			if err != nil {
				return Example{}, fmt.Errorf("imagerec: example %d (id %d): %w", ex.Index, ex.ID, err)
			}
			ex.Image = img
			return ex, nil
		}
		if c.threads > 1 {
			return stage.ParallelMap(r, c.threads, f).All(ctx)
		}
		return stage.MapErr(r, f).All(ctx)
	})
}
