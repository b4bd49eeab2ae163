// Package tfgomlx hands a tensorfeed feed to GoMLX: a Dataset is a
// GoMLX train.Dataset (Name, Reset, Yield) over a stream of tensorfeed
// batches, so a GoMLX train.Loop, Trainer.Eval or any GoMLX code that
// takes a train.Dataset trains on it.
//
//	tensors := sink.New(128, data, label)
//	feed := pipeline.Tensorize(pipeline.From(src), tensors, batch.Drop).Buffered(4)
//	ds, err := tfgomlx.New(ctx, feed, tensors.ProvideData(), tensors.ProvideLabel(), tfgomlx.Endless())
//	defer ds.Close()
//	_, err = train.NewLoop(trainer).RunSteps(ds, steps)
//
// # What is copied, and when
//
// Yield receives one tensorfeed batch, copies each chosen tensor into a
// new GoMLX tensor (tensors.FromFlatDataAndDimensions: one allocation and
// one copy per tensor, in host memory), and releases the tensorfeed batch
// (tensor.Batch.Release) before it returns, so the sink may fill that
// memory again while GoMLX trains on the copies. Ownership of the GoMLX
// tensors passes to the caller, as train.Dataset requires: the training
// loop finalizes them after the step. Nothing else is copied; the
// tensorfeed pipeline (prefetch included) keeps its own memory bounds.
//
// # Epochs and Reset
//
// Yield returns io.EOF at the end of each epoch, and keeps returning it
// until Reset. Reset ends the current pass, read to its end or not, and
// the next Yield starts the next epoch (source.WithEpoch: a shuffled feed
// takes a new order each epoch, as GoMLX's own in-memory dataset reshuffles
// on Reset). A Reset with no pass started since the last one does
// nothing, so the Reset that Trainer.Eval calls first does not skip an
// epoch. With Endless the epochs follow each other without io.EOF, for
// Loop.RunSteps, which treats io.EOF as an error.
//
// # Shapes
//
// The shapes come from the sink's schema (ProvideData, ProvideLabel),
// known before the first batch, and every batch is checked against them:
// a tensor of another element type or shape is an error, never a silent
// reshape. Yield returns the same spec (a *Spec) for every batch, so the
// Trainer compiles its graph once. A last batch shorter than the schema's
// batch size is dropped by default (counted in Stats.Dropped); KeepPartial
// yields it with its own batch size, which costs GoMLX one more
// compilation. To keep every sample at the schema's size, pad upstream
// with batch.Pad: the padding rows (repeats of real samples, counted in
// Stats.Padded) then reach the model like any other rows.
//
// # Resuming
//
// The feed's position is counted by the pipeline (pipeline.Pipe.Position),
// one step per batch Yield received, dropped ones included. Checkpoint
// returns the pipeline checkpoint of that position; ResumeFrom starts a
// Dataset from one, so a run saved at step k after GoMLX's own checkpoint
// of the same step continues with exactly the batches of a straight run.
// For that, Yield must be called by the loop that trains, one batch per
// step: do not put a GoMLX read-ahead (datasets.Parallel) in front of a
// Dataset (tensorfeed's Buffered prefetches without moving the position).
package tfgomlx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/train"

	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// ErrSchema is wrapped by the errors of a schema that cannot be handed to
// GoMLX (a name that is not in it, an element type GoMLX cannot take) and
// of a batch that does not match its schema.
var ErrSchema = errors.New("tfgomlx: schema")

// ErrClosed is returned by Yield after Close.
var ErrClosed = errors.New("tfgomlx: dataset closed")

// Spec is what Yield returns as GoMLX's spec: the descriptions of the
// inputs and labels, in the order Yield returns them. It is the same
// pointer for every batch of a Dataset, so a GoMLX Trainer, which keys its
// compiled graphs by spec, compiles once per shape.
type Spec struct {
	Inputs, Labels []tensor.Desc
}

// String lists the inputs and labels, e.g. "inputs [image float32[128
// 784]] labels [label int32[128]]".
func (s *Spec) String() string {
	return fmt.Sprintf("inputs %v labels %v", s.Inputs, s.Labels)
}

