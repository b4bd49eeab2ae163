package stage

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
)

// ErrNotAligned is wrapped by the error a Zip yields when its readers have
// passes of different lengths. The message says which reader ended first
// and after how many samples.
var ErrNotAligned = errors.New("stage: zipped readers not aligned")

// Tuple2 is one sample of each of two zipped readers.
type Tuple2[A, B any] struct {
	A A
	B B
}

// Tuple3 is one sample of each of three zipped readers.
type Tuple3[A, B, C any] struct {
	A A
	B B
	C C
}

// Tuple4 is one sample of each of four zipped readers.
type Tuple4[A, B, C, D any] struct {
	A A
	B B
	C C
	D D
}

type zipConfig struct{ shortest bool }

// ZipOption changes how a Zip treats readers of different lengths.
type ZipOption = option.Option[zipConfig]

// Shortest makes a Zip end its pass cleanly when any of its readers ends,
// instead of reporting ErrNotAligned: for pairing a finite reader with
// endless ones such as GAN noise (source.Uniform) or constant labels.
func Shortest() ZipOption { return option.New(func(c *zipConfig) { c.shortest = true }) }

func zipOptions(opts []ZipOption) zipConfig {
	var c zipConfig
	option.Apply(&c, opts)
	return c
}

// Zip2 returns a reader that pairs the i-th samples of a pass of a and of b:
// PaddlePaddle's compose with check_alignment. Each pass of the zip runs
// one pass of each reader with the same context; the first reader is ranged
// over on the consumer's goroutine and the others are pulled in step with
// it (iter.Pull2), so Zip starts no goroutine of its own. To save
// coroutine switches the other readers are pulled in small chunks: they may
// read up to 31 samples ahead of the zip, and are stopped when its pass ends.
//
// By default the passes must have the same length: when one ends before or
// after the others, the zip yields an error wrapping ErrNotAligned that
// names the reader (0 for a, 1 for b, ...) and the number of samples zipped.
// With Shortest() the pass ends cleanly at the first reader that ends. An
// error from any reader is passed on once and ends the pass.
func Zip2[A, B any](a source.Reader[A], b source.Reader[B], opts ...ZipOption) source.Reader[Tuple2[A, B]] {
	cfg := zipOptions(opts)
	r := source.Func[Tuple2[A, B]](func(ctx context.Context) iter.Seq2[Tuple2[A, B], error] {
		return func(yield func(Tuple2[A, B], error) bool) {
			if as, ok := sliceOf(a); ok {
				if bs, ok := sliceOf(b); ok {
					zipSlices(ctx, as, bs, cfg, yield)
					return
				}
			}
			pullB := pullChunks(ctx, b)
			defer pullB.stop()
			i := 0
			for va, err := range a.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				t := Tuple2[A, B]{A: va}
				if err := pullZip(pullB, &t.B, 1, i, cfg); err != nil {
					zipFail(yield, err)
					return
				}
				if !yield(t, nil) {
					return
				}
				i++
			}
			if cfg.shortest {
				return
			}
			if err := zipEnded(pullB, 1, i); err != nil {
				yieldErr(yield, err)
			}
		}
	})
	return joinedReader(zipKind(opts), r, []func(int, int64) (source.State, error){at(a), at(b)},
		func(in []source.State) (source.Reader[Tuple2[A, B]], error) {
			var err error
			a2 := resumed(a, in[0], &err)
			b2 := resumed(b, in[1], &err)
			if err != nil {
				return nil, err
			}
			return Zip2(a2, b2, opts...), nil
		})
}

// Zip3 is Zip2 for three readers.
func Zip3[A, B, C any](a source.Reader[A], b source.Reader[B], c source.Reader[C], opts ...ZipOption) source.Reader[Tuple3[A, B, C]] {
	r := zipN(a, func(v A) Tuple3[A, B, C] { return Tuple3[A, B, C]{A: v} }, zipOptions(opts),
		zipPart(b, func(t *Tuple3[A, B, C]) *B { return &t.B }),
		zipPart(c, func(t *Tuple3[A, B, C]) *C { return &t.C }))
	return joinedReader(zipKind(opts), r, []func(int, int64) (source.State, error){at(a), at(b), at(c)},
		func(in []source.State) (source.Reader[Tuple3[A, B, C]], error) {
			var err error
			a2, b2, c2 := resumed(a, in[0], &err), resumed(b, in[1], &err), resumed(c, in[2], &err)
			if err != nil {
				return nil, err
			}
			return Zip3(a2, b2, c2, opts...), nil
		})
}

