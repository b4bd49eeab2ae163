// Package resume holds what the example programs share to stop a run and
// resume it exactly: the flags (-feed-only, -dump, -stop-after,
// -checkpoint, -resume), the checkpoint handling around
// pipeline.Pipe.EpochsFrom, and the dump of every batch's hash that shows
// a stopped and resumed run delivers the same batches as a straight one.
//
// # Checkpoints
//
// A checkpoint is the input pipeline's position (pipeline.Checkpoint): the
// epoch, the batches of it the training loop received, and the state of
// every step, computed from that count. It is written with -stop-after N
// (after the run's N-th batch, then the run ends) and at the end of every
// epoch when -checkpoint names a file. -resume continues from one: the
// first epoch yields exactly the batches that followed it. Worker counts
// (-threads) and prefetch sizes (-prefetch) may differ between the two
// runs; a checkpoint of another pipeline (another program, another -batch,
// other data) is refused.
//
// A run whose context is cancelled (tensorfeed.NotifyStop's, on SIGINT or
// SIGTERM) stops at the loop's next batch, writes the checkpoint of the
// position reached when -checkpoint names a file, and ends with a
// *StopError that says where, so that it resumes as a run stopped by
// -stop-after does.
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
package resume

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash"
	"iter"
	"math"
	"os"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
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

// Run is one run of a pipeline of batches under the flags: it resumes from
// -resume, writes the dump and the checkpoints, and stops at -stop-after.
// Make one with Start, range Epochs, then call Close.
type Run struct {
	ctx    context.Context
	flags  Flags
	pipe   *pipeline.Pipe[*tensor.Batch]
	from   *pipeline.Checkpoint
	epochs iter.Seq2[int, iter.Seq2[*tensor.Batch, error]]

	dump    *os.File
	w       *bufio.Writer
	h       hash.Hash
	buf     []byte
	labels  []int32
	batches int                  // batches the loop received in this run
	stopped *pipeline.Checkpoint // where -stop-after stopped the run
	size    int                  // bytes of the last checkpoint written

	epoch       int        // the epoch the loop is in
	step        int64      // batches of it the loop received
	interrupted *StopError // where the context's cancellation stopped the run
}

// StopError is the error of a run whose context was cancelled: where the
// loop stopped and where its checkpoint went. It wraps the context's
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