// Stats counts what a Dataset did.
type Stats struct {
	Batches int64 // batches yielded to GoMLX
	Dropped int64 // short last batches dropped (see KeepPartial)
	Samples int64 // rows yielded, padding included
	Padded  int64 // padding rows yielded (batch.Pad upstream)
	Epochs  int64 // passes started
}

type config struct {
	name        string
	inputs      []string
	labels      []string
	endless     bool
	keepPartial bool
	checkpoint  *pipeline.Checkpoint
}

// Option configures New.
type Option func(*config)

// Name sets the name GoMLX shows for the dataset (default: the feed's
// step name).
func Name(name string) Option { return func(c *config) { c.name = name } }

// Inputs chooses the tensors Yield returns as GoMLX's inputs, by name, in
// this order; the names are looked up among the data and the label
// tensors. Default: every data tensor, in the schema's order.
func Inputs(names ...string) Option {
	return func(c *config) { c.inputs = append([]string(nil), names...) }
}

// Labels chooses the tensors Yield returns as GoMLX's labels, by name, in
// this order; the names are looked up among the data and the label
// tensors. Default: every label tensor, in the schema's order.
func Labels(names ...string) Option {
	return func(c *config) { c.labels = append([]string(nil), names...) }
}

// Endless runs epoch after epoch without io.EOF between them, for
// Loop.RunSteps (which stops with an error at io.EOF). Reset still starts
// a new epoch.
func Endless() Option { return func(c *config) { c.endless = true } }

// KeepPartial yields a batch shorter than the schema's batch size (the
// last one of an epoch with batch.Keep upstream) with its own batch size
// instead of dropping it. GoMLX compiles its graph once more for that
// shape.
func KeepPartial() Option { return func(c *config) { c.keepPartial = true } }

// ResumeFrom starts the Dataset at the checkpoint c, taken by Checkpoint
// (or the feed's own Checkpoint) in an earlier run of the same pipeline:
// the first Yield returns the batch that followed c's step, and the epochs
// after c's go on as in the run that took it. A checkpoint of another
// pipeline or of other data is an error of New (pipeline.ErrCheckpoint).
func ResumeFrom(c *pipeline.Checkpoint) Option { return func(cfg *config) { cfg.checkpoint = c } }

// pick is where a chosen tensor is in a tensorfeed batch.
type pick struct {
	label bool // in Batch.Label, else in Batch.Data
	i     int
	desc  tensor.Desc
}

// Dataset is a tensorfeed feed as a GoMLX train.Dataset. Its methods are
// safe for concurrent use, but it yields one batch at a time.
type Dataset struct {
	name    string
	feed    *pipeline.Pipe[*tensor.Batch]
	spec    *Spec
	inputs  []pick
	labels  []pick
	full    int // the schema's batch size
	endless bool
	keep    bool

	ctx    context.Context
	mu     sync.Mutex
	epochs iter.Seq2[int, iter.Seq2[*tensor.Batch, error]]
	pullE  func() (int, iter.Seq2[*tensor.Batch, error], bool)
	stopE  func()
	next   func() (*tensor.Batch, error, bool)
	stop   func()
	epoch  int
	done   bool // the pass ended: io.EOF until Reset
	closed bool
	stats  Stats
}

var _ train.Dataset = (*Dataset)(nil)

