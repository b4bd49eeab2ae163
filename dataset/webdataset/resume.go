package webdataset

import (
	"context"
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/source"
)

// A Reader (and a Decode of it) is source.Resumable. Its state after the
// consumer received n samples is {webdataset(...), [shard, offset, n]}:
// the index of the shard and the offset of the tar header of the first
// member of the next sample (samples the policy skipped counted in).
// Resuming from it opens that shard, seeks to the offset and reads on, so
// nothing before it is read; in a .tar.gz shard the offset is in the
// decompressed stream, and the resumed pass decompresses the stream up to
// it without reading a tar header. A resumed pass cannot see the keys
// before its offset, so a key that appears again after them (ErrSplit) is
// found only when both are after it.
//
// The pass remembers where each of its last 4096 samples ended, so the
// state is an offset state while the consumer is fewer than 4096 samples
// behind the reader, as it is behind any prefetch buffer or parallel map
// of a usual size. Further behind, or for a pass that stopped before
// sample n, the state is {webdataset(...), [n]}, which resumes by replay:
// the pass is read from its start and its first n samples dropped. Both
// are exact.
//
// Under a bad-record policy, a state after samples were skipped as bad
// carries their count: {webdataset(...), [shard, offset, n, skipped]}, and
// a pass resumed from it judges the policy's fraction over the whole pass,
// as a replay does (see source.SkipPolicy.PassFrom).

// start is where the passes of a reader begin: with Exact, at byte off of
// shard file.
type start struct {
	marks.From
	file    int
	off     int64
	skipped int64 // samples skipped as bad before off
}

// kind names the reader in its states: the number of shards and a hash of
// their base names (so that a state of another shard set is refused, while
// the shards may move to another directory or bucket).
func (r *reader) kind() string {
	h := uint32(2166136261) // FNV-1a
	elems := strings.Split(r.list, ";")
	for _, p := range elems {
		for _, c := range []byte(path.Base(strings.ReplaceAll(p, `\`, "/"))) {
			h = (h ^ uint32(c)) * 16777619
		}
		h = h * 16777619 // a 0 byte between names
	}
	return fmt.Sprintf("webdataset(shards=%d,names=%08x)", len(elems), h)
}

var _ source.Resumable[Sample] = (*reader)(nil)

// StateAt returns the state of the pass of epoch after its consumer
// received n samples: {kind, [shard, offset, n]} (with the count of
// samples skipped as bad appended when there were any) where the pass
// still remembers where sample n ended, else the replay state {kind, [n]}.
// It reads nothing.
func (r *reader) StateAt(epoch int, n int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("webdataset: state after %d samples: negative count", n)
	}
	abs := r.from.Count(n)
	var pos [2]int64
	if r.marks.At(epoch, abs, pos[:r.marks.Width()]) {
		shard, off := marks.Unpack(pos[0])
		if pos[1] > 0 {
			return source.State{Kind: r.kind(), Pos: []int64{shard, off, abs, pos[1]}}, nil
		}
		return source.State{Kind: r.kind(), Pos: []int64{shard, off, abs}}, nil
	}
	return source.State{Kind: r.kind(), Pos: []int64{abs}}, nil
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its shard and offset, or by replay from a replay state. A state
// of another reader (other shards) is an error wrapping source.ErrState.
func (r *reader) Resume(st source.State) (source.Reader[Sample], error) { return r.resume(st) }

func (r *reader) resume(st source.State) (*reader, error) {
	kind := r.kind()
	from, replay, err := marks.Replay(st, kind)
	if err != nil {
		return nil, err
	}
	if replay {
		return newReader(r.list, r.cfg, start{From: from}), nil
	}
	var skipped int64
	if len(st.Pos) == 4 {
		if err := st.Check(kind, 4, 0); err != nil {
			return nil, err
		}
		skipped = st.Pos[3]
		if st.Pos[2]+skipped < 0 {
			return nil, &source.StateError{Want: kind, Got: st, Why: "counts overflow"}
		}
	} else if err := st.Check(kind, 3, 0); err != nil {
		return nil, err
	}
	// That the shard is in the list is checked when a pass has expanded it.
	if st.Pos[0] < 0 || st.Pos[0] > math.MaxInt32 {
		return nil, &source.StateError{Want: kind, Got: st, Field: "pos[0]", Why: fmt.Sprintf("shard %d", st.Pos[0])}
	}
	return newReader(r.list, r.cfg, start{From: marks.From{Exact: true, N: st.Pos[2]}, file: int(st.Pos[0]), off: st.Pos[1], skipped: skipped}), nil
}

// Identity returns the identity of the shards: their base names, sizes and
// modification times or ETags (source.Identifier).
func (r *reader) Identity(ctx context.Context) (string, error) {
	paths, err := source.Paths(ctx, r.list, "", r.cfg.storage...)
	if err != nil {
		return "", err
	}
	return dataid.Files(ctx, paths, r.cfg.storage...)
}

var _ source.Identifier = (*reader)(nil)
