package stage

import (
	"context"
	"errors"
	"fmt"
	"iter"

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

// ZipOption changes how a Zip treats readers of different lengths.
type ZipOption interface{ applyZip(*zipConfig) }

type zipConfig struct{ shortest bool }

type shortestOption struct{}

func (shortestOption) applyZip(c *zipConfig) { c.shortest = true }

// Shortest makes a Zip end its pass cleanly when any of its readers ends,
// instead of reporting ErrNotAligned: for pairing a finite reader with
// endless ones such as GAN noise (source.Uniform) or constant labels.
func Shortest() ZipOption { return shortestOption{} }

func zipOptions(opts []ZipOption) zipConfig {
	var c zipConfig
	for _, o := range opts {
		o.applyZip(&c)
	}
	return c
}

// Zip2 returns a reader that pairs the i-th samples of a pass of a and of b:
// PaddlePaddle's compose with check_alignment. Each pass of the zip runs
// one pass of each reader with the same context; the first reader is ranged
// over on the consumer's goroutine and the others are pulled in step with
// it (iter.Pull2), so Zip starts no goroutine of its own.
//
// By default the passes must have the same length: when one ends before or
// after the others, the zip yields an error wrapping ErrNotAligned that
// names the reader (0 for a, 1 for b, ...) and the number of samples zipped.
// With Shortest() the pass ends cleanly at the first reader that ends. An
// error from any reader is passed on once and ends the pass.
func Zip2[A, B any](a source.Reader[A], b source.Reader[B], opts ...ZipOption) source.Reader[Tuple2[A, B]] {
	cfg := zipOptions(opts)
	return source.Func[Tuple2[A, B]](func(ctx context.Context) iter.Seq2[Tuple2[A, B], error] {
		return func(yield func(Tuple2[A, B], error) bool) {
			nextB, stopB := iter.Pull2(b.All(ctx))
			defer stopB()
			i := 0
			for va, err := range a.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				t := Tuple2[A, B]{A: va}
				if err := pullZip(nextB, &t.B, 1, i, cfg); err != nil {
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
			if err := zipEnded(nextB, 1, i); err != nil {
				yieldErr(yield, err)
			}
		}
	})
}

// Zip3 is Zip2 for three readers.
func Zip3[A, B, C any](a source.Reader[A], b source.Reader[B], c source.Reader[C], opts ...ZipOption) source.Reader[Tuple3[A, B, C]] {
	cfg := zipOptions(opts)
	return source.Func[Tuple3[A, B, C]](func(ctx context.Context) iter.Seq2[Tuple3[A, B, C], error] {
		return func(yield func(Tuple3[A, B, C], error) bool) {
			nextB, stopB := iter.Pull2(b.All(ctx))
			defer stopB()
			nextC, stopC := iter.Pull2(c.All(ctx))
			defer stopC()
			i := 0
			for va, err := range a.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				t := Tuple3[A, B, C]{A: va}
				if err := pullZip(nextB, &t.B, 1, i, cfg); err != nil {
					zipFail(yield, err)
					return
				}
				if err := pullZip(nextC, &t.C, 2, i, cfg); err != nil {
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
			err := zipEnded(nextB, 1, i)
			if err == nil {
				err = zipEnded(nextC, 2, i)
			}
			if err != nil {
				yieldErr(yield, err)
			}
		}
	})
}

// Zip4 is Zip2 for four readers.
func Zip4[A, B, C, D any](a source.Reader[A], b source.Reader[B], c source.Reader[C], d source.Reader[D], opts ...ZipOption) source.Reader[Tuple4[A, B, C, D]] {
	cfg := zipOptions(opts)
	return source.Func[Tuple4[A, B, C, D]](func(ctx context.Context) iter.Seq2[Tuple4[A, B, C, D], error] {
		return func(yield func(Tuple4[A, B, C, D], error) bool) {
			nextB, stopB := iter.Pull2(b.All(ctx))
			defer stopB()
			nextC, stopC := iter.Pull2(c.All(ctx))
			defer stopC()
			nextD, stopD := iter.Pull2(d.All(ctx))
			defer stopD()
			i := 0
			for va, err := range a.All(ctx) {
				if err != nil {
					yieldErr(yield, err)
					return
				}
				t := Tuple4[A, B, C, D]{A: va}
				if err := pullZip(nextB, &t.B, 1, i, cfg); err != nil {
					zipFail(yield, err)
					return
				}
				if err := pullZip(nextC, &t.C, 2, i, cfg); err != nil {
					zipFail(yield, err)
					return
				}
				if err := pullZip(nextD, &t.D, 3, i, cfg); err != nil {
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
			err := zipEnded(nextB, 1, i)
			if err == nil {
				err = zipEnded(nextC, 2, i)
			}
			if err == nil {
				err = zipEnded(nextD, 3, i)
			}
			if err != nil {
				yieldErr(yield, err)
			}
		}
	})
}

// errZipShort ends a Shortest zip cleanly when a pulled reader ends.
var errZipShort = errors.New("stage: zip: reader ended")

// pullZip pulls the i-th sample of reader k (k >= 1) into dst. It returns
// the reader's error, errZipShort when the reader ended under Shortest, or
// an ErrNotAligned error when it ended under the default.
func pullZip[T any](next func() (T, error, bool), dst *T, k, i int, cfg zipConfig) error {
	v, err, ok := next()
	switch {
	case !ok && cfg.shortest:
		return errZipShort
	case !ok:
		return fmt.Errorf("stage.Zip: reader %d ended after %d samples, reader 0 has more: %w", k, i, ErrNotAligned)
	case err != nil:
		return err
	}
	*dst = v
	return nil
}

// zipEnded checks, after reader 0 ended with i samples, that reader k ended
// too.
func zipEnded[T any](next func() (T, error, bool), k, i int) error {
	_, err, ok := next()
	switch {
	case !ok:
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("stage.Zip: reader 0 ended after %d samples, reader %d has more: %w", i, k, ErrNotAligned)
}

// zipFail ends a zip's pass: cleanly for errZipShort, else with err.
func zipFail[T any](yield func(T, error) bool, err error) {
	if err != errZipShort {
		yieldErr(yield, err)
	}
}
