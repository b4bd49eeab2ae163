package source

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
)

// ErrTooManyBad is wrapped by the error that ends a pass when a reader with
// a [SkipPolicy] skipped more than its bound of bad records.
var ErrTooManyBad = fmt.Errorf("too many bad records: %w", tensorfeed.ErrBadData)

// SkipPolicy is a bad-record policy: it lets a reader skip records that
// cannot be parsed or decoded, up to a bound, instead of failing the pass at
// the first one. The default of every reader (a nil *SkipPolicy) skips
// nothing: the first bad record ends the pass with its positioned error.
//
// A skipped record is counted ([SkipPolicy.Skipped]) and logged with its
// error, which names the file and the position, through the reader's
// logger at warn level. The pass fails with an error wrapping
// [ErrTooManyBad] (and the last record's error) once the skipped records
// are more than MaxFraction of the records:
//
//   - when the reader knows how many records a pass holds (an IDX file, a
//     RecordIO index), as soon as the skipped count passes
//     MaxFraction x that total;
//   - otherwise once at least 1/MaxFraction records were seen and the
//     skipped share of those passes MaxFraction, and in any case at the
//     end of the pass.
//
// Unlike an unbounded ignore-errors mode, a corrupt shard therefore stops
// training instead of silently shrinking the data set. One SkipPolicy may be
// shared by several readers: its count is the sum of theirs.
type SkipPolicy struct {
	maxFraction float64
	onSkip      func(error)
	skipped     atomic.Int64
	seen        atomic.Int64
}

// OnSkip calls f with the positioned error of every record the policy skips,
// on the goroutine that reads the pass, before the reader goes on. A tool
// that lists every bad record of a file (tensorfeed check --all) uses it.
func OnSkip(f func(err error)) option.Option[SkipPolicy] {
	return option.New(func(p *SkipPolicy) { p.onSkip = f })
}

// SkipBad returns a policy that skips bad records while they are at most
// maxFraction (in [0, 1]) of the records of a pass. SkipBad(0) skips
// nothing; SkipBad(1) skips every bad record. It panics when maxFraction is
// outside [0, 1] or NaN: that is a programmer error.
func SkipBad(maxFraction float64, opts ...option.Option[SkipPolicy]) *SkipPolicy {
	if !(maxFraction >= 0 && maxFraction <= 1) {
		panic(fmt.Sprintf("source: SkipBad(%v): the fraction must be in [0, 1]", maxFraction))
	}
	p := &SkipPolicy{maxFraction: maxFraction}
	option.Apply(p, opts)
	return p
}

// Skipped returns how many records the policy has skipped, over all passes
// and all readers that share it (0 for nil).
func (p *SkipPolicy) Skipped() int64 {
	if p == nil {
		return 0
	}
	return p.skipped.Load()
}

// Seen returns how many records, good and bad, the readers that use the
// policy have counted (0 for nil).
func (p *SkipPolicy) Seen() int64 {
	if p == nil {
		return 0
	}
	return p.seen.Load()
}

// Pass starts the count of one pass of a reader. total is the number of
// records the pass holds when the reader knows it, or -1. logger receives a
// warning per skipped record; nil means no logging. A nil policy gives a
// counter that fails at the first bad record.
func (p *SkipPolicy) Pass(total int64, logger *zap.Logger) *SkipCounter {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &SkipCounter{p: p, total: total, logger: logger}
}

// PassFrom starts the count of a pass that resumes its epoch's pass after
// seen of its records (good and bad), skipped of them bad: the counter
// starts from those counts, so the policy's fraction is judged over the
// whole pass (the records before the resume point and the tail read now),
// as it would have been had the pass not stopped. total, logger and a nil
// policy are as for [SkipPolicy.Pass]. The earlier records are not added to
// the policy's [SkipPolicy.Skipped] and [SkipPolicy.Seen], which count what
// the readers of this process read. Counts that cannot be (negative, or
// skipped above seen) are a programmer error: PassFrom panics.
func (p *SkipPolicy) PassFrom(total, seen, skipped int64, logger *zap.Logger) *SkipCounter {
	if seen < 0 || skipped < 0 || skipped > seen {
		panic(fmt.Sprintf("source: PassFrom(%d, %d, %d): want 0 <= skipped <= seen", total, seen, skipped))
	}
	c := p.Pass(total, logger)
	c.seen, c.skipped = seen, skipped
	return c
}

// SkipCounter counts the good and bad records of one pass for a
// [SkipPolicy]. It is used by one goroutine, the one that reads the pass.
type SkipCounter struct {
	p       *SkipPolicy
	total   int64
	logger  *zap.Logger
	seen    int64
	skipped int64
}

// Good counts a record that was read without error.
func (c *SkipCounter) Good() {
	c.seen++
	if c.p != nil {
		c.p.seen.Add(1)
	}
}

// Bad counts a bad record whose error is err (a positioned error that wraps
// tensorfeed.ErrBadData). It returns nil when the record is to be skipped,
// or the error that must end the pass: err itself under the default policy,
// or an error wrapping ErrTooManyBad and err once the bound is passed.
func (c *SkipCounter) Bad(err error) error {
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
func (c *SkipCounter) End() error {
	if c.p == nil || c.skipped == 0 || !c.over(true) {
		return nil
	}
	return c.tooMany(nil)
}

// Skipped returns how many records this pass skipped so far (with
// [SkipPolicy.PassFrom], those before the resume point counted in).
func (c *SkipCounter) Skipped() int64 { return c.skipped }

func (c *SkipCounter) over(end bool) bool {
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

func (c *SkipCounter) tooMany(last error) error {
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

// SkipCounted is implemented by readers that take a [SkipPolicy], so that
// pipeline statistics can report how many records they skipped.
type SkipCounted interface {
	Skipped() int64
}
