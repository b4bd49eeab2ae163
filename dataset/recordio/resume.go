package recordio

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"path"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/marks"
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

// start is where the passes of a reader begin: with Exact, at byte off of
// file.
type start struct {
	marks.From
	file int
	off  int64
}

// kind names the reader in its states: the number of elements of its
// file list, a hash of their base names (so that a state of another file
// set is refused, while the files may move to another directory or bucket)
// and its shard. A list of plain paths has as many elements as files.
func (fs *files) kind() string {
	h := fnv.New32a()
	elems := strings.Split(fs.list, ";")
	for _, p := range elems {
		h.Write([]byte(path.Base(strings.ReplaceAll(p, `\`, "/"))))
		h.Write([]byte{0})
	}
	k := fmt.Sprintf("recordio(files=%d,names=%08x", len(elems), h.Sum32())
	if fs.c.count > 1 {
		k += fmt.Sprintf(",shard=%d/%d", fs.c.index, fs.c.count)
	}
	return k + ")"
}

// StateAt returns the state of the pass of epoch after its consumer
// received n records: {kind, [file, offset, n]} where the pass still
// remembers where record n ended, else the replay state {kind, [n]}. It
// reads nothing.
func (fs *files) StateAt(epoch int, n int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("recordio: state after %d records: negative count", n)
	}
	abs := fs.from.Count(n)
	var pos [1]int64
	if fs.marks.At(epoch, abs, pos[:]) {
		file, off := marks.Unpack(pos[0])
		return source.State{Kind: fs.kind(), Pos: []int64{file, off, abs}}, nil
	}
	return source.State{Kind: fs.kind(), Pos: []int64{abs}}, nil
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its file and offset, or by replay from a replay state. A state
// of another reader (other files, another shard) is an error wrapping
// source.ErrState.
func (fs *files) Resume(st source.State) (source.Reader[Record], error) {
	kind := fs.kind()
	from, replay, err := marks.Replay(st, kind)
	if err != nil {
		return nil, err
	}
	if replay {
		return newFiles(fs.list, fs.c, start{From: from}), nil
	}
	if err := st.Check(kind, 3, 0); err != nil {
		return nil, err
	}
	if st.Pos[0] < 0 || st.Pos[0] > math.MaxInt32 {
		return nil, &source.StateError{Want: kind, Got: st, Field: "pos[0]", Why: fmt.Sprintf("file %d", st.Pos[0])}
	}
	if st.Pos[1]%4 != 0 { // every record starts at a multiple of 4 (align4)
		return nil, &source.StateError{Want: kind, Got: st, Field: "pos[1]", Why: fmt.Sprintf("offset %d is not where a record can start (a multiple of 4)", st.Pos[1])}
	}
	// That the file is in the list is checked when a pass has expanded it.
	return newFiles(fs.list, fs.c, start{From: marks.From{Exact: true, N: st.Pos[2]}, file: int(st.Pos[0]), off: st.Pos[1]}), nil
}

var _ source.Resumable[Record] = (*files)(nil)

// checkOffset refuses the offset a resumed pass starts at in a file of
// size bytes when it is past the file's end: a state changed by hand, or
// taken of a longer file. The error wraps source.ErrState and names the
// state's field, so that a checkpoint says which of its numbers is wrong
// instead of a failed seek.
func (fs *files) checkOffset(path string, off, size int64) error {
	if off <= size {
		return nil
	}
	return fs.stateError(fs.from.file, off, "pos[1]", fmt.Sprintf("offset %d is past the end of %s (%d bytes)", off, path, size))
}

// stateError returns the error that refuses the state a pass resumed from
// (at byte off of file), which wraps source.ErrState and names field.
func (fs *files) stateError(file int, off int64, field, why string) error {
	st := source.State{Kind: fs.kind(), Pos: []int64{int64(file), off, fs.from.N}}
	return &source.StateError{Want: fs.kind(), Got: st, Field: field, Why: why}
}

// Identity returns the identity of the files a pass reads: their base
// names, sizes and modification times or ETags (source.Identifier).
func (fs *files) Identity(ctx context.Context) (string, error) {
	paths, err := source.Paths(ctx, fs.list, ".rec", fs.c.storage...)
	if err != nil {
		return "", err
	}
	return dataid.Files(ctx, paths, fs.c.storage...)
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