// New returns the Dataset of feed, whose batches have the data and label
// tensors described by data and label (the sink's ProvideData and
// ProvideLabel). Passes run with ctx; cancelling it ends the pass, and
// Yield returns the pass's error, then, after a Reset, the context's
// error: never io.EOF, which GoMLX would take for the end of an epoch. A feed that is a *pipeline.Pipe is used
// as it is, so its Report and Stats count what the Dataset read; another
// reader is wrapped in pipeline.From. Call Close when done, to end the
// pass in progress and its goroutines.
func New(ctx context.Context, feed source.Reader[*tensor.Batch], data, label []tensor.Desc, opts ...Option) (*Dataset, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	p, ok := feed.(*pipeline.Pipe[*tensor.Batch])
	if !ok {
		p = pipeline.From(feed)
	}
	d := &Dataset{name: cfg.name, feed: p, endless: cfg.endless, keep: cfg.keepPartial, ctx: ctx}
	if d.name == "" {
		d.name = p.Stats().Last().Name
	}
	var err error
	if cfg.inputs == nil {
		cfg.inputs = names(data)
	}
	if cfg.labels == nil {
		cfg.labels = names(label)
	}
	if d.inputs, err = choose("input", cfg.inputs, data, label); err != nil {
		return nil, err
	}
	if d.labels, err = choose("label", cfg.labels, data, label); err != nil {
		return nil, err
	}
	d.spec = &Spec{Inputs: descs(d.inputs), Labels: descs(d.labels)}
	d.full = -1
	for _, pk := range append(append([]pick(nil), d.inputs...), d.labels...) {
		if len(pk.desc.Shape) == 0 {
			return nil, fmt.Errorf("%w: %s has no batch dimension", ErrSchema, pk.desc)
		}
		if d.full >= 0 && pk.desc.Shape[0] != d.full {
			return nil, fmt.Errorf("%w: %s has batch size %d, the others %d", ErrSchema, pk.desc, pk.desc.Shape[0], d.full)
		}
		d.full = pk.desc.Shape[0]
	}
	if d.full < 0 {
		return nil, fmt.Errorf("%w: no inputs and no labels", ErrSchema)
	}
	if cfg.checkpoint != nil {
		if d.epochs, err = p.EpochsFrom(ctx, cfg.checkpoint, -1); err != nil {
			return nil, err
		}
	} else {
		d.epochs = p.Epochs(ctx, -1)
	}
	return d, nil
}

func names(ds []tensor.Desc) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out
}

func descs(ps []pick) []tensor.Desc {
	out := make([]tensor.Desc, len(ps))
	for i, p := range ps {
		out[i] = p.desc
	}
	return out
}

// choose finds the named tensors among data and label.
func choose(role string, want []string, data, label []tensor.Desc) ([]pick, error) {
	out := make([]pick, 0, len(want))
	for _, name := range want {
		found := false
		for li, list := range [][]tensor.Desc{data, label} {
			for i, d := range list {
				if d.Name == name {
					if _, err := dtypeOf(d.DType); err != nil {
						return nil, fmt.Errorf("%s %q: %w", role, name, err)
					}
					out = append(out, pick{label: li == 1, i: i, desc: d})
					found = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: %s %q is not among the feed's tensors (%s)", ErrSchema, role, name,
				strings.Join(append(names(data), names(label)...), ", "))
		}
	}
	return out, nil
}

// Name implements train.Dataset.
func (d *Dataset) Name() string { return d.name }

// Spec returns the spec Yield returns with every batch.
func (d *Dataset) Spec() *Spec { return d.spec }

// Feed returns the pipe the Dataset reads: its Report says how long GoMLX
// waited for data.
func (d *Dataset) Feed() *pipeline.Pipe[*tensor.Batch] { return d.feed }

// Stats returns the Dataset's counters.
func (d *Dataset) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// Position returns the feed's position: the epoch and the batches of it
// Yield has received (pipeline.Pipe.Position).
func (d *Dataset) Position() (epoch int, step int64) { return d.feed.Position() }

// Checkpoint returns the feed's checkpoint at its position: after the
// batches Yield has returned (and dropped). Take it between two Yields,
// at the step GoMLX saves its own checkpoint.
func (d *Dataset) Checkpoint(ctx context.Context) (*pipeline.Checkpoint, error) {
	return d.feed.Checkpoint(ctx)
}

// Reset implements train.Dataset: it ends the pass in progress, if one
// started since the last Reset, and the next Yield starts the next epoch.
func (d *Dataset) Reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.endPass()
	d.done = false
}

