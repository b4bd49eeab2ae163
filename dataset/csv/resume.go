package csv

import (
	"context"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
	"github.com/tensorfeed/tensorfeed/source"
)

// A Reader is source.Resumable. Its state after the consumer received n
// rows is {csv(...), [offset, line, records, label offset, label line,
// label records, n]}: where the row after the n-th starts in the data file,
// with the lines and records (header, skipped and bad rows included) before
// it, and the same for the label file (zeros without one), so that the two
// files resume in step and line numbers in rows and errors stay those of
// the files. Resuming from it reads the head of the file(s) for the layout
// (SkipRows, the header, the first row: through one 64 KiB buffer, by
// ReadAt for a remote file), then seeks each file to its offset and reads
// on: nothing else before the offsets is read.
//
// The pass remembers where each of its last 4096 rows ended, so the state
// is an offset state while the consumer is fewer than 4096 rows behind the
// reader, as it is behind any prefetch buffer or parallel map of a usual
// size. Further behind, or for a pass that stopped before row n, the state
// is {csv(...), [n]}, which resumes by replay: the pass is read from its
// start and its first n rows dropped. Both are exact.
//
// Under a bad-record policy, a pass resumed from an offset judges the
// policy's fraction over the whole pass, as a replay does: the bad rows
// before the offset are the records that are neither rows nor the head
// (see source.SkipPolicy.PassFrom).

// ends: the ring holds, after each row, the words
// marks.Pack(records - rows, offset) and the line count of the data file, then
// the same two of the label file if there is one: a file over 1 TiB, or
// more than 2^17 records that are not rows (header, skipped and bad rows),
// gives replay states.

// seek moves the files of a pass that has read its head to the start of
// the resumed pass, and puts that position in the pass's ring.
func (r *Reader) seek(p *pass, sp *streamfile.Pass) error {
	at := r.core.At
	if err := p.data.seek(at[0], int(at[1]), int(at[2])); err != nil {
		return err
	}
	if p.lab != nil {
		if err := p.lab.seek(at[3], int(at[4]), int(at[5])); err != nil {
			return err
		}
	}
	n := sp.N
	if p.lab != nil {
		sp.Mark(marks.Pack(at[2]-n, at[0]), at[1], marks.Pack(at[5]-n, at[3]), at[4])
	} else {
		sp.Mark(marks.Pack(at[2]-n, at[0]), at[1])
	}
	return nil
}

// kind names the reader in its states by hashes of the base names of its
// data and label files, so that a state of other files is refused while
// the files may move.
func kind(path string, c config) string {
	k := "csv(" + streamfile.NameHash(path)
	if c.labelFile != "" {
		k += ",labels=" + streamfile.NameHash(c.labelFile)
	}
	return k + ")"
}

var _ source.Resumable[Row] = (*Reader)(nil)

// StateAt returns the state of the pass of epoch after its consumer
// received n rows: {kind, [offset, line, records, label offset, label
// line, label records, n]} where the pass still remembers where row n
// ended, else the replay state {kind, [n]}. It reads nothing.
func (r *Reader) StateAt(epoch int, n int64) (source.State, error) {
	return r.core.StateAt(epoch, n, func(abs int64, w []int64) []int64 {
		pos := make([]int64, 7) // see ends
		pos[2], pos[0] = marks.Unpack(w[0])
		pos[2] += abs
		pos[1] = w[1]
		if len(w) == 4 {
			pos[5], pos[3] = marks.Unpack(w[2])
			pos[5] += abs
			pos[4] = w[3]
		}
		pos[6] = abs
		return pos
	})
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its offsets, or by replay from a replay state. A state of
// other files is an error wrapping source.ErrState.
func (r *Reader) Resume(st source.State) (source.Reader[Row], error) {
	core, err := r.core.Resume(st, 6, 7)
	if err != nil {
		return nil, err
	}
	return &Reader{path: r.path, cfg: r.cfg, core: core}, nil
}

// logResume logs where a resumed pass starts.
func (r *Reader) logResume(log *zap.Logger) {
	if ce := log.Check(zap.DebugLevel, "csv resume"); ce != nil {
		ce.Write(zap.String("file", r.path), zap.Int64("offset", r.core.At[0]), zap.Int64("line", r.core.At[1]), zap.Int64("row", r.core.From.N))
	}
}

// Identity returns the identity of the data file and the label file: their
// base names, sizes and modification times or ETags (source.Identifier).
func (r *Reader) Identity(ctx context.Context) (string, error) {
	paths := []string{r.path}
	if r.cfg.labelFile != "" {
		paths = append(paths, r.cfg.labelFile)
	}
	return dataid.Files(ctx, paths, r.cfg.storage...)
}

var _ source.Identifier = (*Reader)(nil)