// Start prepares a run of epochs 0 .. n-1 of pipe, or of the rest of them
// from the -resume checkpoint. A checkpoint that cannot be read or belongs
// to another pipeline is an error naming the file (wrapping
// pipeline.ErrCheckpoint). It opens the dump: truncated for a new run,
// appended to for a resumed one.
func Start(ctx context.Context, f Flags, pipe *pipeline.Pipe[*tensor.Batch], n int) (*Run, error) {
	r := &Run{ctx: ctx, flags: f, pipe: pipe}
	if f.Resume != "" {
		c, err := pipeline.ReadCheckpoint(f.Resume)
		if err != nil {
			return nil, fmt.Errorf("-resume: %w", err)
		}
		r.epochs, err = pipe.EpochsFrom(ctx, c, n)
		if err != nil {
			return nil, fmt.Errorf("-resume %s: %w", f.Resume, err)
		}
		r.from, r.epoch, r.step = c, c.Epoch, c.Step
	} else {
		r.epochs = pipe.Epochs(ctx, n)
	}
	if f.Dump != "" {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if r.from != nil {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		d, err := os.OpenFile(f.Dump, flags, 0o644)
		if err != nil {
			return nil, fmt.Errorf("-dump: %w", err)
		}
		r.dump, r.w, r.h = d, bufio.NewWriter(d), sha256.New()
	}
	return r, nil
}

// Resumed returns the checkpoint the run continues from, or nil.
func (r *Run) Resumed() *pipeline.Checkpoint { return r.from }

// Err returns nil, or a *StopError when the run's context was cancelled:
// the checkpoint of the position the loop reached is written (with
// -checkpoint) and the error says where. A pass cancelled in its middle
// yields the same error; call Err after the loop over Epochs for a
// cancellation that came between two epochs, or after the last one.
func (r *Run) Err() error {
	if r.interrupted != nil {
		return r.interrupted
	}
	if r.ctx.Err() == nil {
		return nil
	}
	return r.interrupt()
}

// interrupt writes the checkpoint of the loop's position after the
// context was cancelled and returns the *StopError that says where, or the
// error that kept the checkpoint from being written.
func (r *Run) interrupt() error {
	e := &StopError{Epoch: r.epoch, Step: r.step, Cause: context.Cause(r.ctx)}
	if r.flags.Checkpoint != "" {
		if _, err := r.save(r.epoch, r.step); err != nil {
			return fmt.Errorf("stopped at epoch %d step %d (%v), but the checkpoint was not written: %w", r.epoch, r.step, e.Cause, err)
		}
		e.Checkpoint = r.flags.Checkpoint
	}
	r.interrupted = e
	return e
}

// Stopped returns where -stop-after stopped the run, or nil when it ran
// every epoch (or has not stopped yet).
func (r *Run) Stopped() *pipeline.Checkpoint { return r.stopped }

// CheckpointBytes returns the size of the last checkpoint the run wrote.
func (r *Run) CheckpointBytes() int { return r.size }

// Batches returns how many batches the loop has received in this run.
func (r *Run) Batches() int { return r.batches }

// Epochs yields each epoch's number with its pass, as pipeline's Epochs
// does. Each batch is written to the dump before the loop receives it;
// after the loop is done with the run's -stop-after-th batch (its next
// pull), the checkpoint is written and the pass and the epochs end. At the
// end of every complete pass the checkpoint is written when -checkpoint is
// set. An error writing the dump or a checkpoint ends the pass with it.
func (r *Run) Epochs() iter.Seq2[int, iter.Seq2[*tensor.Batch, error]] {
	return func(yield func(int, iter.Seq2[*tensor.Batch, error]) bool) {
		for e, pass := range r.epochs {
			first := int64(0)
			if r.from != nil && e == r.from.Epoch {
				first = r.from.Step
			}
			if !yield(e, r.pass(e, first, pass)) || r.stopped != nil {
				return
			}
		}
	}
}

func (r *Run) pass(e int, step int64, pass iter.Seq2[*tensor.Batch, error]) iter.Seq2[*tensor.Batch, error] {
	return func(yield func(*tensor.Batch, error) bool) {
		r.epoch, r.step = e, step
		for b, err := range pass {
			// A cancelled context stops the loop at its next pull: the
			// batches a prefetch holds are not delivered, and the
			// checkpoint is the position the loop reached.
			if r.ctx.Err() != nil {
				if err == nil {
					b.Release()
				}
				yield(nil, r.interrupt())
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if err := r.write(e, step, b); err != nil {
				b.Release()
				yield(nil, err)
				return
			}
			if !yield(b, nil) {
				return
			}
			step++
			r.batches++
			r.step = step
			if r.flags.StopAfter > 0 && r.batches == r.flags.StopAfter {
				c, err := r.save(e, step)
				if err != nil {
					yield(nil, err)
					return
				}
				r.stopped = c
				return
			}
		}
		if r.flags.Checkpoint != "" {
			if _, err := r.save(e, step); err != nil {
				yield(nil, err)
			}
		}
	}
}

// write appends the batch's line to the dump.
func (r *Run) write(e int, step int64, b *tensor.Batch) error {
	if r.w == nil {
		return nil
	}
	var err error
	r.labels, r.buf, err = hashBatch(r.h, b, r.labels, r.buf)
	if err != nil {
		return fmt.Errorf("-dump: epoch %d step %d: %w", e, step, err)
	}
	var sum [sha256.Size]byte
	if _, err := fmt.Fprintf(r.w, "%d\t%d\t%s\n", e, step, hex.EncodeToString(r.h.Sum(sum[:0]))); err != nil {
		return fmt.Errorf("-dump: %w", err)
	}
	return nil
}

// save flushes the dump and writes the checkpoint of (epoch, step), so that
// the dump on disk never lags behind the checkpoint.
func (r *Run) save(epoch int, step int64) (*pipeline.Checkpoint, error) {
	if r.w != nil {
		if err := r.w.Flush(); err != nil {
			return nil, fmt.Errorf("-dump: %w", err)
		}
	}
	// The run's own count, not the feed's position: a run stopped by a
	// signal has received one batch more from the feed than it hands on.
	// Not the run's context either: a run stopped by a signal still saves.
	c, err := r.pipe.CheckpointAt(context.Background(), epoch, step)
	if err != nil {
		return nil, err
	}
	data, err := c.Encode()
	if err != nil {
		return nil, err
	}
	if err := c.WriteFile(r.flags.Checkpoint); err != nil {
		return nil, fmt.Errorf("-checkpoint: %w", err)
	}
	r.size = len(data)
	return c, nil
}

// Close flushes and closes the dump.
func (r *Run) Close() error {
	if r.dump == nil {
		return nil
	}
	err := r.w.Flush()
	if cerr := r.dump.Close(); err == nil {
		err = cerr
	}
	r.dump = nil
	if err != nil {
		return fmt.Errorf("-dump: %w", err)
	}
	return nil
}

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

// Tagged returns r as a resumable reader whose states carry kind above r's
// own: a program names in it the parameters that decide its stream (batch
// size, augmentation, seed), so that a checkpoint taken with other values
// is refused even when r's state does not show them (a reader resumed by
// replay). It yields what r yields.
func Tagged[T any](kind string, r source.Reader[T]) source.Reader[T] {
	return source.Follow(kind, r, func(r source.Reader[T]) source.Reader[T] { return r })
}
