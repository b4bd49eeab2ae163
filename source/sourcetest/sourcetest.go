// Package sourcetest checks that readers and stages keep the contract of
// source.Reader, for the people who write them. It is to tensorfeed what
// testing/fstest is to io/fs: call [TestReader] on a reader, or
// [TestStage] on a function that decorates one, from an ordinary test.
//
// # What is checked
//
//   - An error reaches the consumer exactly once, as the last item of the
//     pass, with the zero value, and the upstream pass has returned.
//   - A consumer that stops ranging (break) stops the pass, even over an
//     endless upstream; every upstream pass is closed.
//   - Cancelling the context ends the pass with exactly one error that is
//     context.Canceled, and nothing after it.
//   - No goroutine started by the pass is left running after it ends.
//   - The same epoch gives the same samples (determinism), unless the
//     reader is declared [Nondeterministic].
//   - A source.Resumable reader resumes exactly: for several k, the state
//     after k samples (also after a JSON round trip) resumed gives the
//     tail of the full pass from sample k, and the resumed reader's state
//     after one more sample resumes the tail from k+1.
//
// Like testing/fstest.TestFS, the checks return an error that says which
// rule broke, so they also run outside tests. The goroutine check compares the goroutines running before and after a
// pass, so do not call these functions from parallel tests.
package sourcetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
)

type config struct {
	nondeterministic bool
	samples          int
}

// Option changes what the checks expect.
type Option = option.Option[config]

// Nondeterministic skips the check that two passes of the same epoch yield
// the same samples, for readers whose order depends on scheduling
// (source.Concurrent over several readers, an unordered ParallelMap).
func Nondeterministic() Option { return option.New(func(c *config) { c.nondeterministic = true }) }

// Samples sets how many samples the upstream of [TestStage] yields in its
// finite passes (default 100).
func Samples(n int) Option { return option.New(func(c *config) { c.samples = n }) }

func newConfig(opts []Option) config {
	c := config{samples: 100}
	option.Apply(&c, opts)
	return c
}

// errUpstream is the error the upstream of [TestStage] fails with (a stage
// must pass it on, wrapped or not).
var errUpstream = errors.New("sourcetest: upstream failed")

// TestReader checks r against the contract (see the package doc) and
// returns an error describing the first broken rule, or nil. r must be
// finite; it may fail, in which case the error must come once, last. Like
// testing/fstest.TestFS, it returns an error rather than taking a
// *testing.T, so a test calls it as
//
//	if err := sourcetest.TestReader(r); err != nil {
//		t.Fatal(err)
//	}
func TestReader[T any](r source.Reader[T], opts ...Option) error {
	c := newConfig(opts)
	ctx := source.WithEpoch(context.Background(), 0)

	first, err, bad := pass(ctx, r)
	if bad != nil {
		return bad
	}
	if !c.nondeterministic {
		again, err2, bad := pass(ctx, r)
		if bad != nil {
			return bad
		}
		if !reflect.DeepEqual(first, again) || !sameError(err, err2) {
			return fmt.Errorf("two passes of epoch 0 differ: %d samples (error %v), then %d (error %v)",
				len(first), err, len(again), err2)
		}
	}
	if rr, ok := r.(source.Resumable[T]); ok && !c.nondeterministic {
		if bad := checkResume(ctx, rr, first, err); bad != nil {
			return bad
		}
	}
	for _, k := range []int{0, 1, len(first) / 2} {
		if k > len(first) {
			continue
		}
		var got []T
		if bad := noLeak(func() error {
			var err error
			got, err = breakAfter(ctx, r, k)
			return err
		}); bad != nil {
			return fmt.Errorf("break after %d samples: %w", k, bad)
		}
		if !c.nondeterministic && len(got) > 0 && !reflect.DeepEqual(got, first[:len(got)]) {
			return fmt.Errorf("break after %d samples: the samples before the break differ from a full pass", k)
		}
		if k < len(first) {
			if bad := noLeak(func() error { return cancelAfter(ctx, r, k, len(first), err) }); bad != nil {
				return fmt.Errorf("cancel after %d samples: %w", k, bad)
			}
		}
	}
	return nil
}

