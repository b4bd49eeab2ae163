package stage

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// Repeat returns a reader whose passes run n passes of r one after the
// other, or endlessly when n < 0: PaddlePaddle's MultiPassReader. Repeat(r,
// 0) yields nothing.
//
// Each inner pass of r runs with its own epoch (source.WithEpoch), so a
// Shuffle or a Generate inside r gets a fresh, repeatable order in each of
// them. For outer epoch e (source.Epochs: the context's epoch, else this
// stage's own pass count), inner pass k runs as epoch e*n + k when n > 0,
// and as epoch e<<32 + k when endless; for e = 0 that is 0, 1, 2, ...
//
// An error from r is passed on once and ends the pass. The context is
// checked between inner passes. An endless Repeat stops when a pass of r
// yields nothing, instead of spinning.
func Repeat[T any](r source.Reader[T], n int) source.Reader[T] {
	var epochs source.Epochs
	// The inner passes' lengths are known only by reading them, so a
	// resumed pass replays.
	return source.Replayed(fmt.Sprintf("repeat(%d)", n), source.Func[T](func(ctx context.Context) iter.Seq2[T, error] {
		return func(yield func(T, error) bool) {
			ctx, outer := epochs.Start(ctx)
			for k := 0; n < 0 || k < n; k++ {
				if err := ctx.Err(); err != nil {
					yieldErr(yield, err)
					return
				}
				inner := outer<<32 + k
				if n >= 0 {
					inner = outer*n + k
				}
				empty := true
				for s, err := range r.All(source.WithEpoch(ctx, inner)) {
					if err != nil {
						yieldErr(yield, err)
						return
					}
					empty = false
					if !yield(s, nil) {
						return
					}
				}
				if empty && n < 0 {
					return
				}
			}
		}
	}), r)
}
