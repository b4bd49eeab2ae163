package source

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
)

// State is where a pass of a reader stands: a small tree that mirrors the
// readers of a pipeline. Kind names the reader and the parameters that
// decide what it yields ("batch(128,keep)", "indexed(60000,shuffle=1)"),
// Pos holds its own counters and In the states of the readers it reads, in
// order. A State holds positions, never samples: a pipeline over a
// random-access dataset resumes from a few numbers.
//
// States are compared by kind when a reader resumes from one, so a state
// taken from another pipeline (other stages, other parameters, other data)
// is refused instead of resuming the wrong stream.
type State struct {
	Kind string  `json:"kind"`
	Pos  []int64 `json:"pos,omitempty"`
	In   []State `json:"in,omitempty"`

	// data is the reader that gave the state, when it can describe its
	// data (an Identifier): StateOf sets it, so that a checkpoint can ask
	// every reader of a pipeline what it reads (DataIdentity) without a
	// walk of its own over stages. It is not part of the encoding.
	data Identifier
}

// String returns the state as JSON, as a checkpoint holds it.
func (st State) String() string {
	b, err := json.Marshal(st)
	if err != nil { // strings and integers always encode
		return fmt.Sprintf("%s%v", st.Kind, st.Pos)
	}
	return string(b)
}

// Identifier is a reader that can describe the data it reads: the names,
// sizes and modification times (or ETags) of its files, digested or not.
// A checkpoint records a digest of the identities of every reader of the
// pipeline, and a resumed run compares it with the data it reads now, so
// a checkpoint of other files (another file of the same length, a file
// rewritten since) is refused instead of resuming the wrong stream. The
// format readers implement it; a reader of data held in memory need not.
//
// Identity may read metadata (a stat, a HEAD request); it reads no
// records. Readers that move with their data (a run resumed from another
// directory or bucket) leave directories out and keep base names. An
// empty identity says nothing and is not compared.
type Identifier interface {
	Identity(ctx context.Context) (string, error)
}

