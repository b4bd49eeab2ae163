package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/source"
)

// CheckpointVersion is the version of the checkpoint format that
// Checkpoint writes and ParseCheckpoint reads.
const CheckpointVersion = 1

// Checkpoint is where a pipeline's run stands: after Step items of epoch
// Epoch reached the consumer. It is a few numbers, not samples: the state
// of every step (source.State), computed from the step count, so it is
// exact whatever was read ahead, and small (a pipeline over a
// random-access dataset with a global shuffle by index fits in a few
// hundred bytes). Stages whose position is not a function of the count
// (a shuffle buffer, a filter) replay their epoch up to the position when
// they resume, instead of saving their buffers.
//
// # Format
//
// Encode writes JSON, version 1:
//
//	{"version":1,"fingerprint":"9f2c4e1ab0d3c7e5","epoch":1,"step":37,
//	 "state":{"kind":"tensorize","in":[{"kind":"batch(128,keep)","pos":[37],"in":[...]}]}}
//
// fingerprint is the first 8 bytes, in hex, of the SHA-256 of the state's
// shape (source.State.Shape: every step's kind and parameters, positions
// left out); a checkpoint is resumed only by a pipeline of the same shape.
type Checkpoint struct {
	Version     int          `json:"version"`
	Fingerprint string       `json:"fingerprint"`
	Epoch       int          `json:"epoch"`
	Step        int64        `json:"step"`
	State       source.State `json:"state"`
}

// ErrCheckpoint is wrapped by the errors of a checkpoint that cannot be
// read or that belongs to another pipeline.
var ErrCheckpoint = errors.New("pipeline: checkpoint")

// Fingerprint returns the fingerprint of a state's shape (see Checkpoint).
func Fingerprint(st source.State) string {
	sum := sha256.Sum256([]byte(st.Shape()))
	return hex.EncodeToString(sum[:8])
}

// Checkpoint returns the checkpoint of p after its consumer received step
// items of the given epoch. Call it between two items, on the pipe whose
// items the consumer counts (for a training loop, the pipe of batches);
// it reads nothing and may be called while a pass is paused, as the
// training loop does between steps. A checkpoint at the end of an epoch
// (step = the epoch's length) resumes with an empty pass and goes on with
// the next epoch.
func (p *Pipe[T]) Checkpoint(epoch int, step int64) (*Checkpoint, error) {
	st, err := p.StateAt(epoch, step)
	if err != nil {
		return nil, fmt.Errorf("%w: epoch %d step %d: %w", ErrCheckpoint, epoch, step, err)
	}
	return &Checkpoint{Version: CheckpointVersion, Fingerprint: Fingerprint(st), Epoch: epoch, Step: step, State: st}, nil
}

// Encode returns the checkpoint as JSON.
func (c *Checkpoint) Encode() ([]byte, error) { return json.Marshal(c) }

// ParseCheckpoint reads a checkpoint written by Encode and checks its
// version and fingerprint.
func ParseCheckpoint(data []byte) (*Checkpoint, error) {
	var c Checkpoint
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%w: not a checkpoint: %w", ErrCheckpoint, err)
	}
	if c.Version != CheckpointVersion {
		return nil, fmt.Errorf("%w: version %d, this tensorfeed reads version %d", ErrCheckpoint, c.Version, CheckpointVersion)
	}
	if c.Epoch < 0 || c.Step < 0 {
		return nil, fmt.Errorf("%w: negative epoch %d or step %d", ErrCheckpoint, c.Epoch, c.Step)
	}
	if f := Fingerprint(c.State); f != c.Fingerprint {
		return nil, fmt.Errorf("%w: fingerprint %s does not match its state (%s): the file was changed", ErrCheckpoint, c.Fingerprint, f)
	}
	return &c, nil
}

// WriteFile writes the checkpoint to path atomically: a temporary file in
// the same directory, synced, then renamed over path, so a crash leaves
// the old checkpoint or the new one, never a torn file.
func (c *Checkpoint) WriteFile(path string) error {
	data, err := c.Encode()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// ReadCheckpoint reads a checkpoint file written by WriteFile.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// EpochsFrom is Epochs for a run that resumes from c: the first epoch is
// c.Epoch, whose pass yields exactly the items that followed step c.Step
// in the run that took c, and the next epochs are whole passes, up to
// epoch n-1 (n < 0: endless). Worker counts and prefetch sizes may differ
// from the run that took c; the shape of p may not: a checkpoint of
// another pipeline (other steps, other parameters, other data) is an
// error wrapping ErrCheckpoint and source.ErrState that shows both shapes.
func (p *Pipe[T]) EpochsFrom(ctx context.Context, c *Checkpoint, n int) (iter.Seq2[int, iter.Seq2[T, error]], error) {
	here, err := p.StateAt(c.Epoch, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	if f := Fingerprint(here); f != c.Fingerprint {
		return nil, fmt.Errorf("%w of another pipeline (%w): it has %s, this pipeline has %s", ErrCheckpoint, source.ErrState, c.State.Shape(), here.Shape())
	}
	first, err := p.Resume(c.State)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	return p.epochs(ctx, c.Epoch, first, n), nil
}
