package imagerec

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/stage"
)

// Example is one image record, decoded.
type Example struct {
	Index int          // the record's index in the pass (recordio.Record.Index)
	ID    uint64       // the header's id: the image's index in the .lst file
	Label []float32    // the labels (see ReadOptions.Labels)
	Image sample.Image // the pixels, HWC
}

// ReadOptions configures Decode and DecodeRecord. The zero value decodes
// with DefaultDecoder, keeps each image's channels and takes labels from the
// record headers.
type ReadOptions struct {
	// Decoder decodes the image bytes; nil means DefaultDecoder().
	Decoder Decoder
	// Channels of the decoded images: 1, 3 or 4, or 0 for each image's own
	// (see DecodeOptions.Channels).
	Channels int
	// Labels, when set, gives each record the labels of its id, as
	// ImageRecordIter does with a .lst file (path_imglist); an id missing
	// from it is an error wrapping ErrLabel. When nil, the labels come from
	// the header: the label array when its flag is positive, else the
	// single header label.
	Labels *Labels
	// Threads is the number of goroutines Decode decodes with; 0 or 1
	// decodes on the consumer's goroutine. The order of the records is kept
	// either way.
	Threads int
	// MaxPixels bounds the size of an image (see DecodeOptions.MaxPixels);
	// 0 means DefaultMaxPixels.
	MaxPixels int
	// MaxDecodeBytes bounds the memory of one decode (see
	// DecodeOptions.MaxBytes); 0 means DefaultMaxDecodeBytes. Decode holds
	// at most max(Threads, 1) decodes at once.
	MaxDecodeBytes int64
	// SkipBad is Decode's bad-record policy, source.SkipBad(maxFraction,
	// opts...); nil ends the pass at the first bad record. With a policy, a
	// record whose header, labels or image is bad (its *RecordError wraps
	// tensorfeed.ErrBadData, an image over MaxDecodeBytes included) is
	// skipped, counted and logged to Logger, and the pass goes on in the
	// same order whatever Threads is. Errors of the records reader itself
	// (RecordIO framing, I/O) still end the pass. source.SkipBad(1,
	// source.OnSkip(f)) calls f with every bad record of a file.
	SkipBad *source.SkipPolicy
	// Logger receives a warning for every skipped record; nil means none.
	Logger *zap.Logger
}

// DecodeRecord parses rec's image record header and decodes its image. Any
// error is a *RecordError naming rec's file, index and byte offset; it
// wraps the header parser's error for a malformed header (such as a label
// count that runs past the record), ErrImage for bytes that do not decode
// and ErrLabel for a missing label.
func DecodeRecord(rec recordio.Record, opts ReadOptions) (Example, error) {
	dec := opts.Decoder
	if dec == nil {
		dec = DefaultDecoder()
	}
	h, data, err := ParseRecord(rec.Data)
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	label, err := recordLabels(h, opts.Labels, 0)
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	img, err := dec.Decode(data, DecodeOptions{Channels: opts.Channels, MaxPixels: opts.MaxPixels,
		MaxBytes: opts.MaxDecodeBytes})
	if err != nil {
		return Example{}, recordErr(rec, err)
	}
	return Example{Index: rec.Index, ID: h.ID, Label: append([]float32(nil), label...), Image: img}, nil
}

func recordErr(rec recordio.Record, err error) error {
	return &RecordError{File: rec.File, Index: rec.Index, Offset: rec.Offset, Err: err}
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
// in order (see DecodeRecord). An error ends the pass, unless
// opts.SkipBad lets it skip bad records. The reader implements
// source.SkipCounted: its Skipped method counts the records it skipped.
func Decode(r source.Reader[recordio.Record], opts ReadOptions) source.Reader[Example] {
	if opts.Decoder == nil {
		opts.Decoder = DefaultDecoder()
	}
	checkChannels(opts.Channels)
	f := func(rec recordio.Record) (decoded, error) {
		ex, err := DecodeRecord(rec, opts)
		if errors.Is(err, tensorfeed.ErrBadData) {
			// Decided in order by the pass, so that what is skipped does
			// not depend on which worker saw it first.
			return decoded{err: err}, nil
		}
		return decoded{ex: ex}, err
	}
	var m source.Reader[decoded]
	if opts.Threads > 1 {
		m = stage.ParallelMap(r, opts.Threads, f)
	} else {
		m = stage.MapErr(r, f)
	}
	return &decodeReader{m: m, policy: opts.SkipBad, log: opts.Logger}
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
	log     *zap.Logger
	skipped atomic.Int64
}

// Skipped returns how many records the reader skipped, over all passes.
func (d *decodeReader) Skipped() int64 { return d.skipped.Load() }

func (d *decodeReader) All(ctx context.Context) iter.Seq2[Example, error] {
	return func(yield func(Example, error) bool) {
		count := d.policy.Pass(-1, d.log)
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

// AugmentOptions configures Augment.
type AugmentOptions struct {
	// Seed makes the random steps repeatable: sample i of epoch e draws
	// from source.NewRand(Seed, e, i), i being Example.Index.
	Seed uint64
	// Threads is the number of goroutines; 0 or 1 augments on the
	// consumer's goroutine. The result does not depend on it.
	Threads int
}

// Augment returns a reader that applies augs in order to the image of every
// example of r. The epoch of a pass is taken from ctx (source.WithEpoch) or
// counted by the reader. An error from a step ends the pass with an error
// naming the example's index and id that wraps the step's error.
func Augment(r source.Reader[Example], opts AugmentOptions, augs ...Aug) source.Reader[Example] {
	aug := Compose(augs...)
	var epochs source.Epochs
	return source.Func[Example](func(ctx context.Context) iter.Seq2[Example, error] {
		ep := epochs.Next(ctx)
		ctx = source.WithEpoch(ctx, ep)
		f := func(ex Example) (Example, error) {
			img, err := aug(ex.Image, source.NewRand(opts.Seed, ep, ex.Index))
			if err != nil {
				return Example{}, fmt.Errorf("imagerec: example %d (id %d): %w", ex.Index, ex.ID, err)
			}
			ex.Image = img
			return ex, nil
		}
		if opts.Threads > 1 {
			return stage.ParallelMap(r, opts.Threads, f).All(ctx)
		}
		return stage.MapErr(r, f).All(ctx)
	})
}
