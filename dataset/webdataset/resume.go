package webdataset

import (
	"context"
	"fmt"
	"math"

	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
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

// kind names the reader in its states: the number of shards and a hash of
// their base names (so that a state of another shard set is refused, while
// the shards may move to another directory or bucket).
func kind(list string) string {
	n, names := streamfile.ListHash(list)
	return fmt.Sprintf("webdataset(shards=%d,names=%s)", n, names)
}

var _ source.Resumable[Sample] = (*reader)(nil)

// StateAt returns the state of the pass of epoch after its consumer
// received n samples: {kind, [shard, offset, n]} (with the count of
// samples skipped as bad appended when there were any) where the pass
// still remembers where sample n ended, else the replay state {kind, [n]}.
// It reads nothing.
func (r *reader) StateAt(epoch int, n int64) (source.State, error) {
	return r.core.StateAt(epoch, n, func(abs int64, w []int64) []int64 {
		shard, off := marks.Unpack(w[0])
		if len(w) > 1 && w[1] > 0 {
			return []int64{shard, off, abs, w[1]}
		}
		return []int64{shard, off, abs}
	})
}

// Resume returns a reader whose passes continue the pass st was taken
// from: at its shard and offset, or by replay from a replay state. A state
// of another reader (other shards) is an error wrapping source.ErrState.
func (r *reader) Resume(st source.State) (source.Reader[Sample], error) { return r.resume(st) }

func (r *reader) resume(st source.State) (*reader, error) {
	core, err := r.core.Resume(st, 2, 3, 4)
	if err != nil {
		return nil, err
	}
	if core.From.Exact {
		if len(st.Pos) == 4 && st.Pos[2]+st.Pos[3] < 0 {
			return nil, &source.StateError{Want: core.Kind(), Got: st, Why: "counts overflow"}
		}
		// That the shard is in the list is checked when a pass has expanded it.
		if st.Pos[0] > math.MaxInt32 {
			return nil, core.Refuse("pos[0]", fmt.Sprintf("shard %d", st.Pos[0]))
		}
	}
	return &reader{list: r.list, cfg: r.cfg, core: core}, nil
}

// skippedBefore returns how many samples a pass resumed from an offset
// state skipped as bad before its offset.
func (r *reader) skippedBefore() int64 {
	if len(r.core.At) == 4 {
		return r.core.At[3]
	}
	return 0
}

// Identity returns the identity of the shards: their base names, sizes and
// modification times or ETags (source.Identifier).
func (r *reader) Identity(ctx context.Context) (string, error) {
	return streamfile.Identity(ctx, r.list, "", r.cfg.storage)
}

var _ source.Identifier = (*reader)(nil)
