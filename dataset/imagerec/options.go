package imagerec

import (
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
)

// Option configures Decode and Augment.
type Option = option.Option[config]

type config struct {
	threads int
	skipBad *source.SkipPolicy
}

// Threads sets the number of goroutines that decode (Decode) or augment
// (Augment); the default, 1, is the consumer's goroutine. The output, and
// what a bad-record policy skips, do not depend on it.
func Threads(n int) Option { return option.New(func(c *config) { c.threads = n }) }

// OnBad sets Decode's bad-record policy (source.SkipBad makes one; several
// readers may share it, its count then the sum of theirs). Without it, or
// with nil, the pass ends at the first bad record with its
// *tensorfeed.Error. With it, a record whose header, labels or image
// cannot be parsed or decoded (any error wrapping tensorfeed.ErrBadData,
// an image over decode.Options.MaxBytes included) is skipped, counted
// (source.SkipCounted) and logged at warn level through the pass's
// tensorfeed.Logger with its file, record index and byte offset, until
// the skipped records pass the policy's fraction. Errors of the records
// reader itself (the RecordIO framing, I/O) end the pass whatever the
// policy: the extent of such damage is unknown.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.skipBad = p }) }

// apply applies opts.
func apply(opts []Option) config {
	var c config
	option.Apply(&c, opts)
	return c
}
