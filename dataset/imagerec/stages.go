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
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// Example is one image record, decoded.
type Example struct {
	Index int          // the record's index in the pass (recordio.Record.Index)
	ID    uint64       // the header's id: the image's index in the .lst file
	Label []float32    // the header's labels (see DecodeRecord)
	Image sample.Image // the pixels, HWC
}

// DecodeRecord parses rec's image record header and decodes its image
// with dec (decode.Default() when nil) and o (channels, limits, a crop).
// The labels are the header's: Labels when its flag is positive, else
// Label (a .lst file's labels, by the id, are a map of ReadList's entries
// away). Any error is a *tensorfeed.Error naming rec's file, index and
// byte offset; it wraps ErrHeader for a malformed header (such as a label
// count that runs past the record) and decode.ErrImage or decode.ErrSize
// for bytes that do not decode.
func DecodeRecord(rec recordio.Record, dec decode.Decoder, o decode.Options) (Example, error) {
	if dec == nil {
		dec = decode.Default()
	}
	h, data, err := ParseRecord(rec.Data)
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	img, err := dec.Decode(data, o)
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	return Example{Index: rec.Index, ID: h.ID, Label: h.AppendLabels(nil), Image: img}, nil
}

// Decode returns a reader that decodes every record of r into an Example,
// in order, as DecodeRecord does with dec and o, on the goroutine that
// reads it. An error ends the pass, unless bad (a bad-record policy,
// source.SkipBad; nil for none) lets it skip bad records: a record whose
// header, labels or image cannot be parsed or decoded (any error wrapping
// tensorfeed.ErrBadData, an image over decode.Options.MaxBytes included)
// is then skipped, counted (source.SkipCounted: the reader's Skipped
// method) and logged at warn level through the pass's tensorfeed.Logger
// with its file, record index and byte offset, until the skipped records
// pass the policy's fraction. Errors of r itself (the RecordIO framing,
// I/O) end the pass whatever the policy: the extent of such damage is
// unknown.
//
// Decoding on several goroutines is the pipeline's: pipeline.ParallelMap
// of DecodeRecord, or, for batches of tensors, a sink.Fill field that
// decodes each image into its row, with pipeline.Tensorize's Workers and
// OnBad (compat/mxnet's ImageRecordIter is built so). Decode panics if
// o.Channels is not 0, 1, 3 or 4.
func Decode(r source.Reader[recordio.Record], dec decode.Decoder, o decode.Options, bad *source.SkipPolicy) source.Reader[Example] {
	if ch := o.Channels; ch != 0 && ch != 1 && ch != 3 && ch != 4 {
		panic(fmt.Sprintf("imagerec: Decode: %d channels (want 0, 1, 3 or 4)", ch))
	}
	if dec == nil {
		dec = decode.Default()
	}
	f := func(rec recordio.Record) (decoded, error) {
		ex, err := DecodeRecord(rec, dec, o)
		if errors.Is(err, tensorfeed.ErrBadData) {
			// Decided in order by the pass, so that what is skipped does
			// not depend on which worker saw it first.
			return decoded{err: err}, nil
		}
		return decoded{ex: ex}, err
	}
	return &decodeReader{m: stage.MapErr(r, f), policy: bad}
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
		count := (*skipcount.Policy)(d.policy).Pass(-1, tensorfeed.Logger(ctx))
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
// several steps) to the image of every example of r, on the goroutine that
// reads it. Example i of epoch e draws from source.NewRand(seed, e, i), i
// being Example.Index, so the result does not depend on where it runs. The
// epoch of a pass is taken from ctx or counted by the reader. An error
// from a step ends the pass with an error naming the example's index and
// id that wraps the step's error.
func Augment(r source.Reader[Example], aug augment.Aug, seed uint64) source.Reader[Example] {
	var epochs source.Epochs
	return source.Func[Example](func(ctx context.Context) iter.Seq2[Example, error] {
		ctx, ep := epochs.Start(ctx)
		f := func(ex Example) (Example, error) {
			img, err := aug(ex.Image, source.NewRand(seed, ep, ex.Index))
			if err != nil {
				return Example{}, fmt.Errorf("imagerec: example %d (id %d): %w", ex.Index, ex.ID, err)
			}
			ex.Image = img
			return ex, nil
		}
		return stage.MapErr(r, f).All(ctx)
	})
}
