// Package dump holds what the example programs share around stopping and
// resuming, apart from the mechanism itself (which each program spells out
// with the public API: pipeline.ReadCheckpoint, Pipe.EpochsFrom,
// Pipe.Checkpoint): the flags (-feed-only, -dump, -stop-after,
// -checkpoint, -resume), the dump of every batch's hash that shows a
// stopped and resumed run delivers the same batches as a straight one, and
// the one-line error of a run a signal stopped.
//
// # Dump
//
// -dump FILE writes one line per batch the loop receives:
//
//	epoch<TAB>step<TAB>sha256
//
// where step counts the batches of the epoch from 0 and the hash is over
// the batch's first data tensor as little-endian float32 followed by its
// first label tensor as little-endian int32 (see Hash). A resumed run
// appends to the file, so the dump of a stopped run followed by the dump
// of its resumed run equals the dump of the straight run.
package dump

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash"
	"math"
	"os"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Flags are the stop-and-resume flags of an example program.
type Flags struct {
	FeedOnly   bool   // run the input pipeline without training
	Dump       string // file of one line per batch: epoch, step, hash; "" for none
	StopAfter  int    // stop after this many batches of the run; 0 to run every epoch
	Checkpoint string // where -stop-after and the end of every epoch write the checkpoint; "" for none
	Resume     string // checkpoint to continue from; "" to start at epoch 0
}

// Register defines the flags on fs. labels says how the program's label
// tensor becomes int32 values in the dump's hash (as "int32" for labels
// that are int32 already).
func (f *Flags) Register(fs *flag.FlagSet, labels string) {
	fs.BoolVar(&f.FeedOnly, "feed-only", f.FeedOnly, "run the input pipeline without training")
	fs.StringVar(&f.Dump, "dump", f.Dump, "write one line per batch to this file: epoch<TAB>step<TAB>sha256 (step counts from 0 in each epoch; "+
		"the hash is over the image tensor as little-endian float32 followed by the labels as little-endian "+labels+"); a -resume run appends")
	fs.IntVar(&f.StopAfter, "stop-after", f.StopAfter, "stop after N batches of the run, write the checkpoint to -checkpoint and exit (0: run every epoch)")
	fs.StringVar(&f.Checkpoint, "checkpoint", f.Checkpoint, "write the input pipeline's checkpoint to this file at the end of every epoch, at -stop-after, and where SIGINT or SIGTERM stops the run")
	fs.StringVar(&f.Resume, "resume", f.Resume, "continue from this checkpoint file (same pipeline flags; -threads and -prefetch may differ)")
}

// CheckOutputs checks, before a run starts, that the checkpoint and the
// dump can be written, so that a bad path fails at once rather than at
// the end of the first epoch.
func (f *Flags) CheckOutputs() error {
	return errors.Join(cli.WritableFile("checkpoint", f.Checkpoint), cli.WritableFile("dump", f.Dump))
}

// Check returns an error for values that cannot work together, for
// cli.CheckFlags; nil when they are good.
func (f *Flags) Check() error {
	var errs []error
	if f.StopAfter < 0 {
		errs = append(errs, fmt.Errorf("invalid value %d for -stop-after: must be at least 0", f.StopAfter))
	}
	if f.StopAfter > 0 && f.Checkpoint == "" {
		errs = append(errs, fmt.Errorf("-stop-after %d needs -checkpoint FILE to write where the run stopped", f.StopAfter))
	}
	return errors.Join(errs...)
}

// Writer writes the dump. A nil *Writer (no -dump) writes nothing.
type Writer struct {
	f      *os.File
	w      *bufio.Writer
	h      hash.Hash
	buf    []byte
	labels []int32
}