// Close ends the pass in progress and its goroutines; Yield then returns
// ErrClosed. Close is idempotent.
func (d *Dataset) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.endPass()
	if d.stopE != nil {
		d.stopE()
		d.pullE, d.stopE = nil, nil
	}
	d.closed = true
	return nil
}

// endPass stops the pass in progress; the epochs' iterator stays where it
// is, so the next pass is the next epoch.
func (d *Dataset) endPass() {
	if d.stop != nil {
		d.stop()
		d.next, d.stop = nil, nil
	}
}

// startPass starts the next epoch's pass. It returns false when there is
// none: the context was cancelled.
func (d *Dataset) startPass() bool {
	if d.pullE == nil {
		d.pullE, d.stopE = iter.Pull2(d.epochs)
	}
	e, pass, ok := d.pullE()
	if !ok {
		return false
	}
	d.epoch = e
	d.stats.Epochs++
	d.next, d.stop = iter.Pull2(pass)
	return true
}

// Yield implements train.Dataset: the next batch's chosen tensors, copied
// into new GoMLX tensors, and the Dataset's *Spec. At the end of an epoch
// it returns io.EOF (itself, not wrapped: GoMLX compares it with ==) until
// Reset. An error of the feed is returned as it is (errors.Is and errors.As
// see the tensorfeed error, with its file and position), once; the pass
// has then ended and Yield returns io.EOF until Reset.
func (d *Dataset) Yield() (spec any, inputs, labels []*tensors.Tensor, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, nil, nil, ErrClosed
	}
	for {
		if d.done {
			return nil, nil, nil, io.EOF
		}
		if d.next == nil && !d.startPass() {
			// No next epoch: ctx was cancelled. Its error, not io.EOF,
			// which GoMLX would take for the end of an epoch.
			d.done = true
			return nil, nil, nil, fmt.Errorf("tfgomlx: %s: no next epoch: %w", d.name, context.Cause(d.ctx))
		}
		b, err, ok := d.next()
		if !ok {
			d.endPass()
			if !d.endless {
				d.done = true
			}
			continue
		}
		if err != nil {
			d.endPass()
			d.done = true
			return nil, nil, nil, err
		}
		inputs, labels, err = d.convert(b)
		b.Release() // the GoMLX tensors are copies
		if err != nil {
			d.endPass()
			d.done = true
			return nil, nil, nil, err
		}
		if inputs == nil && labels == nil {
			continue // a short batch, dropped
		}
		return d.spec, inputs, labels, nil
	}
}

// convert copies the chosen tensors of b into GoMLX tensors; it returns
// nil, nil, nil for a short batch that is dropped.
func (d *Dataset) convert(b *tensor.Batch) (inputs, labels []*tensors.Tensor, err error) {
	n := b.Len()
	if n != d.full {
		if n > d.full || !d.keep {
			if n > d.full {
				return nil, nil, fmt.Errorf("%w: epoch %d: a batch of %d rows, more than the schema's %d", ErrSchema, d.epoch, n, d.full)
			}
			d.stats.Dropped++
			return nil, nil, nil
		}
	}
	inputs, err = d.copyAll(b, d.inputs)
	if err != nil {
		return nil, nil, err
	}
	labels, err = d.copyAll(b, d.labels)
	if err != nil {
		return nil, nil, err
	}
	d.stats.Batches++
	d.stats.Samples += int64(n)
	d.stats.Padded += int64(b.Padded)
	return inputs, labels, nil
}

func (d *Dataset) copyAll(b *tensor.Batch, ps []pick) ([]*tensors.Tensor, error) {
	out := make([]*tensors.Tensor, len(ps))
	for i, p := range ps {
		list := b.Data
		if p.label {
			list = b.Label
		}
		if p.i >= len(list) {
			return nil, fmt.Errorf("%w: epoch %d: the batch has no tensor %q (%d tensors where the schema has more)", ErrSchema, d.epoch, p.desc.Name, len(list))
		}
		t, err := toGoMLX(list[p.i], p.desc)
		if err != nil {
			return nil, fmt.Errorf("epoch %d: %w", d.epoch, err)
		}
		out[i] = t
	}
	return out, nil
}