// checkResume checks that r resumes from its states after k samples of the
// pass that yielded first and ended with err.
func checkResume[T any](ctx context.Context, r source.Resumable[T], first []T, err error) error {
	n := len(first)
	for _, k := range []int{0, 1, n / 3, n / 2, n - 1, n} {
		if k < 0 || k > n {
			continue
		}
		st, serr := r.StateAt(0, int64(k))
		if serr != nil {
			return fmt.Errorf("state after %d samples: %w", k, serr)
		}
		js, jerr := json.Marshal(st)
		var back source.State
		var again []byte
		if jerr == nil {
			jerr = json.Unmarshal(js, &back)
		}
		if jerr == nil {
			// Compared by their encodings: a state also holds, unencoded,
			// the readers it came from (source.State.DataIdentity).
			again, jerr = json.Marshal(back)
		}
		if jerr != nil || string(again) != string(js) {
			return fmt.Errorf("state after %d samples does not survive JSON: %s (%v)", k, js, jerr)
		}
		var got []T
		var gotErr error
		if bad := noLeak(func() error {
			r2, rerr := r.Resume(back)
			if rerr != nil {
				return fmt.Errorf("resume from %s: %w", js, rerr)
			}
			var bad error
			got, gotErr, bad = pass(ctx, r2)
			if bad == nil && k < n {
				// The resumed reader's states go on from k: its state
				// after 1 more sample resumes the tail from k+1. (Its
				// form may differ from r's state at k+1: an offset
				// where r has a replay count, say.)
				st2, err2 := source.StateOf(r2, 0, 1)
				var r3 source.Reader[T]
				if err2 == nil {
					r3, err2 = r.Resume(st2)
				}
				if err2 != nil {
					return fmt.Errorf("after resuming at %d, the state after 1 more sample %+v: %w", k, st2, err2)
				}
				again, againErr, bad := pass(ctx, r3)
				if bad == nil && (!reflect.DeepEqual(again, first[k+1:]) && len(again)+len(first[k+1:]) > 0 || !sameError(againErr, err)) {
					bad = fmt.Errorf("after resuming at %d, the state after 1 more sample (%+v) resumes %d samples (error %v), want the last %d (error %v)",
						k, st2, len(again), againErr, n-k-1, err)
				}
				return bad
			}
			return bad
		}); bad != nil {
			return fmt.Errorf("resume after %d samples: %w", k, bad)
		}
		if len(got) != n-k || (n > k && !reflect.DeepEqual(got, first[k:])) || !sameError(gotErr, err) {
			return fmt.Errorf("resume after %d of %d samples: got %d samples (error %v), want the last %d of the full pass (error %v)",
				k, n, len(got), gotErr, n-k, err)
		}
	}
	return nil
}

// TestStage checks a stage, a function that decorates a reader, against the
// contract, and returns an error describing the first broken rule, or nil.
// The stage runs over an upstream that fails, over one that never ends
// (stopped by break and by cancellation) and over a finite one, checked
// with [TestReader]. input(i) makes the i-th upstream sample.
func TestStage[In, Out any](stage func(source.Reader[In]) source.Reader[Out], input func(i int) In, opts ...Option) error {
	c := newConfig(opts)
	ctx := source.WithEpoch(context.Background(), 0)

	up := &probe[In]{n: c.samples, failAt: c.samples / 2, make: input}
	if bad := noLeak(func() error {
		_, err, bad := pass(ctx, stage(up))
		if bad == nil && !errors.Is(err, errUpstream) {
			bad = fmt.Errorf("pass ended with %v, want the upstream's error", err)
		}
		return bad
	}); bad != nil {
		return fmt.Errorf("upstream error: %w", bad)
	}
	if bad := up.closed(); bad != nil {
		return fmt.Errorf("upstream error: %w", bad)
	}

	up = &probe[In]{n: -1, failAt: -1, make: input}
	if bad := noLeak(func() error { _, err := breakAfter(ctx, stage(up), 3); return err }); bad != nil {
		return fmt.Errorf("break over an endless upstream: %w", bad)
	}
	if bad := up.closed(); bad != nil {
		return fmt.Errorf("break over an endless upstream: %w", bad)
	}

	up = &probe[In]{n: -1, failAt: -1, make: input}
	if bad := noLeak(func() error { return cancelAfter(ctx, stage(up), 5, -1, nil) }); bad != nil {
		return fmt.Errorf("cancel over an endless upstream: %w", bad)
	}
	if bad := up.closed(); bad != nil {
		return fmt.Errorf("cancel over an endless upstream: %w", bad)
	}

	up = &probe[In]{n: c.samples, failAt: -1, make: input}
	if bad := TestReader(stage(up), opts...); bad != nil {
		return fmt.Errorf("finite upstream: %w", bad)
	}
	return nil
}

// FailAfter returns a reader that yields the first n samples of a pass of r
// and then err, once: an upstream to test how a stage passes errors on.
func FailAfter[T any](r source.Reader[T], n int, err error) source.Reader[T] {
	return source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			i := 0
			for v, e := range r.All(ctx) {
				if e == nil && i == n {
					break
				}
				if !yield(v, e) || e != nil {
					return
				}
				i++
			}
			var zero T
			yield(zero, err)
		}
	})
}