// DataIdentity returns the identities of the data read by the readers
// that gave st and its inputs (see Identifier), in the order of the tree,
// each as "kind: identity". It is empty for a state decoded from JSON or
// one whose readers hold their data in memory. Checkpoints call it when
// they are taken and when they are resumed.
func (st State) DataIdentity(ctx context.Context) ([]string, error) {
	var out []string
	var walk func(st State) error
	walk = func(st State) error {
		if st.data != nil {
			id, err := st.data.Identity(ctx)
			if err != nil {
				return fmt.Errorf("source: identity of the data of %s: %w", st.Kind, err)
			}
			if id != "" {
				out = append(out, st.Kind+": "+id)
			}
		}
		for _, in := range st.In {
			if err := walk(in); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(st)
}

// Resumable is a reader that can say where a pass stands and start a pass
// there. Every reader and stage the library ships implements it; a custom
// stage takes part by implementing it too (see the package example).
//
// Positions are counted at the consumer: n is how many samples of the
// pass the consumer has received. What a stage read ahead (a prefetch
// buffer, samples a ParallelMap worker holds) is not part of the state, so
// the resumed stream starts right after the last sample the consumer got:
// nothing is lost or repeated, whatever the number of workers.
type Resumable[T any] interface {
	Reader[T]
	// StateAt returns the state of a pass of the given epoch after its
	// consumer has received the first n samples. It is computed, not
	// recorded: a reader over a random-access dataset answers without
	// reading anything. A reader that was returned by Resume answers for
	// the whole pass it continues, counting n from where it resumed.
	StateAt(epoch int, n int64) (State, error)
	// Resume returns a reader whose next pass continues the pass st was
	// taken from: run with the same epoch in its context (WithEpoch), it
	// yields exactly the samples that pass yielded after st. A state of
	// another kind is an error (see ErrState).
	Resume(st State) (Reader[T], error)
}

// ErrState is wrapped by the errors of Resume for a state that does not
// belong to the reader.
var ErrState = fmt.Errorf("state does not match the reader")

// StateError is the error of a state that does not match the reader it is
// given to, or whose counters do not fit the data (a position past the end
// of the epoch, an offset past the end of a file). It wraps ErrState.
type StateError struct {
	Want  string // what the reader is
	Got   State  // the state it was given
	Field string // the counter at fault in Got, "pos[1]", or "" for the state as a whole
	Why   string // what does not match
}

func (e *StateError) Error() string {
	where := ""
	if e.Field != "" {
		where = e.Field + ": "
	}
	return fmt.Sprintf("source: resume: state of %q given to %q: %s%s (a state from another pipeline, other parameters or other data, or a state changed by hand)", e.Got.Kind, e.Want, where, e.Why)
}

// Unwrap returns ErrState.
func (e *StateError) Unwrap() error { return ErrState }

// Check reports whether st is a state of a reader of the given kind with
// pos counters and in inputs; it returns a *StateError if not. Resume
// methods call it first.
func (st State) Check(kind string, pos, in int) error {
	switch {
	case st.Kind != kind:
		return &StateError{Want: kind, Got: st, Why: "other kind"}
	case len(st.Pos) != pos:
		return &StateError{Want: kind, Got: st, Why: fmt.Sprintf("%d counters, want %d", len(st.Pos), pos)}
	case len(st.In) != in:
		return &StateError{Want: kind, Got: st, Why: fmt.Sprintf("%d inputs, want %d", len(st.In), in)}
	}
	for i, p := range st.Pos {
		if p < 0 {
			return &StateError{Want: kind, Got: st, Field: fmt.Sprintf("pos[%d]", i), Why: fmt.Sprintf("negative counter %d", p)}
		}
	}
	return nil
}

// Shape returns the state's kinds as one line, positions left out:
// "batch(64,keep)<map<indexed(60000,shuffle=1)>>". Two states of the same
// pipeline have the same shape; a checkpoint's fingerprint is a hash of it.
func (st State) Shape() string {
	var b strings.Builder
	writeTree(&b, st, func(st State) { b.WriteString(st.Kind) })
	return b.String()
}

// writeTree writes node(st) for st and then, in <...>, for each of its
// inputs: "kind<kind,kind>" or "[3]<[7],[7]>".
func writeTree(b *strings.Builder, st State, node func(State)) {
	node(st)
	if len(st.In) == 0 {
		return
	}
	b.WriteByte('<')
	for i, in := range st.In {
		if i > 0 {
			b.WriteByte(',')
		}
		writeTree(b, in, node)
	}
	b.WriteByte('>')
}

// StateOf returns r's state after the consumer of a pass of epoch received
// n samples. A reader that is not Resumable gets a replay state: resuming
// from it runs the pass from its start and drops the first n samples, which
// is exact for a deterministic reader but reads what it drops. Stages ask
// their inputs for states through StateOf, which remembers the readers that
// are Identifiers in the states they give (see DataIdentity).
func StateOf[T any](r Reader[T], epoch int, n int64) (State, error) {
	if n < 0 {
		return State{}, fmt.Errorf("source: state after %d samples: negative count", n)
	}
	var st State
	if rr, ok := r.(Resumable[T]); ok {
		var err error
		if st, err = rr.StateAt(epoch, n); err != nil {
			return State{}, err
		}
	} else {
		st = State{Kind: replayKind(r), Pos: []int64{n}}
	}
	if id, ok := r.(Identifier); ok {
		st.data = id
	}
	return st, nil
}

// ResumeFrom returns a reader whose next pass continues the pass of r that
// st was taken from (see StateOf).
func ResumeFrom[T any](r Reader[T], st State) (Reader[T], error) {
	if rr, ok := r.(Resumable[T]); ok {
		return rr.Resume(st)
	}
	if err := st.Check(replayKind(r), 1, 0); err != nil {
		return nil, err
	}
	return Replay(r, st.Pos[0]), nil
}

// replayKind names a reader that is not Resumable by its Go type.
func replayKind[T any](r Reader[T]) string { return fmt.Sprintf("replay(%T)", r) }

// Replay returns a reader whose passes run a pass of r and drop its first n
// samples: the resume of a reader that cannot start part way. It is exact
// for any deterministic reader, and costs the reading of what it drops. Its
// states count from the start of r's pass, so a checkpoint taken after a
// replay continues to work.
func Replay[T any](r Reader[T], n int64) Reader[T] {
	if n < 0 {
		panic(fmt.Sprintf("source.Replay: negative count %d", n))
	}
	return &replay[T]{r: r, skip: n}
}

type replay[T any] struct {
	r    Reader[T]
	skip int64
}

func (p *replay[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		i := int64(0)
		for v, err := range p.r.All(ctx) {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			if i < p.skip {
				i++
				continue
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

func (p *replay[T]) StateAt(epoch int, n int64) (State, error) {
	return StateOf(p.r, epoch, p.skip+n)
}

func (p *replay[T]) Resume(st State) (Reader[T], error) { return ResumeFrom(p.r, st) }

// Follow returns the reader pass(up) as a Resumable reader of a stage that
// yields exactly one sample for each sample of up, in order (a map, a
// prefetch buffer, an ordered parallel map): its state after n samples is
// {kind, up's state after n}, and it resumes as pass(up resumed). Stages
// written as a function of their upstream reader become resumable with
// one call:
//
//	return source.Follow("scale", r, func(r source.Reader[In]) source.Reader[Out] { ... })
func Follow[In, Out any](kind string, up Reader[In], pass func(Reader[In]) Reader[Out]) Reader[Out] {
	return &follow[In, Out]{kind: kind, up: up, pass: pass, r: pass(up)}
}

type follow[In, Out any] struct {
	kind string
	up   Reader[In]
	pass func(Reader[In]) Reader[Out]
	r    Reader[Out]
}

func (f *follow[In, Out]) All(ctx context.Context) iter.Seq2[Out, error] { return f.r.All(ctx) }

func (f *follow[In, Out]) StateAt(epoch int, n int64) (State, error) {
	in, err := StateOf(f.up, epoch, n)
	if err != nil {
		return State{}, err
	}
	return State{Kind: f.kind, In: []State{in}}, nil
}

func (f *follow[In, Out]) Resume(st State) (Reader[Out], error) {
	if err := st.Check(f.kind, 0, 1); err != nil {
		return nil, err
	}
	up, err := ResumeFrom(f.up, st.In[0])
	if err != nil {
		return nil, err
	}
	return Follow(f.kind, up, f.pass), nil
}

// Replayed returns r as a Resumable reader of the given kind whose states
// are replay states: {kind, [n], inputs at 0}. Stages whose position cannot
// be computed from a count (a filter, a shuffle buffer) use it: their state
// is as small as any, and resuming replays the pass from its start. The
// inputs' states at position 0 (StateOf) make the kinds of the whole
// pipeline part of the state. A source with no input names In as T:
// Replayed[T, T](kind, r).
func Replayed[T, In any](kind string, r Reader[T], inputs ...Reader[In]) Reader[T] {
	starts := make([]func(epoch int) (State, error), len(inputs))
	for i, in := range inputs {
		starts[i] = func(epoch int) (State, error) { return StateOf(in, epoch, 0) }
	}
	return &replayed[T]{kind: kind, r: r, inputs: starts}
}

type replayed[T any] struct {
	kind   string
	r      Reader[T]
	inputs []func(epoch int) (State, error)
	skip   int64
}

func (p *replayed[T]) All(ctx context.Context) iter.Seq2[T, error] {
	if p.skip == 0 {
		return p.r.All(ctx)
	}
	return (&replay[T]{r: p.r, skip: p.skip}).All(ctx)
}

func (p *replayed[T]) StateAt(epoch int, n int64) (State, error) {
	st := State{Kind: p.kind, Pos: []int64{p.skip + n}}
	for _, in := range p.inputs {
		s, err := in(epoch)
		if err != nil {
			return State{}, err
		}
		st.In = append(st.In, s)
	}
	return st, nil
}

func (p *replayed[T]) Resume(st State) (Reader[T], error) {
	if err := st.Check(p.kind, 1, len(p.inputs)); err != nil {
		return nil, err
	}
	for i, in := range p.inputs {
		s, err := in(0)
		if err != nil {
			return nil, err
		}
		if got, want := st.In[i].Shape(), s.Shape(); got != want {
			return nil, &StateError{Want: p.kind, Got: st, Why: fmt.Sprintf("input %d is %s, want %s", i, got, want)}
		}
	}
	return &replayed[T]{kind: p.kind, r: p.r, inputs: p.inputs, skip: st.Pos[0]}, nil
}

// NotResumable returns r as a Resumable reader whose StateAt fails with an
// error that says why: a stage whose output order depends on timing (an
// unordered parallel map) has no position to resume from exactly.
func NotResumable[T any](kind string, r Reader[T], why string) Reader[T] {
	return &notResumable[T]{Reader: r, kind: kind, why: why}
}

type notResumable[T any] struct {
	Reader[T]
	kind, why string
}

func (r *notResumable[T]) StateAt(int, int64) (State, error) {
	return State{}, fmt.Errorf("source: %s cannot be resumed exactly: %s", r.kind, r.why)
}

func (r *notResumable[T]) Resume(State) (Reader[T], error) {
	return nil, fmt.Errorf("source: %s cannot be resumed exactly: %s", r.kind, r.why)
}
