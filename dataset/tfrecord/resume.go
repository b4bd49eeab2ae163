package tfrecord

import (
	"context"
	"fmt"
	"io"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// The reader of one file is source.Resumable. Its state after the consumer received n
// records is {tfrecord(name), [offset, index, n]}: the byte offset where
// the record after the n-th starts and its index in the file (records
// skipped as bad by the policy are counted in both). Resuming from it
// seeks to the offset in a plain file and reads on, so nothing before it
// is read; in a gzip file the offset is in the decompressed stream, and
// the resumed pass decompresses the stream up to it without framing or
// checking a record. Record.Index and the record numbers of errors stay
// those of the file.
//
// The pass remembers where each of its last 4096 records ended, so the
// state is an offset state while the consumer is fewer than 4096 records
// behind the reader, as it is behind any prefetch buffer or parallel map
// of a usual size. Further behind, or for a pass that stopped before
// record n, the state is {tfrecord(name), [n]}, which resumes by replay:
// the pass is read from its start and its first n records dropped. Both
// are exact.
//
// Under a bad-record policy, a pass resumed from an offset judges the
// policy's fraction over the whole pass, as a replay does: its count
// starts from the records before the offset and the bad ones among them
// (index and index-n, see source.SkipPolicy.PassFrom).

// seek moves a new reader of f to the start of r's resumed pass.
func (r *records) seek(f storage.File, rd *reader, log *zap.Logger) error {
	off, index := r.core.At[0], r.core.At[1]
	// The gzip magic first, and the rest of a header only when the file
	// starts with it, so that a resumed plain file is read from its offset
	// but for 3 bytes.
	var head [headerSize]byte
	m, err := f.ReadAt(head[:3], 0)
	if err == nil && isGzip(head[:m]) {
		m, err = f.ReadAt(head[:], 0)
	}
	if err != nil && err != io.EOF {
		return rd.ioError(0, err)
	}
	gz := isGzip(head[:m])
	log.Debug("tfrecord resume", zap.String("file", r.path), zap.Int64("offset", off), zap.Int64("record", index), zap.Bool("gzip", gz))
	if gz {
		rd.compression = gzipped
		rd.started = true
		if err := rd.start(); err != nil {
			return err
		}
		if m, err := io.CopyN(io.Discard, rd.br, off); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return rd.readError(m, err)
		}
	} else {
		if size := f.Size(); off > size {
			// A state changed by hand, or taken of a longer file: say
			// which number is wrong rather than fail a seek or read nothing.
			return r.core.Refuse("pos[0]", fmt.Sprintf("offset %d is past the end of %s (%d bytes)", off, r.path, size))
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return rd.ioError(off, err)
		}
		rd.br.Reset(f)
		rd.compression = plain
		rd.started = true
	}
	rd.pos, rd.index = off, index
	return nil
}

// StateAt returns the state of the pass of epoch after its consumer
// received n records: {kind, [offset, index, n]} where the pass still
// remembers where record n ended, else the replay state {kind, [n]}. It
// reads nothing.
func (r *records) StateAt(epoch int, n int64) (source.State, error) {
	return r.core.StateAt(epoch, n, func(abs int64, w []int64) []int64 {
		skipped, off := marks.Unpack(w[0]) // records skipped as bad before
		return []int64{off, abs + skipped, abs}
	})
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its offset, or by replay from a replay state. A state of
// another file is an error wrapping source.ErrState.
func (r *records) Resume(st source.State) (source.Reader[Record], error) {
	core, err := r.core.Resume(st, 2, 3)
	if err != nil {
		return nil, err
	}
	if core.From.Exact && st.Pos[1] < st.Pos[2] {
		return nil, &source.StateError{Want: core.Kind(), Got: st, Why: fmt.Sprintf("record index %d before record %d", st.Pos[1], st.Pos[2])}
	}
	return &records{path: r.path, c: r.c, core: core}, nil
}

// Identity returns the identity of the file: its base name, size and
// modification time or ETag (source.Identifier).
func (r *records) Identity(ctx context.Context) (string, error) {
	return dataid.Files(ctx, []string{r.path}, r.c.storage...)
}

var _ source.Identifier = (*records)(nil)
