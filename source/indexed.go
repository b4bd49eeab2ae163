package source

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/internal/skiplog"
)

// Indexed is a random-access dataset: a length and the sample at any
// index. It is what makes resuming exact and tiny: with the permutation of
// [ShuffleIndex] the sample at position p of epoch e is
// Get(perm(seed, e).At(p)), so the
// whole state of a reader over it is (seed, epoch, position).
//
// Get is called once per sample, often from a tight loop, so it takes no
// context: an implementation is either in memory or does one bounded read
// (a ReadAt of one record), and the reader over it checks its context
// between samples. Get must be safe for concurrent use, and must return an
// error, never panic, for an index outside [0, Len()). A bad record is an
// error that wraps tensorfeed.ErrBadData and says where it is.
type Indexed[T any] interface {
	Len() int
	Get(i int) (T, error)
}

// ErrIndex is wrapped by the error of Get for an index outside [0, Len()).
var ErrIndex = errors.New("index out of range")

// IndexError returns the error Get returns for index i of a dataset of
// length n: it wraps [ErrIndex].
func IndexError(i, n int) error {
	return fmt.Errorf("%w: %d not in [0, %d)", ErrIndex, i, n)
}

type sliceIndexed[T any] []T

func (s sliceIndexed[T]) Len() int { return len(s) }

func (s sliceIndexed[T]) Get(i int) (T, error) {
	if uint(i) >= uint(len(s)) {
		var zero T
		return zero, IndexError(i, len(s))
	}
	return s[i], nil
}

// IndexSlice returns the elements of s as a random-access dataset. It
// keeps s, which must not change while passes run.
func IndexSlice[T any](s []T) Indexed[T] { return sliceIndexed[T](s) }

type mapIndexed[In, Out any] struct {
	d Indexed[In]
	f func(In) (Out, error)
}

func (m mapIndexed[In, Out]) Len() int { return m.d.Len() }

func (m mapIndexed[In, Out]) Get(i int) (Out, error) {
	v, err := m.d.Get(i)
	if err != nil {
		var zero Out
		return zero, err
	}
	return m.f(v)
}

// Identity returns the identity of the data of the dataset it maps when
// that is an Identifier, and "" otherwise: a map changes samples, not
// which data they come from, so a checkpoint of a mapped table still
// tells one file from another.
func (m mapIndexed[In, Out]) Identity(ctx context.Context) (string, error) {
	if id, ok := m.d.(Identifier); ok {
		return id.Identity(ctx)
	}
	return "", nil
}

// MapIndexed returns the dataset whose sample i is f(d.Get(i)): a map that
// keeps random access, so it can sit under a shuffle by index. f is
// called once per Get, possibly from several goroutines at once; an error
// of f is the error of that Get. The result is an [Identifier] that
// answers with the identity of d, if d is one.
func MapIndexed[In, Out any](d Indexed[In], f func(In) (Out, error)) Indexed[Out] {
	return mapIndexed[In, Out]{d: d, f: f}
}

type indexedConfig struct {
	shuffle     bool
	seed        uint64
	bad         *SkipPolicy
	parts, part int // shard: part of parts; parts 0 means no sharding
	even        Even
}

// IndexedOption configures [ReadIndexed].
type IndexedOption = option.Option[indexedConfig]

// ShuffleIndex makes each pass yield the samples in the order of a
// permutation of [0, Len()) determined by (Len(), seed, epoch), where epoch is the pass's epoch
// ([Epochs.Start]): a global shuffle, different every epoch, with no
// buffer and no state beyond the position.
func ShuffleIndex(seed uint64) IndexedOption {
	return option.New(func(c *indexedConfig) { c.shuffle, c.seed = true, seed })
}

// SkipIndexed applies a bad-record policy to the errors of Get that wrap
// tensorfeed.ErrBadData: such a sample is skipped, counted and logged
// while the policy allows it. Other errors always end the pass. The
// default (nil) ends the pass at the first error.
func SkipIndexed(p *SkipPolicy) IndexedOption {
	return option.New(func(c *indexedConfig) { c.bad = p })
}

// Even says how the parts of a sharded epoch are made the same length, so
// that every rank of a data-parallel job runs the same number of steps.
type Even int

const (
	// PadShards gives every part ceil(rest/count) samples: the parts that
	// are one short repeat samples from the start of the epoch's order, and
	// the reader counts them (Padded).
	PadShards Even = iota
	// DropShards gives every part floor(rest/count) samples: the last
	// rest%count samples of the epoch are read by no part.
	DropShards
)

