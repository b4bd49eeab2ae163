package source

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
)

// Indexed is a random-access dataset: a length and the sample at any
// index. It is what makes resuming exact and tiny: with a [Permutation]
// the sample at position p of epoch e is Get(perm(seed, e).At(p)), so the
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

// MapIndexed returns the dataset whose sample i is f(d.Get(i)): a map that
// keeps random access, so it can sit under a shuffle by index. f is
// called once per Get, possibly from several goroutines at once; an error
// of f is the error of that Get.
func MapIndexed[In, Out any](d Indexed[In], f func(In) (Out, error)) Indexed[Out] {
	return mapIndexed[In, Out]{d: d, f: f}
}

type indexedConfig struct {
	shuffle bool
	seed    uint64
	bad     *SkipPolicy
}

// IndexedOption configures [ReadIndexed].
type IndexedOption = option.Option[indexedConfig]

// ShuffleIndex makes each pass yield the samples in the order of the
// [Permutation] of (Len(), seed, epoch), where epoch is the pass's epoch
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

// IndexedReader reads a random-access dataset in order or in a shuffled
// order by index. Make one with [ReadIndexed].
type IndexedReader[T any] struct {
	d      Indexed[T]
	cfg    indexedConfig
	from   int
	epochs *Epochs
}

// ReadIndexed returns a reader over d. A pass yields, for positions p =
// 0 .. d.Len()-1, the sample d.Get(p), or d.Get(perm.At(p)) with
// [ShuffleIndex]. The length is read when a pass starts.
func ReadIndexed[T any](d Indexed[T], opts ...IndexedOption) *IndexedReader[T] {
	r := &IndexedReader[T]{d: d, epochs: new(Epochs)}
	option.Apply(&r.cfg, opts)
	return r
}

// From returns a reader whose passes start at the given position of their
// epoch: they yield exactly the tail of the full pass of the same epoch,
// and Get is called only for that tail. This is how a run resumes: the
// state (seed, epoch, position) is enough, as the samples before the
// position are neither read nor computed. A position at or past the end
// gives empty passes. It panics when position is negative. The returned
// reader numbers its own passes.
func (r *IndexedReader[T]) From(position int) *IndexedReader[T] {
	if position < 0 {
		panic(fmt.Sprintf("source: IndexedReader.From(%d): negative position", position))
	}
	return &IndexedReader[T]{d: r.d, cfg: r.cfg, from: position, epochs: new(Epochs)}
}

// Order returns the permutation a pass of the given epoch follows: the
// sample at position p is d.Get(perm.At(p)). Without [ShuffleIndex] it is
// nil, and the sample at position p is d.Get(p).
func (r *IndexedReader[T]) Order(epoch int) *Permutation {
	if !r.cfg.shuffle {
		return nil
	}
	p := NewPermutation(r.d.Len(), r.cfg.seed, epoch)
	return &p
}

// Skipped returns how many samples the reader's policy has skipped.
func (r *IndexedReader[T]) Skipped() int64 { return r.cfg.bad.Skipped() }

var _ SkipCounted = (*IndexedReader[int])(nil)

// All starts a pass over the epoch of ctx (see [Epochs.Start]).
func (r *IndexedReader[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, epoch := r.epochs.Start(ctx)
		n := r.d.Len()
		var perm Permutation
		if r.cfg.shuffle {
			perm = NewPermutation(n, r.cfg.seed, epoch)
		}
		var count *SkipCounter
		if r.cfg.bad != nil {
			count = r.cfg.bad.Pass(int64(max(n-r.from, 0)), tensorfeed.Logger(ctx))
		}
		done := ctx.Done()
		var zero T
		for p := r.from; p < n; p++ {
			if poll(done, p-r.from) {
				yield(zero, ctx.Err())
				return
			}
			i := p
			if r.cfg.shuffle {
				i = perm.At(p)
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
