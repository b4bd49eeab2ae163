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
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/kind"
	"github.com/tensorfeed/tensorfeed/source"
)

// checkpointVersion is the version of the checkpoint format that
// Checkpoint writes and ParseCheckpoint reads. Version 1 (no checksum, no
// data digest) is refused with a message that says so: it cannot be told
// from a checkpoint edited by hand, nor checked against the data.
const checkpointVersion = 2

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
// Encode writes JSON, version 2:
//
//	{"version":2,"fingerprint":"9f2c4e1ab0d3c7e5","epoch":1,"step":37,"data":"5be0c1d2e3f40617",
//	 "state":{"kind":"tensorize","in":[{"kind":"batch(128,keep)","pos":[37],"in":[...]}]},
//	 "sum":"0c9d...32 hex digits","marks":"a1f0..."}
//
// fingerprint is the first 8 bytes, in hex, of the SHA-256 of the state's
// shape (source.State.Shape: every step's kind and parameters, positions
// left out); a checkpoint is resumed only by a pipeline of the same shape.
// data is a digest of the identities of the data the pipeline's readers
// read when the checkpoint was taken (source.Identifier: file names, sizes,
// modification times or ETags), absent when no reader describes its data;
// a checkpoint is resumed only over the same data. sum is the first 16
// bytes, in hex, of the SHA-256 of the other fields (canonical JSON), so a
// checkpoint changed after it was written, by hand or by damage, is
// refused ("checksum mismatch") rather than resuming another position;
// marks, 2 bytes of a hash of each value (epoch, step, data, every counter
// of the state), lets that refusal name the one value that was changed.
//
// # Checks
//
// ParseCheckpoint and ReadCheckpoint refuse a checkpoint whose checksum,
// version, fingerprint or counters (negative ones) are wrong. EpochsFrom
// refuses an epoch at or past the run's last, another pipeline's shape,
// other data, and any position the readers find outside their data: a
// position past the end of the epoch's order or of a slice, a zipped input
// that is not where its siblings are, a file index or byte offset past the
// files. Positions that need the files (an offset against a file's size)
// are checked when the first pass opens them, before its first item. Each
// error wraps ErrCheckpoint and names the checkpoint (Source, or its epoch
// and step) and the field: "epoch", "step", "data", "state.in[0].pos[1]".
//
// The sum and marks are the format's own: Encode computes them from the
// content as it is, ParseCheckpoint checks them, and they are not fields.
// Encode is the encoding: json.Marshal of a Checkpoint leaves them out,
// and ParseCheckpoint refuses what it gives.
type Checkpoint struct {
	Version     int          `json:"version"`
	Fingerprint string       `json:"fingerprint"`
	Epoch       int          `json:"epoch"`
	Step        int64        `json:"step"`
	Data        string       `json:"data,omitempty"`
	State       source.State `json:"state"`

	// Source names the checkpoint in errors: ReadCheckpoint sets it to the
	// file's path; a caller that parses bytes from elsewhere may set it.
	// It is not encoded.
	Source string `json:"-"`

	sum string
	// marks locates an edit the checksum refuses: 2 bytes, in hex, of the
	// SHA-256 of every value a reader of the file could change (epoch,
	// step, data, each counter of the state), in order, so that an error
	// names the field that no longer matches its mark.
	marks string
}

// checkpointJSON is the encoding of a Checkpoint (see its Format): its
// fields, then the sum and marks.
type checkpointJSON struct {
	Checkpoint
	Sum   string `json:"sum,omitempty"`
	Marks string `json:"marks,omitempty"`
}

// wire returns c in its encoding.
func (c *Checkpoint) wire() checkpointJSON { return checkpointJSON{*c, c.sum, c.marks} }

// ErrCheckpoint is wrapped by the errors of a checkpoint that cannot be
// read or that belongs to another pipeline.
var ErrCheckpoint = errors.New("pipeline: checkpoint")