// Zip4 is Zip2 for four readers.
func Zip4[A, B, C, D any](a source.Reader[A], b source.Reader[B], c source.Reader[C], d source.Reader[D], opts ...ZipOption) source.Reader[Tuple4[A, B, C, D]] {
	r := zipN(a, func(v A) Tuple4[A, B, C, D] { return Tuple4[A, B, C, D]{A: v} }, zipOptions(opts),
		zipPart(b, func(t *Tuple4[A, B, C, D]) *B { return &t.B }),
		zipPart(c, func(t *Tuple4[A, B, C, D]) *C { return &t.C }),
		zipPart(d, func(t *Tuple4[A, B, C, D]) *D { return &t.D }))
	return joinedReader(zipKind(opts), r, []func(int, int64) (source.State, error){at(a), at(b), at(c), at(d)},
		func(in []source.State) (source.Reader[Tuple4[A, B, C, D]], error) {
			var err error
			a2, b2, c2, d2 := resumed(a, in[0], &err), resumed(b, in[1], &err), resumed(c, in[2], &err), resumed(d, in[3], &err)
			if err != nil {
				return nil, err
			}
			return Zip4(a2, b2, c2, d2, opts...), nil
		})
}

// zipReader is one of the readers after the first of a zip of tuples T,
// started for a pass: pull sets its field of the i-th tuple, ended checks
// that it ended with the first reader, stop ends its pull.
type zipReader[T any] struct {
	pull  func(t *T, i int, cfg zipConfig) error
	ended func(i int) error
	stop  func()
}

// zipPart returns how a pass starts pulling r, reader k of the zip, into
// the field of a tuple that field points at.
func zipPart[T, V any](r source.Reader[V], field func(*T) *V) func(ctx context.Context, k int) zipReader[T] {
	return func(ctx context.Context, k int) zipReader[T] {
		p := pullChunks(ctx, r)
		return zipReader[T]{
			pull:  func(t *T, i int, cfg zipConfig) error { return pullZip(p, field(t), k, i, cfg) },
			ended: func(i int) error { return zipEnded(p, k, i) },
			stop:  p.stop,
		}
	}
}

// zipN is the pass of Zip3 and Zip4: the tuples of first(a's sample) with
// the fields of the other readers pulled in step, as Zip2 pairs two.
func zipN[A, T any](a source.Reader[A], first func(A) T, cfg zipConfig, parts ...func(context.Context, int) zipReader[T]) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			rs := make([]zipReader[T], len(parts))
			for k, part := range parts {
				rs[k] = part(ctx, k+1)
				defer rs[k].stop()
			}
			i := 0
			var t T // one per pass: its address goes to the pulls
			for va, err := range a.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				t = first(va)
				for _, r := range rs {
					if err := r.pull(&t, i, cfg); err != nil {
						zipFail(yield, err)
						return
					}
				}
				if !yield(t, nil) {
					return
				}
				i++
			}
			if cfg.shortest {
				return
			}
			for _, r := range rs {
				if err := r.ended(i); err != nil {
					yieldErr(yield, err)
					return
				}
			}
		}
	})
}

// errZipShort ends a Shortest zip cleanly when a pulled reader ends.
var errZipShort = errors.New("stage: zip: reader ended")

// pullZip pulls the i-th sample of reader k (k >= 1) into dst. It returns
// the reader's error, errZipShort when the reader ended under Shortest, or
// an ErrNotAligned error when it ended under the default.
func pullZip[T any](next *chunkPuller[T], dst *T, k, i int, cfg zipConfig) error {
	if next.pos < len(next.chunk) { // the common case, small enough to inline
		*dst = next.chunk[next.pos]
		next.pos++
		return nil
	}
	return pullZipChunk(next, dst, k, i, cfg)
}

// pullZipChunk is pullZip when the current chunk is used up.
func pullZipChunk[T any](next *chunkPuller[T], dst *T, k, i int, cfg zipConfig) error {
	v, err, ok := next.get()
	switch {
	case !ok && cfg.shortest:
		return errZipShort
	case !ok:
		return notAligned(k, 0, i)
	case err != nil:
		return err
	}
	*dst = v
	return nil
}

