package recordio

import (
	"context"
	"fmt"
	"math"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
	"github.com/tensorfeed/tensorfeed/source"
)

// A pass of Records is source.Resumable. Its state after the consumer
// received n records is {recordio(...), [file, offset, n]}: the index of
// the file and the byte offset in it (absolute, also for a Shard) where the
// record after the n-th starts. Resuming from it opens that file, seeks to
// the offset and reads on, so nothing before it is read; Record.Index stays
// counted from the start of the epoch's pass.
//
// The pass remembers where each of its last 4096 records ended, so the
// state is an offset state while the consumer is fewer than 4096 records
// behind the reader, as it is behind any prefetch buffer or parallel map
// of a usual size. Further behind, or for a pass that stopped before
// record n, the state is {recordio(...), [n]}, which resumes by replay:
// the pass is read from its start and its first n records dropped. Both
// are exact.

// kind names the reader in its states: the number of elements of its
// file list, a hash of their base names (so that a state of another file
// set is refused, while the files may move to another directory or bucket)
// and its shard. A list of plain paths has as many elements as files.
func kind(list string, c config) string {
	n, names := streamfile.ListHash(list)
	k := fmt.Sprintf("recordio(files=%d,names=%s", n, names)
	if c.count > 1 {
		k += fmt.Sprintf(",shard=%d/%d", c.index, c.count)
	}
	return k + ")"
}

// StateAt returns the state of the pass of epoch after its consumer
// received n records: {kind, [file, offset, n]} where the pass still
// remembers where record n ended, else the replay state {kind, [n]}. It
// reads nothing.
func (fs *files) StateAt(epoch int, n int64) (source.State, error) {
	return fs.core.StateAt(epoch, n, func(abs int64, w []int64) []int64 {
		file, off := marks.Unpack(w[0])
		return []int64{file, off, abs}
	})
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its file and offset, or by replay from a replay state. A state
// of another reader (other files, another shard) is an error wrapping
// source.ErrState.
func (fs *files) Resume(st source.State) (source.Reader[Record], error) {
	core, err := fs.core.Resume(st, 2, 3)
	if err != nil {
		return nil, err
	}
	if core.From.Exact {
		// That the file is in the list is checked when a pass has expanded it.
		if st.Pos[0] > math.MaxInt32 {
			return nil, core.Refuse("pos[0]", fmt.Sprintf("file %d", st.Pos[0]))
		}
		if st.Pos[1]%4 != 0 { // every record starts at a multiple of 4 (align4)
			return nil, core.Refuse("pos[1]", fmt.Sprintf("offset %d is not where a record can start (a multiple of 4)", st.Pos[1]))
		}
	}
	return &files{list: fs.list, c: fs.c, core: core}, nil
}

var _ source.Resumable[Record] = (*files)(nil)

// Identity returns the identity of the files a pass reads: their base
// names, sizes and modification times or ETags (source.Identifier).
func (fs *files) Identity(ctx context.Context) (string, error) {
	return streamfile.Identity(ctx, fs.list, ".rec", fs.c.storage)
}

// Identity returns the identity of every .rec file and its .idx, in
// order, in the format of the sequential readers' (source.Identifier): a
// checkpoint of source.ReadIndexed over the files is refused over other
// files (or other indexes) of as many records. It reads the files'
// metadata again (a stat, a HEAD request), not their records.
func (x *Indexed) Identity(ctx context.Context) (string, error) {
	return dataid.Files(ctx, x.paths, x.sopts...)
}

var (
	_ source.Identifier = (*files)(nil)
	_ source.Identifier = (*Indexed)(nil)
)