// fingerprint returns the fingerprint of a state's shape (see Checkpoint).
func fingerprint(st source.State) string {
	sum := sha256.Sum256([]byte(st.Shape()))
	return hex.EncodeToString(sum[:8])
}

// Checkpoint returns the checkpoint of p at its position (Position): after
// the items of the current epoch that the loop ranging p's Epochs (or
// EpochsFrom) has received. The loop counts nothing: a run resumed
// from a checkpoint goes on counting from it, so a checkpoint taken in a
// resumed run is at the right place. Call it from the loop, between two
// items, on the pipe whose items the loop receives (for a training loop,
// the pipe of batches); it reads no data. It asks the readers for the
// identity of their data (a stat of their files, a HEAD request for a
// URL) with ctx. A checkpoint at the end of an epoch resumes with an empty
// pass and goes on with the next epoch.
//
// An item counts once the loop has received it: take the checkpoint after
// the step that used the last item. A loop that receives an item and then
// drops it (it noticed a signal first) checkpoints the items it used with
// CheckpointAt.
func (p *Pipe[T]) Checkpoint(ctx context.Context) (*Checkpoint, error) {
	epoch, step := p.Position()
	return p.CheckpointAt(ctx, epoch, step)
}

// CheckpointAt returns the checkpoint of p after step items of the given
// epoch, wherever p's own loop is: computed, nothing read. It starts a run
// at a chosen place (resume from it with EpochsFrom), or checkpoints a
// position the program knows better than p does (every rank of a
// data-parallel job at the step they reached together).
func (p *Pipe[T]) CheckpointAt(ctx context.Context, epoch int, step int64) (*Checkpoint, error) {
	st, err := p.StateAt(epoch, step)
	if err != nil {
		return nil, fmt.Errorf("%w: epoch %d step %d: %w", ErrCheckpoint, epoch, step, err)
	}
	ids, err := st.DataIdentity(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: epoch %d step %d: data: %w", ErrCheckpoint, epoch, step, err)
	}
	c := &Checkpoint{Version: checkpointVersion, Fingerprint: fingerprint(st), Epoch: epoch, Step: step, Data: dataDigest(ids), State: st}
	c.sum = c.checksum()
	_, c.marks = c.markList()
	return c, nil
}