// zipEnded checks, after reader 0 ended with i samples, that reader k ended
// too.
func zipEnded[T any](next *chunkPuller[T], k, i int) error {
	_, err, ok := next.get()
	switch {
	case !ok:
		return nil
	case err != nil:
		return err
	}
	return notAligned(0, k, i)
}

// zipFail ends a zip's pass: cleanly for errZipShort, else with err.
func zipFail[T any](yield func(T, error) bool, err error) {
	if err != errZipShort {
		yieldErr(yield, err)
	}
}

// zipChunk is the most samples a pulled reader reads ahead. A coroutine
// switch per sample would cost more than most stages; a chunk shares one
// switch among up to zipChunk samples.
const zipChunk = 128

// chunkPuller pulls the samples of a reader through iter.Pull2 in chunks of
// 1, 2, 4, ... up to zipChunk samples, so the first sample comes at once and
// a long pass costs one switch per zipChunk samples. The chunk's memory is
// reused: the coroutine refills it only when get has used it up.
type chunkPuller[T any] struct {
	next  func() ([]T, error, bool)
	stop  func()
	chunk []T
	pos   int
}

func pullChunks[T any](ctx context.Context, r source.Reader[T]) *chunkPuller[T] {
	if all, ok := sliceOf(r); ok {
		// A slice in memory is one chunk: no pass, no coroutine.
		return &chunkPuller[T]{chunk: all, stop: func() {}, next: func() ([]T, error, bool) { return nil, nil, false }}
	}
	chunks := func(yield func([]T, error) bool) {
		buf := make([]T, 0, zipChunk)
		size := 1
		for s, err := range r.All(ctx) {
			if err != nil {
				if len(buf) > 0 && !yield(buf, nil) {
					return
				}
				yield(nil, err)
				return
			}
			buf = append(buf, s)
			if len(buf) == size {
				if !yield(buf, nil) {
					return
				}
				buf = buf[:0]
				size = min(2*size, zipChunk)
			}
		}
		if len(buf) > 0 {
			yield(buf, nil)
		}
	}
	next, stop := iter.Pull2(chunks)
	return &chunkPuller[T]{next: next, stop: stop}
}

// get returns the next sample; ok is false when the reader has ended, and
// err is set when it failed.
func (p *chunkPuller[T]) get() (v T, err error, ok bool) {
	if p.pos == len(p.chunk) {
		chunk, err, ok := p.next()
		if !ok || err != nil {
			return v, err, ok
		}
		p.chunk, p.pos = chunk, 0
	}
	v = p.chunk[p.pos]
	p.pos++
	return v, nil, true
}

// zipSlices is the pass of Zip2 over two slices in memory: one index over
// both, as a hand-written loop does.
func zipSlices[A, B any](ctx context.Context, as []A, bs []B, cfg zipConfig, yield func(Tuple2[A, B], error) bool) {
	n := min(len(as), len(bs))
	done := ctx.Done()
	for i := range n {
		if i%256 == 0 && done != nil {
			select {
			case <-done:
				yieldErr(yield, ctx.Err())
				return
			default:
			}
		}
		if !yield(Tuple2[A, B]{A: as[i], B: bs[i]}, nil) {
			return
		}
	}
	switch {
	case cfg.shortest || len(as) == len(bs):
	case len(as) < len(bs):
		yieldErr(yield, notAligned(0, 1, n))
	default:
		yieldErr(yield, notAligned(1, 0, n))
	}
}

// notAligned is the error of a zip whose reader ended after n samples
// while reader longer has more.
func notAligned(ended, longer, n int) error {
	return fmt.Errorf("stage.Zip: reader %d ended after %d samples, reader %d has more: %w", ended, n, longer, ErrNotAligned)
}

// zipKind names a zip in states.
func zipKind(opts []ZipOption) string {
	if zipOptions(opts).shortest {
		return "zip(shortest)"
	}
	return "zip"
}

// resumed returns r resumed from st, or nil once *err is set; the zips
// resume their inputs with it and check the error once.
func resumed[T any](r source.Reader[T], st source.State, err *error) source.Reader[T] {
	if *err != nil {
		return nil
	}
	out, e := source.ResumeFrom(r, st)
	*err = e
	return out
}
