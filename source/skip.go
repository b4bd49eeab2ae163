package source

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
)

// ErrTooManyBad is wrapped by the error that ends a pass when a reader with
// a [SkipPolicy] skipped more than its bound of bad records.
var ErrTooManyBad = skipcount.ErrTooManyBad

// SkipPolicy is a bad-record policy: it lets a reader skip records that
// cannot be parsed or decoded, up to a bound, instead of failing the pass at
// the first one. The default of every reader (a nil *SkipPolicy) skips
// nothing: the first bad record ends the pass with its positioned error.
//
// A skipped record is counted ([SkipPolicy.Skipped]) and logged with its
// error, which names the file and the position, through the reader's
// logger at warn level. The pass fails with an error wrapping
// [ErrTooManyBad] (and the last record's error) once the skipped records
// are more than maxFraction of the records:
//
//   - when the reader knows how many records a pass holds (an IDX file, a
//     RecordIO index), as soon as the skipped count passes
//     maxFraction x that total;
//   - otherwise once at least 1/maxFraction records were seen and the
//     skipped share of those passes maxFraction, and in any case at the
//     end of the pass.
//
// Unlike an unbounded ignore-errors mode, a corrupt shard therefore stops
// training instead of silently shrinking the data set. One SkipPolicy may be
// shared by several readers: its count is the sum of theirs.
type SkipPolicy skipcount.Policy

// OnSkip calls f with the positioned error of every record the policy skips,
// on the goroutine that reads the pass, before the reader goes on. A tool
// that lists every bad record of a file (tensorfeed check --all) uses it.
func OnSkip(f func(err error)) option.Option[SkipPolicy] {
	return option.New(func(p *SkipPolicy) { (*skipcount.Policy)(p).SetOnSkip(f) })
}

// SkipBad returns a policy that skips bad records while they are at most
// maxFraction (in [0, 1]) of the records of a pass. SkipBad(0) skips
// nothing; SkipBad(1) skips every bad record. It panics when maxFraction is
// outside [0, 1] or NaN: that is a programmer error.
func SkipBad(maxFraction float64, opts ...option.Option[SkipPolicy]) *SkipPolicy {
	if !(maxFraction >= 0 && maxFraction <= 1) {
		panic(fmt.Sprintf("source: SkipBad(%v): the fraction must be in [0, 1]", maxFraction))
	}
	p := (*SkipPolicy)(skipcount.New(maxFraction))
	option.Apply(p, opts)
	return p
}

// Skipped returns how many records the policy has skipped, over all passes
// and all readers that share it (0 for nil).
func (p *SkipPolicy) Skipped() int64 { return (*skipcount.Policy)(p).Skipped() }

// Seen returns how many records, good and bad, the readers that use the
// policy have counted (0 for nil).
func (p *SkipPolicy) Seen() int64 { return (*skipcount.Policy)(p).Seen() }

// SkipCounted is implemented by readers that take a [SkipPolicy], so that
// pipeline statistics can report how many records they skipped.
type SkipCounted interface {
	Skipped() int64
}