// dataDigest returns the digest of the data's identities: the first 8
// bytes, in hex, of their SHA-256; "" for none.
func dataDigest(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// checksum returns the checksum of c's content: the first 16 bytes, in
// hex, of the SHA-256 of the JSON of every field but Sum. The JSON of a
// struct is canonical (fields in their order, no spaces), so a checkpoint
// reformatted by a tool keeps its checksum and one whose values changed
// does not.
func (c *Checkpoint) checksum() string {
	body, err := json.Marshal(struct {
		Version     int          `json:"version"`
		Fingerprint string       `json:"fingerprint"`
		Epoch       int          `json:"epoch"`
		Step        int64        `json:"step"`
		Data        string       `json:"data"`
		State       source.State `json:"state"`
	}{c.Version, c.Fingerprint, c.Epoch, c.Step, c.Data, c.State})
	if err != nil { // a State is strings and integers: it always encodes
		panic(err)
	}
	h := sha256.New()
	h.Write([]byte("tensorfeed checkpoint\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Encode returns the checkpoint as JSON, with the checksum of its content
// as it is now.
func (c *Checkpoint) Encode() ([]byte, error) {
	d := *c
	d.sum = d.checksum()
	_, d.marks = d.markList()
	return json.Marshal(d.wire())
}

// markList returns the path of every value marks covers, in order, and
// the marks of their values as they are now.
func (c *Checkpoint) markList() (paths []string, marks string) {
	var b strings.Builder
	mark := func(path, value string) {
		paths = append(paths, path)
		sum := sha256.Sum256([]byte(path + "=" + value))
		b.WriteString(hex.EncodeToString(sum[:2]))
	}
	mark("epoch", fmt.Sprint(c.Epoch))
	mark("step", fmt.Sprint(c.Step))
	mark("data", c.Data)
	var walk func(path string, st source.State)
	walk = func(path string, st source.State) {
		for i, v := range st.Pos {
			mark(fmt.Sprintf("%s.pos[%d]", path, i), fmt.Sprint(v))
		}
		for i, in := range st.In {
			walk(fmt.Sprintf("%s.in[%d]", path, i), in)
		}
	}
	walk("state", c.State)
	return paths, b.String()
}

// changed returns the one field whose mark no longer matches its value,
// or "" when the marks cannot tell (none, several, or another shape).
func (c *Checkpoint) changed() string {
	paths, now := c.markList()
	if len(now) != len(c.marks) {
		return ""
	}
	field := ""
	for i, p := range paths {
		if now[4*i:4*i+4] != c.marks[4*i:4*i+4] {
			if field != "" {
				return ""
			}
			field = p
		}
	}
	return field
}

// name is how errors name the checkpoint.
func (c *Checkpoint) name() string {
	if c.Source != "" {
		return c.Source
	}
	return fmt.Sprintf("(epoch %d step %d)", c.Epoch, c.Step)
}

// fail returns the error of the checkpoint's field: it wraps ErrCheckpoint
// and the errors in args, and names the checkpoint and the field.
func (c *Checkpoint) fail(field, format string, args ...any) error {
	return fmt.Errorf("%w %s: %s: "+format, append([]any{ErrCheckpoint, c.name(), field}, args...)...)
}

// ParseCheckpoint reads a checkpoint written by Encode and checks it: its
// version, that its counters are not negative, its fingerprint against its
// state and its checksum against its content (see Checkpoint).
func ParseCheckpoint(data []byte) (*Checkpoint, error) { return parseCheckpoint("", data) }

func parseCheckpoint(name string, data []byte) (*Checkpoint, error) {
	var w checkpointJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w %s: not a checkpoint: %w", ErrCheckpoint, name, err)
	}
	c := w.Checkpoint
	c.Source, c.sum, c.marks = name, w.Sum, w.Marks
	switch {
	case c.Version == 1:
		return nil, c.fail("version", "1 is the format without checksum and data digest, which this tensorfeed does not resume (it reads version %d): resume with the version that wrote it, or start the epoch again", checkpointVersion)
	case c.Version != checkpointVersion:
		return nil, c.fail("version", "%d, this tensorfeed reads version %d", c.Version, checkpointVersion)
	case c.Epoch < 0:
		return nil, c.fail("epoch", "negative (%d)", c.Epoch)
	case c.Step < 0:
		return nil, c.fail("step", "negative (%d)", c.Step)
	}
	if field, v := negative("state", c.State); field != "" {
		return nil, c.fail(field, "negative counter %d", v)
	}
	if f := fingerprint(c.State); f != c.Fingerprint {
		return nil, c.fail("fingerprint", "%s does not match the kinds of its state (%s): the file was changed", c.Fingerprint, f)
	}
	if c.sum == "" {
		return nil, c.fail("sum", "missing: the checksum of a version %d checkpoint was removed", checkpointVersion)
	}
	if sum := c.checksum(); sum != c.sum {
		if field := c.changed(); field != "" {
			return nil, c.fail(field, "changed after the checkpoint was written (sum: checksum mismatch, sum %s, content %s)", c.sum, sum)
		}
		return nil, c.fail("sum", "checksum mismatch: the version, epoch, step, data or state was changed after the checkpoint was written (sum %s, content %s)", c.sum, sum)
	}
	return &c, nil
}

// negative returns the path and value of the first negative counter of st,
// or "".
func negative(path string, st source.State) (string, int64) {
	for i, p := range st.Pos {
		if p < 0 {
			return fmt.Sprintf("%s.pos[%d]", path, i), p
		}
	}
	for i, in := range st.In {
		if f, v := negative(fmt.Sprintf("%s.in[%d]", path, i), in); f != "" {
			return f, v
		}
	}
	return "", 0
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

// ReadCheckpoint reads a checkpoint file written by WriteFile and checks
// it as ParseCheckpoint does; its errors, and those of EpochsFrom, name
// the file (Source).
func ReadCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCheckpoint(path, data)
}

// EpochsFrom is Epochs for a run that resumes from c: the first epoch is
// c.Epoch, whose pass yields exactly the items that followed step c.Step
// in the run that took c, and the next epochs are whole passes, up to
// epoch n-1 (n < 0: endless). Worker counts and prefetch sizes may differ
// from the run that took c; the shape of p may not: a checkpoint of
// another pipeline (other steps, other parameters, other data length) is
// an error wrapping ErrCheckpoint and source.ErrState that shows both
// shapes. So is a checkpoint of other data (c.Data is not the digest of
// what p's readers read now: another file, a file rewritten since; a
// caller who knows the data only moved, with new modification times, may
// clear c.Data to skip this check), an epoch c.Epoch >= n, and a position
// that does not fit the data (see Checkpoint). The checks that need the
// files run when the first pass opens them: that pass then yields the
// error, wrapping ErrCheckpoint, before any item.
func (p *Pipe[T]) EpochsFrom(ctx context.Context, c *Checkpoint, n int) (iter.Seq2[int, iter.Seq2[T, error]], error) {
	if n >= 0 && c.Epoch >= n {
		return nil, c.fail("epoch", "%d is not before the end of this run of %d epochs (epochs 0 to %d)", c.Epoch, n, n-1)
	}
	here, err := p.StateAt(c.Epoch, 0)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrCheckpoint, c.name(), err)
	}
	if f := fingerprint(here); f != c.Fingerprint {
		if d := shapeDiff(here, c.State); d != "" {
			return nil, fmt.Errorf("%w %s of another pipeline (%w): %s", ErrCheckpoint, c.name(), source.ErrState, d)
		}
		return nil, fmt.Errorf("%w %s of another pipeline (%w): other steps; it has %s, this pipeline has %s", ErrCheckpoint, c.name(), source.ErrState,
			c.State.Shape(), here.Shape())
	}
	if c.Data != "" {
		ids, err := here.DataIdentity(ctx)
		if err != nil {
			return nil, c.fail("data", "%w", err)
		}
		if d := dataDigest(ids); d != c.Data {
			now := strings.Join(ids, "; ")
			if now == "" {
				now = "no reader that describes its data"
			}
			return nil, c.fail("data", "this pipeline reads other data (digest %s: %s) than the checkpoint was taken of (digest %s): %w", d, now, c.Data, source.ErrState)
		}
	}
	if want, err := p.StateAt(c.Epoch, c.Step); err == nil {
		if err := c.agrees(want); err != nil {
			return nil, err
		}
	}
	first, err := p.Resume(c.State)
	if err != nil {
		var se *source.StateError
		if errors.As(err, &se) {
			return nil, c.fail(statePath(c.State, se), "%w", err)
		}
		return nil, c.fail("state", "%w", err)
	}
	p.pos.set(c.Epoch, c.Step) // a resumed feed knows where it is before its first item
	return p.epochs(ctx, c.Epoch, c.Step, &checked[T]{r: first, c: c}, n), nil
}

// agrees checks the step against the state: want is the state p computes
// after c.Step items of c.Epoch, and the first counter of every stage (a
// state with inputs: a batch's count, a take's, an enumerate's, a
// replayed stage's) is computed from the count alone, so it must be the
// same in c.State. Below a stage whose other counters differ (the samples
// a RollOver batch carried in, which the pass remembers) the states may
// differ and are not compared, nor are the positions of readers (they
// count samples skipped as bad, and a shard's depends on the world size).
func (c *Checkpoint) agrees(want source.State) error {
	var walk func(path string, got, want source.State) error
	walk = func(path string, got, want source.State) error {
		if got.Kind != want.Kind || len(got.Pos) != len(want.Pos) || len(got.In) != len(want.In) || len(got.In) == 0 {
			return nil
		}
		if len(got.Pos) > 0 && got.Pos[0] != want.Pos[0] {
			return c.fail("step", "%d does not match %s.pos[0] (%d): after step %d of epoch %d this pipeline's %s is at %d", c.Step, path, got.Pos[0], c.Step, c.Epoch, got.Kind, want.Pos[0])
		}
		if len(got.Pos) > 1 && !slices.Equal(got.Pos[1:], want.Pos[1:]) {
			return nil
		}
		for i := range got.In {
			if err := walk(fmt.Sprintf("%s.in[%d]", path, i), got.In[i], want.In[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return walk("state", c.State, want)
}

// statePath returns the path in st of the node an error of Resume is
// about, "state.in[0].pos[1]": the node whose counters are the error's
// (the same array, as Resume passes a checkpoint's states on by value), else
// the first of the same kind and counters.
func statePath(st source.State, se *source.StateError) string {
	var find func(path string, st source.State, same func(source.State) bool) string
	find = func(path string, st source.State, same func(source.State) bool) string {
		if same(st) {
			return path
		}
		for i, in := range st.In {
			if p := find(fmt.Sprintf("%s.in[%d]", path, i), in, same); p != "" {
				return p
			}
		}
		return ""
	}
	got := se.Got
	path := find("state", st, func(s source.State) bool {
		return s.Kind == got.Kind && len(s.Pos) > 0 && len(got.Pos) > 0 && &s.Pos[0] == &got.Pos[0] ||
			len(s.In) > 0 && len(got.In) > 0 && &s.In[0] == &got.In[0]
	})
	if path == "" {
		path = find("state", st, func(s source.State) bool {
			return s.Kind == got.Kind && slices.Equal(s.Pos, got.Pos) && len(s.In) == len(got.In)
		})
	}
	if path == "" {
		return "state"
	}
	if se.Field != "" {
		path += "." + se.Field
	}
	return path
}

// checked is the first pass of a resumed run: the errors of its readers'
// checks of the checkpoint's positions against the files (they wrap
// source.ErrState) wrap ErrCheckpoint and name the checkpoint.
type checked[T any] struct {
	r source.Reader[T]
	c *Checkpoint
}

func (k *checked[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for v, err := range k.r.All(ctx) {
			if err != nil && errors.Is(err, source.ErrState) && !errors.Is(err, ErrCheckpoint) {
				var se *source.StateError
				field := "state"
				if errors.As(err, &se) {
					field = statePath(k.c.State, se)
				}
				err = k.c.fail(field, "%w", err)
			}
			if !yield(v, err) {
				return
			}
		}
	}
}

// shapeDiff names the first step, inputs first, whose kind differs between
// the pipeline's state here and a checkpoint's state there, and the
// parameters that differ when the kinds say them (kind.Diff); "" for states
// of other structures (steps added or removed) or the same kinds.
func shapeDiff(here, there source.State) string {
	if !sameTree(here, there) {
		return ""
	}
	return kindDiff(here, there)
}

func sameTree(a, b source.State) bool {
	if len(a.In) != len(b.In) {
		return false
	}
	for i := range a.In {
		if !sameTree(a.In[i], b.In[i]) {
			return false
		}
	}
	return true
}

func kindDiff(here, there source.State) string {
	for i := range here.In {
		if d := kindDiff(here.In[i], there.In[i]); d != "" {
			return d
		}
	}
	if here.Kind == there.Kind {
		return ""
	}
	word, _, _ := strings.Cut(here.Kind, "(")
	if d := kind.Diff(here.Kind, there.Kind); d != "" {
		return fmt.Sprintf("step %s differs in %s", word, d)
	}
	return fmt.Sprintf("step %s here is %s in the checkpoint", here.Kind, there.Kind)
}
