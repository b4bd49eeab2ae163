// Package skipcount counts the bad records of a pass for a
// source.SkipPolicy: the counter every reader that takes a policy drives
// (Good, Bad, End). source.SkipPolicy is defined on Policy, so a reader of
// this module reaches its counter with a conversion:
//
//	count := (*skipcount.Policy)(cfg.bad).Pass(total, logger)
//
// Users see the policy (source.SkipBad, Skipped, Seen), never the counter.
package skipcount

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
)

// ErrTooManyBad is source.ErrTooManyBad (documented there).
var ErrTooManyBad = fmt.Errorf("too many bad records: %w", tensorfeed.ErrBadData)

// Policy is the state of a source.SkipPolicy: the bound and the counts
// over all passes and all readers that share it. A nil *Policy is the
// default policy, which skips nothing.
type Policy struct {
	maxFraction float64
	onSkip      func(error)
	skipped     atomic.Int64
	seen        atomic.Int64
}

// New returns a policy that skips bad records while they are at most
// maxFraction of the records of a pass (source.SkipBad checks the range).
func New(maxFraction float64) *Policy { return &Policy{maxFraction: maxFraction} }

// SetOnSkip makes the policy call f with the error of every record it
// skips (source.OnSkip).
func (p *Policy) SetOnSkip(f func(error)) { p.onSkip = f }

// Skipped returns how many records the policy has skipped, over all
// passes and all readers that share it (0 for nil).
func (p *Policy) Skipped() int64 {
	if p == nil {
		return 0
	}
	return p.skipped.Load()
}

// Seen returns how many records, good and bad, the readers that use the
// policy have counted (0 for nil).
func (p *Policy) Seen() int64 {
	if p == nil {
		return 0
	}
	return p.seen.Load()
}

// Pass starts the count of one pass of a reader. total is the number of
// records the pass holds when the reader knows it, or -1. logger receives a
// warning per skipped record; nil means no logging. A nil policy gives a
// counter that fails at the first bad record.
func (p *Policy) Pass(total int64, logger *zap.Logger) *Counter {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Counter{p: p, total: total, logger: logger}
}

// PassFrom starts the count of a pass that resumes its epoch's pass after
// seen of its records (good and bad), skipped of them bad: the counter
// starts from those counts, so the policy's fraction is judged over the
// whole pass (the records before the resume point and the tail read now),
// as it would have been had the pass not stopped. total, logger and a nil
// policy are as for [Policy.Pass]. The earlier records are not added to
// the policy's [Policy.Skipped] and [Policy.Seen], which count what
// the readers of this process read. Counts that cannot be (negative, or
// skipped above seen) are a programmer error: PassFrom panics.
func (p *Policy) PassFrom(total, seen, skipped int64, logger *zap.Logger) *Counter {
	if seen < 0 || skipped < 0 || skipped > seen {
		panic(fmt.Sprintf("skipcount: PassFrom(%d, %d, %d): want 0 <= skipped <= seen", total, seen, skipped))
	}
	c := p.Pass(total, logger)
	c.seen, c.skipped = seen, skipped
	return c
}

// Counter counts the good and bad records of one pass for a Policy. It is used by one goroutine, the one that reads the pass.
type Counter struct {
	p       *Policy
	total   int64
	logger  *zap.Logger
	seen    int64
	skipped int64
}

// Good counts a record that was read without error.
func (c *Counter) Good() {
	c.seen++
	if c.p != nil {
		c.p.seen.Add(1)
	}
}

// Bad counts a bad record whose error is err (a positioned error that wraps
// tensorfeed.ErrBadData). It returns nil when the record is to be skipped,
// or the error that must end the pass: err itself under the default policy,
// or an error wrapping ErrTooManyBad and err once the bound is passed.
func (c *Counter) Bad(err error) error {
	c.seen++
	if c.p == nil || c.p.maxFraction == 0 {
		return err
	}
	c.p.seen.Add(1)
	c.skipped++
	if c.over(false) {
		return c.tooMany(err)
	}
	c.p.skipped.Add(1)
	if c.p.onSkip != nil {
		c.p.onSkip(err)
	}
	c.logger.Warn("skipped a bad record", zap.Error(err),
		zap.Int64("skipped", c.skipped), zap.Int64("seen", c.seen))
	return nil
}

// End checks the bound at the end of a pass: it returns an error wrapping
// ErrTooManyBad when the pass skipped more than its share, else nil.
func (c *Counter) End() error {
	if c.p == nil || c.skipped == 0 || !c.over(true) {
		return nil
	}
	return c.tooMany(nil)
}

// Skipped returns how many records this pass skipped so far (with
// [Policy.PassFrom], those before the resume point counted in).
func (c *Counter) Skipped() int64 { return c.skipped }

// Seen returns how many records, good and bad, this pass counted so far
// (with [Policy.PassFrom], those before the resume point counted in): with
// Skipped, what a resumed pass gives PassFrom.
func (c *Counter) Seen() int64 { return c.seen }

func (c *Counter) over(end bool) bool {
	f := c.p.maxFraction
	if f >= 1 {
		return false
	}
	if c.total >= 0 {
		return float64(c.skipped) > f*float64(c.total)
	}
	if !end && float64(c.seen) < math.Ceil(1/f) {
		return false
	}
	return float64(c.skipped) > f*float64(c.seen)
}

func (c *Counter) tooMany(last error) error {
	of := c.seen
	if c.total >= 0 {
		of = c.total
	}
	err := fmt.Errorf("%w: %d of %d records bad, more than the allowed fraction %g",
		ErrTooManyBad, c.skipped, of, c.p.maxFraction)
	if last != nil {
		err = errors.Join(err, last)
	}
	return err
}
