package format

import (
	"context"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// OnBad sets the bad-record policy of Open, which may be shared with other
// readers. Every file of the pass is read under the one policy, by one
// worker or several: its Skipped count is the sum over the files, and each
// file's pass fails with source.ErrTooManyBad once its bad records are more
// than the policy's fraction of its records.
//
// A bad record is one its format can step over, its error wrapping
// tensorfeed.ErrBadData: a TFRecord record whose data checksum fails, a
// WebDataset sample with a field twice (or lacking one named by
// webdataset.Fields), a csv line longer than the maximum. Each is logged
// with its position at warn level through the logger of the pass's context
// (tensorfeed.WithLogger). Whatever the policy, structural damage ends the
// pass: a truncated file, a broken RecordIO frame, a bad tar header, an IDX
// file shorter than its header says, a file no format recognises. A
// format whose [Format.Open] ignores the policy has no bad records of its
// own: its errors all end the pass. The default, a nil policy, fails the
// pass at the first bad record.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.bad = p }) }

// csvSkip reads the lines of the file at path, skipping those longer than
// maxLineBytes under p.
func csvSkip(path string, maxLineBytes int, p *source.SkipPolicy, sopts []storage.Option) source.Reader[Record] {
	return fileReader(path, sopts, func(ctx context.Context, f storage.File, yield func(Record, error) bool) {
		counter := (*skipcount.Policy)(p).Pass(-1, tensorfeed.Logger(ctx))
		if !yieldLines(ctx, lines(f, path, maxLineBytes, counter), yield) {
			return
		}
		if err := counter.End(); err != nil {
			yield(Record{}, err)
		}
	})
}