// Open opens the dump at path: truncated for a new run, appended to for a
// resumed one. It returns nil for path "".
func Open(path string, resumed bool) (*Writer, error) {
	if path == "" {
		return nil, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if resumed {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("-dump: %w", err)
	}
	return &Writer{f: f, w: bufio.NewWriter(f), h: sha256.New()}, nil
}

// Write appends the line of batch b, the step-th (from 0) of epoch.
func (d *Writer) Write(epoch int, step int64, b *tensor.Batch) error {
	if d == nil {
		return nil
	}
	var err error
	d.labels, d.buf, err = hashBatch(d.h, b, d.labels, d.buf)
	if err != nil {
		return fmt.Errorf("-dump: epoch %d step %d: %w", epoch, step, err)
	}
	var sum [sha256.Size]byte
	if _, err := fmt.Fprintf(d.w, "%d\t%d\t%s\n", epoch, step, hex.EncodeToString(d.h.Sum(sum[:0]))); err != nil {
		return fmt.Errorf("-dump: %w", err)
	}
	return nil
}

// Flush writes what is buffered to the file. A program flushes before it
// writes a checkpoint, so that the dump on disk never lags behind it.
func (d *Writer) Flush() error {
	if d == nil {
		return nil
	}
	if err := d.w.Flush(); err != nil {
		return fmt.Errorf("-dump: %w", err)
	}
	return nil
}

// Close flushes and closes the dump.
func (d *Writer) Close() error {
	if d == nil || d.f == nil {
		return nil
	}
	err := d.Flush()
	if cerr := d.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("-dump: %w", cerr)
	}
	d.f = nil
	return err
}

// StopError is the error of a run whose context was cancelled (by
// tensorfeed.NotifyStop on SIGINT or SIGTERM): where the loop stopped and
// where its checkpoint went. It wraps the context's
// cause, a *tensorfeed.SignalError when a signal stopped the run, so that
// tensorfeed.ExitCode gives the signal's exit status.
type StopError struct {
	Epoch      int    // the checkpoint's epoch, from 0
	Step       int64  // the batches of the epoch the loop received: the checkpoint's step
	Checkpoint string // the file written; "" without -checkpoint
	Cause      error  // context.Cause of the run's context
}

func (e *StopError) Error() string {
	var msg string
	if se, ok := errors.AsType[*tensorfeed.SignalError](e.Cause); ok {
		msg = fmt.Sprintf("%v at epoch %d step %d", se, e.Epoch, e.Step)
	} else {
		msg = fmt.Sprintf("stopped at epoch %d step %d (%v)", e.Epoch, e.Step, e.Cause)
	}
	if e.Checkpoint == "" {
		return msg + "; no checkpoint written (-checkpoint not set)"
	}
	return msg + "; checkpoint written to " + e.Checkpoint
}

// Unwrap returns the context's cause.
func (e *StopError) Unwrap() error { return e.Cause }

// Hash returns the hex SHA-256 of a batch as the dump writes it: its first
// data tensor's values as little-endian float32, then its first label
// tensor's values as little-endian int32. Float32 labels (the image record
// iterator's) are whole numbers and are converted to int32; a label that
// is not one is an error, as is a data tensor that is not float32.
func Hash(b *tensor.Batch) (string, error) {
	h := sha256.New()
	if _, _, err := hashBatch(h, b, nil, nil); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashBatch resets h and writes b into it; labels and buf are scratch
// space, returned for the next call.
func hashBatch(h hash.Hash, b *tensor.Batch, labels []int32, buf []byte) ([]int32, []byte, error) {
	h.Reset()
	if len(b.Data) == 0 || len(b.Label) == 0 {
		return labels, buf, fmt.Errorf("batch without a data or a label tensor")
	}
	d, l := b.Data[0], b.Label[0]
	if d.DType != sample.Float32 {
		return labels, buf, fmt.Errorf("data tensor %q is %v, not float32", d.Name, d.DType)
	}
	switch l.DType {
	case sample.Int32:
		labels = l.I32
	case sample.Float32:
		labels = labels[:0]
		for _, v := range l.F32 {
			if v != float32(math.Trunc(float64(v))) || v < math.MinInt32 || v > math.MaxInt32 {
				return labels, buf, fmt.Errorf("label %v of tensor %q is not a whole number", v, l.Name)
			}
			labels = append(labels, int32(v))
		}
	default:
		return labels, buf, fmt.Errorf("label tensor %q is %v, not int32 or float32", l.Name, l.DType)
	}
	const chunk = 4096 // values encoded at a time
	if cap(buf) < 4*chunk {
		buf = make([]byte, 0, 4*chunk)
	}
	for f := d.F32; len(f) > 0; {
		n := min(len(f), chunk)
		buf = buf[:0]
		for _, v := range f[:n] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		h.Write(buf)
		f = f[n:]
	}
	for s := labels; len(s) > 0; {
		n := min(len(s), chunk)
		buf = buf[:0]
		for _, v := range s[:n] {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
		}
		h.Write(buf)
		s = s[n:]
	}
	if l.DType == sample.Int32 {
		labels = nil // the tensor's own memory: not scratch
	}
	return labels, buf, nil
}