// ShardIndex makes each pass yield the share of part index of count parts
// (rank index of a world of count): the positions p of the epoch's order
// with p ≡ index (mod count), counted from where the pass starts. The
// parts of an epoch are disjoint and, with PadShards, cover it; they
// depend only on (seed, epoch, count), never on worker counts, and with
// [ShuffleIndex] every part gets a random share.
//
// A state taken after every part has yielded n samples (the parts step
// together, as the ranks of a data-parallel job do) is the global position
// start+n*count, so a run stopped with one world size resumes with
// another: the new parts split the rest of the epoch, and over all parts
// no sample of the epoch is seen twice or skipped. It panics if count < 1
// or index is not in [0, count).
func ShardIndex(count, index int, even Even) IndexedOption {
	if count < 1 || index < 0 || index >= count {
		panic(fmt.Sprintf("source.ShardIndex: part %d of %d", index, count))
	}
	return option.New(func(c *indexedConfig) { c.parts, c.part, c.even = count, index, even })
}

// indexedReader reads a random-access dataset in order or in a shuffled
// order by index, whole or one shard of it. Make one with [ReadIndexed].
// It is Resumable: its state is the position reached in the epoch's order.
// The type is not exported: users reach its methods through ReadIndexed's
// result and name it, when they must, as a [Resumable].
type indexedReader[T any] struct {
	d       Indexed[T]
	cfg     indexedConfig
	from    int
	skipped int64 // samples skipped as bad before from, from a state
	epochs  *Epochs
	padded  atomic.Int64
	skips   *skiplog.Log
}

// ReadIndexed returns a reader over d. A pass yields, for positions p =
// 0 .. d.Len()-1, the sample d.Get(p), or d.Get(perm.At(p)) with
// [ShuffleIndex]. The length is read when a pass starts.
//
// The reader is [Resumable] and a [SkipCounted]; it also has From(position),
// which starts its passes at a position of their epoch (see below), and
// Padded(), the samples a [ShardIndex] reader with PadShards repeated.
func ReadIndexed[T any](d Indexed[T], opts ...IndexedOption) *indexedReader[T] {
	r := &indexedReader[T]{d: d, epochs: new(Epochs), skips: new(skiplog.Log)}
	option.Apply(&r.cfg, opts)
	return r
}

// From returns a reader whose passes start at the given position of their
// epoch: they yield exactly the tail of the full pass of the same epoch,
// and Get is called only for that tail (with [ShardIndex], the parts split
// that tail). This is how a run resumes: the state (seed, epoch, position)
// is enough, as the samples before the position are neither read nor
// computed. A position at or past the end gives empty passes. It panics
// when position is negative. The returned reader numbers its own passes.
func (r *indexedReader[T]) From(position int) *indexedReader[T] {
	if position < 0 {
		panic(fmt.Sprintf("source: ReadIndexed(...).From(%d): negative position", position))
	}
	return &indexedReader[T]{d: r.d, cfg: r.cfg, from: position, epochs: new(Epochs), skips: new(skiplog.Log)}
}

// Skipped returns how many samples the reader's policy has skipped.
func (r *indexedReader[T]) Skipped() int64 { return r.cfg.bad.Skipped() }

// Padded returns how many samples the passes of a [ShardIndex] reader with
// PadShards have repeated to make the parts even.
func (r *indexedReader[T]) Padded() int64 { return r.padded.Load() }

var _ SkipCounted = (*indexedReader[int])(nil)

// share returns how many samples a pass over positions [from, n) yields
// for this reader's part, and the stride between its positions.
func (r *indexedReader[T]) share(n int) (count, stride int) {
	return r.shareFrom(r.from, n), max(r.cfg.parts, 1)
}

// shareFrom returns how many samples of positions [from, n) are this
// reader's part.
func (r *indexedReader[T]) shareFrom(from, n int) int {
	rest := max(n-from, 0)
	w := r.cfg.parts
	switch {
	case w == 0:
		return rest
	case r.cfg.even == DropShards:
		return rest / w
	}
	return (rest + w - 1) / w
}

