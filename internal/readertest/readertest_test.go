package readertest_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/readertest"
	"github.com/tensorfeed/tensorfeed/source"
)

// recorder is a testing.TB whose Fatal records the failure and ends the
// calling goroutine, as testing.T's does.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// check runs f against a recorder on a goroutine of its own and returns
// the failure it recorded ("" when it passed).
func check(t *testing.T, f func(tb testing.TB)) string {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(rec)
	}()
	<-done
	return rec.failed
}

// ignoresCancel yields n samples and never looks at its context.
func ignoresCancel(n int) source.Reader[int] {
	return source.Func[int](func(context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := range n {
				if !yield(i, nil) {
					return
				}
			}
		}
	})
}

// failsTwice yields one sample, then the same error twice.
func failsTwice(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		if !yield(0, nil) {
			return
		}
		if !yield(0, ctx.Err()) {
			return
		}
		yield(0, ctx.Err())
	}
}

func TestCancelAfter(t *testing.T) {
	ok := check(t, func(tb testing.TB) {
		if got := readertest.CancelAfter(tb, source.Slice(make([]int, 1000)), 10); len(got) < 10 {
			t.Errorf("CancelAfter returned %d samples, want at least 10", len(got))
		}
	})
	if ok != "" {
		t.Errorf("a reader that honours cancellation failed: %s", ok)
	}
	if msg := check(t, func(tb testing.TB) { readertest.CancelAfter(tb, ignoresCancel(20), 5) }); msg == "" {
		t.Error("a reader that ignores cancellation passed")
	}
	if msg := check(t, func(tb testing.TB) { readertest.CancelAfter(tb, source.Func[int](failsTwice), 1) }); msg == "" {
		t.Error("a reader that yields its error twice passed")
	}
}

func TestBreakAfter(t *testing.T) {
	var got []int
	if msg := check(t, func(tb testing.TB) { got = readertest.BreakAfter(tb, ignoresCancel(20), 5) }); msg != "" || len(got) != 5 {
		t.Errorf("BreakAfter = %v (%q), want 5 samples and no failure", got, msg)
	}
	bad := source.Func[int](func(context.Context) iter.Seq2[int, error] { return source.Fail[int](errors.New("broken")) })
	if msg := check(t, func(tb testing.TB) { readertest.BreakAfter(tb, bad, 5) }); msg != "broken" {
		t.Errorf("BreakAfter on a failing reader recorded %q, want the reader's error", msg)
	}
}
