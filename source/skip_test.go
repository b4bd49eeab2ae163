package source_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
)

var errRecord = fmt.Errorf("file f: record 3: %w", tensorfeed.ErrBadData)

func TestSkipPolicyNilFailsAtFirstBad(t *testing.T) {
	var p *source.SkipPolicy
	c := (*skipcount.Policy)(p).Pass(-1, nil)
	c.Good()
	if err := c.Bad(errRecord); err != errRecord {
		t.Fatalf("Bad = %v, want the record's own error", err)
	}
	if p.Skipped() != 0 || c.End() != nil {
		t.Fatal("a nil policy skips nothing")
	}
}

func TestSkipPolicyKnownTotal(t *testing.T) {
	p := source.SkipBad(0.02) // 2 of 100
	c := (*skipcount.Policy)(p).Pass(100, nil)
	for i := 0; i < 2; i++ {
		if err := c.Bad(errRecord); err != nil {
			t.Fatalf("bad record %d: %v, want skipped", i, err)
		}
	}
	err := c.Bad(errRecord)
	if !errors.Is(err, source.ErrTooManyBad) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.Is(err, errRecord) {
		t.Fatalf("third bad record: %v, want ErrTooManyBad joined with the record's error", err)
	}
	if p.Skipped() != 2 {
		t.Fatalf("Skipped = %d, want 2", p.Skipped())
	}
}

func TestSkipPolicyStreaming(t *testing.T) {
	p := source.SkipBad(0.1) // window of 10 records
	c := (*skipcount.Policy)(p).Pass(-1, nil)
	// Two bad records first: within the first 10 records nothing fails yet.
	for i := 0; i < 2; i++ {
		if err := c.Bad(errRecord); err != nil {
			t.Fatalf("early bad record: %v", err)
		}
	}
	for i := 0; i < 7; i++ {
		c.Good()
	}
	// The 10th record: 3 of 10 bad > 0.1.
	if err := c.Bad(errRecord); !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("10th record: %v, want ErrTooManyBad", err)
	}

	// A short pass is judged at its end.
	c = (*skipcount.Policy)(p).Pass(-1, nil)
	c.Good()
	if err := c.Bad(errRecord); err != nil {
		t.Fatal(err)
	}
	if err := c.End(); !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("End = %v, want ErrTooManyBad (1 of 2 bad)", err)
	}

	// Under the bound the pass ends cleanly.
	c = (*skipcount.Policy)(p).Pass(-1, nil)
	for i := 0; i < 20; i++ {
		c.Good()
	}
	if err := c.Bad(errRecord); err != nil || c.End() != nil {
		t.Fatalf("1 of 21 bad: %v / %v", err, c.End())
	}
}

func TestSkipBadRejectsBadFraction(t *testing.T) {
	for _, f := range []float64{-0.1, 1.5} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SkipBad(%v) did not panic", f)
				}
			}()
			source.SkipBad(f)
		}()
	}
}

func ExampleSkipBad() {
	skip := source.SkipBad(0.01) // at most 1% of a pass may be bad
	ids := make([]int, 1000)
	for i := range ids {
		ids[i] = i
	}
	parsed := source.MapIndexed(source.IndexSlice(ids), func(i int) (int, error) {
		if i%200 == 7 {
			return 0, fmt.Errorf("record %d: %w", i, tensorfeed.ErrBadData)
		}
		return i, nil
	})
	n, err := source.Count(context.Background(), source.ReadIndexed(parsed, source.SkipIndexed(skip)))
	fmt.Println("read", n, "skipped", skip.Skipped(), "of", skip.Seen(), "err:", err)
	// Output: read 995 skipped 5 of 1000 err: <nil>
}

func TestSkipPolicyOnSkip(t *testing.T) {
	var got []error
	p := source.SkipBad(1, source.OnSkip(func(err error) { got = append(got, err) }))
	c := (*skipcount.Policy)(p).Pass(-1, nil)
	c.Good()
	for range 2 {
		if err := c.Bad(errRecord); err != nil {
			t.Fatalf("SkipBad(1) must skip every bad record: %v", err)
		}
	}
	if err := c.End(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != errRecord {
		t.Fatalf("OnSkip saw %v, want the two record errors", got)
	}
}

// A resumed pass is judged over the whole pass: the records before the
// resume point, good and bad, count as if the pass had read them.
func TestSkipPolicyPassFrom(t *testing.T) {
	p := source.SkipBad(0.1)

	// 95 records before the resume, none bad: a tail of 5 records with 2
	// bad ones is 2 of 100, within the bound (alone it would be 2 of 5).
	c := (*skipcount.Policy)(p).PassFrom(-1, 95, 0, nil)
	for i := range 5 {
		if i < 2 {
			if err := c.Bad(errRecord); err != nil {
				t.Fatalf("bad record %d of the tail: %v", i, err)
			}
			continue
		}
		c.Good()
	}
	if err := c.End(); err != nil {
		t.Fatalf("2 of 100 bad: %v", err)
	}
	if c.Skipped() != 2 || p.Skipped() != 2 || p.Seen() != 5 {
		t.Fatalf("pass skipped %d, policy skipped %d of %d: want 2, 2 of 5 (the earlier records are the pass's, not the policy's)", c.Skipped(), p.Skipped(), p.Seen())
	}

	// 20 records before the resume, 2 of them bad: one more bad record is
	// 3 of 21, over the bound at once.
	c = (*skipcount.Policy)(p).PassFrom(-1, 20, 2, nil)
	if err := c.Bad(errRecord); !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("3 of 21 bad: %v, want ErrTooManyBad", err)
	}

	// A known total: the skips before the resume count against it.
	c = (*skipcount.Policy)(source.SkipBad(0.02)).PassFrom(100, 50, 2, nil)
	if err := c.Bad(errRecord); !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("3 of 100 bad under 0.02: %v, want ErrTooManyBad", err)
	}
	c = (*skipcount.Policy)(source.SkipBad(0.02)).PassFrom(100, 50, 1, nil)
	if err := c.Bad(errRecord); err != nil || c.End() != nil {
		t.Fatalf("2 of 100 bad under 0.02: %v", err)
	}

	// A nil policy still fails at the first bad record.
	var none *source.SkipPolicy
	if err := (*skipcount.Policy)(none).PassFrom(-1, 10, 0, nil).Bad(errRecord); err != errRecord {
		t.Fatalf("nil policy: %v", err)
	}
}

func TestSkipPolicyPassFromPanics(t *testing.T) {
	for _, c := range [][2]int64{{-1, 0}, {0, -1}, {3, 4}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("PassFrom(-1, %d, %d) did not panic", c[0], c[1])
				}
			}()
			(*skipcount.Policy)(source.SkipBad(0.5)).PassFrom(-1, c[0], c[1], nil)
		}()
	}
}