// All starts a pass over the epoch of ctx (see [Epochs.Start]).
func (r *indexedReader[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, epoch := r.epochs.Start(ctx)
		n := r.d.Len()
		var perm seeded.Permutation
		if r.cfg.shuffle {
			perm = seeded.NewPermutation(n, r.cfg.seed, epoch)
		}
		m, stride := r.share(n)
		var count *skipcount.Counter
		if r.cfg.bad != nil {
			// The policy's fraction is of the whole epoch's share, also
			// for a pass that resumes part way, and the samples skipped
			// before the resume point count against it.
			total := int64(r.shareFrom(0, n))
			before := total - int64(m)
			count = (*skipcount.Policy)(r.cfg.bad).PassFrom(total, before, min(r.skipped, before), tensorfeed.Logger(ctx))
			r.skips.Start(epoch)
		}
		done := ctx.Done()
		var zero T
		p := r.from + r.cfg.part
		for j := range m {
			if scope.Stopped(done, j) {
				yield(zero, ctx.Err())
				return
			}
			i := p
			if i >= n { // a padded part wraps to the start of the order
				i %= n
				r.padded.Add(1)
			}
			p += stride
			if r.cfg.shuffle {
				i = perm.At(i)
			}
			v, err := r.d.Get(i)
			if err != nil {
				if count == nil || !errors.Is(err, tensorfeed.ErrBadData) {
					yield(zero, err)
					return
				}
				if err := count.Bad(err); err != nil {
					yield(zero, err)
					return
				}
				r.skips.Skipped(epoch, int64(j))
				continue
			}
			if count != nil {
				count.Good()
			}
			if !yield(v, nil) {
				return
			}
		}
		if count != nil {
			if err := count.End(); err != nil {
				yield(zero, err)
			}
		}
	}
}

// kind names the reader in states: its length, order and shard.
func (r *indexedReader[T]) kind() string {
	k := fmt.Sprintf("indexed(%d", r.d.Len())
	if r.cfg.shuffle {
		k += fmt.Sprintf(",shuffle=%d", r.cfg.seed)
	}
	if r.cfg.parts > 0 && r.cfg.even == DropShards {
		k += ",drop"
	}
	return k + ")"
}

// StateAt returns {indexed(...), [position]}: the position in the epoch's
// order after the consumer received n samples. For a [ShardIndex] reader
// it is the global position start+n*count reached when every part has
// yielded n samples, which is what lets a run resume with another world
// size. Samples skipped as bad by the pass of that epoch are counted in;
// with a shard, a skip before n is an error, as the parts then no longer
// step together. When samples before the position were skipped as bad,
// the state is {indexed(...), [position, skipped]}, so that the resumed
// pass judges the policy's fraction over the whole epoch.
func (r *indexedReader[T]) StateAt(epoch int, n int64) (State, error) {
	j := r.skips.Position(epoch, 0, n) // the pass's own index after n yielded
	if r.cfg.parts > 0 {
		if j != n {
			return State{}, fmt.Errorf("source: state of shard %d of %d: %d bad samples skipped before sample %d, so the shards no longer step together", r.cfg.part, r.cfg.parts, j-n, n)
		}
		j *= int64(r.cfg.parts)
	}
	// A state after more samples than the pass has (a batch's upstream
	// after its short last batch, the parts of a padded shard) is the end
	// of the epoch: past it, every position gives the same empty pass, and
	// a position past the end in a state is refused as not of this data.
	pos := min(int64(r.from)+j, max(int64(r.d.Len()), int64(r.from)))
	if skipped := r.skipped + j - n; skipped > 0 && r.cfg.parts == 0 {
		return State{Kind: r.kind(), Pos: []int64{pos, skipped}}, nil
	}
	return State{Kind: r.kind(), Pos: []int64{pos}}, nil
}

// Resume returns r.From(position of st), with r's shard: see StateAt. The
// skipped count of a state counts against the policy of a reader without
// a shard (a shard judges its own share: the count is of the whole epoch).
func (r *indexedReader[T]) Resume(st State) (Reader[T], error) {
	var skipped int64
	if len(st.Pos) == 2 {
		if err := st.Check(r.kind(), 2, 0); err != nil {
			return nil, err
		}
		if skipped = st.Pos[1]; skipped > st.Pos[0] {
			return nil, &StateError{Want: r.kind(), Got: st, Why: fmt.Sprintf("%d skipped before position %d", skipped, st.Pos[0])}
		}
	} else if err := st.Check(r.kind(), 1, 0); err != nil {
		return nil, err
	}
	if n := int64(r.d.Len()); st.Pos[0] > n {
		return nil, &StateError{Want: r.kind(), Got: st, Field: "pos[0]", Why: fmt.Sprintf("position %d is past the end of the epoch (%d samples)", st.Pos[0], n)}
	}
	from := r.From(int(st.Pos[0]))
	if r.cfg.parts == 0 {
		from.skipped = skipped
	}
	return from, nil
}

// Identity returns the identity of the dataset's data when the dataset is
// an Identifier (a file-backed table), and "" for data in memory: see
// Identifier.
func (r *indexedReader[T]) Identity(ctx context.Context) (string, error) {
	if id, ok := r.d.(Identifier); ok {
		return id.Identity(ctx)
	}
	return "", nil
}