// BreakAfter ranges over one pass of r with a background context and breaks
// out of the loop after n samples. It fails the test at once on an error.
// It returns the samples taken: fewer than n when the pass ends first.
func BreakAfter[T any](t testing.TB, r source.Reader[T], n int) []T {
	t.Helper()
	got, err := breakAfter(context.Background(), r, n)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// CancelAfter ranges over one pass of r, cancels its context after the n-th
// sample and keeps ranging to the end of the pass. It fails the test when a
// sample comes after an error, or when the pass does not yield exactly one
// error that is context.Canceled: use it on endless readers.
func CancelAfter[T any](t testing.TB, r source.Reader[T], n int) {
	t.Helper()
	if err := cancelAfter(context.Background(), r, n, -1, nil); err != nil {
		t.Fatal(err)
	}
}

// Passes runs one pass of r per benchmark iteration, fails when a pass errs
// or yields other than perPass elements, and reports allocations and the
// cost per element as "ns/sample".
func Passes[T any](b *testing.B, r source.Reader[T], perPass int) {
	b.Helper()
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		n := 0
		for _, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != perPass {
			b.Fatalf("pass yielded %d samples, want %d", n, perPass)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass), "ns/sample")
}

// limit bounds every pass the checks run, so a reader that never ends or
// ignores break fails the test instead of hanging it.
const limit = 1_000_000

// pass runs one pass and returns its samples and its error; bad says how
// the pass broke the contract (an error not last, or not alone, or with a
// sample).
func pass[T any](ctx context.Context, r source.Reader[T]) (got []T, err, bad error) {
	var errs []error
	for v, e := range r.All(ctx) {
		if e != nil {
			errs = append(errs, e)
			var zero T
			if !reflect.DeepEqual(v, zero) {
				return nil, nil, fmt.Errorf("error %v came with a sample, want the zero value", e)
			}
			continue
		}
		if len(errs) > 0 {
			return nil, nil, fmt.Errorf("sample after the error %v", errs[0])
		}
		if got = append(got, v); len(got) > limit {
			return nil, nil, fmt.Errorf("pass yielded more than %d samples", limit)
		}
	}
	switch len(errs) {
	case 0:
		return got, nil, nil
	case 1:
		return got, errs[0], nil
	}
	return nil, nil, fmt.Errorf("pass yielded %d errors %v, want at most 1", len(errs), errs)
}

func breakAfter[T any](ctx context.Context, r source.Reader[T], n int) ([]T, error) {
	var got []T
	if n == 0 {
		for range r.All(ctx) {
			break
		}
		return got, nil
	}
	for v, err := range r.All(ctx) {
		if err != nil {
			return got, err
		}
		if got = append(got, v); len(got) == n {
			break
		}
	}
	return got, nil
}

// slack is how many samples a reader may yield after its context is
// cancelled: synchronous sources look at the context every few hundred
// samples, not at every one.
const slack = 4096

// cancelAfter cancels a pass after n samples. The pass must then end with
// exactly one context.Canceled and nothing after it, within slack samples;
// a finite reader (full samples, ending with fullErr; full < 0 for an
// endless one) may instead reach its natural end first, but must not end
// early without an error: that would lose samples silently.
func cancelAfter[T any](ctx context.Context, r source.Reader[T], n, full int, fullErr error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if n == 0 {
		cancel()
	}
	var errs []error
	got := 0
	for _, err := range r.All(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			return fmt.Errorf("sample after the error %v", errs[0])
		}
		if got++; got == n {
			cancel()
		}
		if got > n+slack {
			return fmt.Errorf("pass not stopped by cancel: %d samples after it", got-n)
		}
	}
	switch {
	case len(errs) > 1:
		return fmt.Errorf("errors = %v, want one context.Canceled", errs)
	case len(errs) == 1 && errors.Is(errs[0], context.Canceled):
		return nil
	case full >= 0 && got == full && sameError(firstOf(errs), fullErr):
		return nil // the pass reached its natural end before it looked at the context
	}
	return fmt.Errorf("pass ended with %d samples and errors %v, want one context.Canceled", got, errs)
}

func firstOf(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

// noLeak runs f and reports goroutines started during f that are still
// running a while after it returns.
func noLeak(f func() error) error {
	before := goleak.IgnoreCurrent()
	if err := f(); err != nil {
		return err
	}
	// Idle HTTP connections (a remote reader's client pool, and the server
	// side of an in-process test server) belong to their pools, not to the
	// pass: they outlive it by design.
	if err := goleak.Find(before,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*conn).serve")); err != nil {
		return fmt.Errorf("goroutines left running after the pass: %w", err)
	}
	return nil
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// probe is an upstream that counts its passes: n samples (-1: endless),
// failing with errUpstream before sample failAt (-1: never).
type probe[T any] struct {
	n, failAt        int
	make             func(int) T
	started, stopped atomic.Int64
}

func (p *probe[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		p.started.Add(1)
		defer p.stopped.Add(1)
		var zero T
		for i := 0; p.n < 0 || i < p.n; i++ {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			if i == p.failAt {
				yield(zero, fmt.Errorf("sample %d: %w", i, errUpstream))
				return
			}
			if !yield(p.make(i), nil) {
				return
			}
		}
	}
}

// closed reports an upstream that was run other than once, or whose pass
// had not returned when the stage's pass did.
func (p *probe[T]) closed() error {
	if s, e := p.started.Load(), p.stopped.Load(); s != 1 || e != s {
		return fmt.Errorf("upstream passes: started %d, returned %d; want 1, 1", s, e)
	}
	return nil
}
