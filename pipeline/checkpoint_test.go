package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// item is one item a run delivered: its epoch, step and value.
type item[T any] struct {
	epoch int
	step  int64
	v     T
}

// runEpochs runs epochs of a pass iterator and collects what they deliver,
// stopping after stop items (stop < 0: never). It returns the items and the
// position (epoch, step) after the last one.
func runEpochs[T any](t *testing.T, epochs iter.Seq2[int, iter.Seq2[T, error]], stop int) ([]item[T], int, int64) {
	return runFrom(t, epochs, 0, stop)
}

// runFrom is runEpochs for a run whose first epoch starts at step first.
func runFrom[T any](t *testing.T, epochs iter.Seq2[int, iter.Seq2[T, error]], first int64, stop int) ([]item[T], int, int64) {
	t.Helper()
	var got []item[T]
	lastEpoch, lastStep := 0, int64(0)
	for e, pass := range epochs {
		step := first
		first = 0
		lastEpoch, lastStep = e, 0
		for v, err := range pass {
			if err != nil {
				t.Fatalf("epoch %d step %d: %v", e, step, err)
			}
			got = append(got, item[T]{e, step, v})
			step++
			lastStep = step
			if len(got) == stop {
				return got, lastEpoch, lastStep
			}
		}
	}
	return got, lastEpoch, lastStep
}

// stopAndResume runs build(0) for epochs straight, then again stopped after
// k items, checkpointed through its encoding, and resumed on build(1):
// the two runs must deliver the same items.
func stopAndResume[T any](t *testing.T, build func(variant int) *pipeline.Pipe[T], epochs, k int) {
	t.Helper()
	ctx := context.Background()
	want, _, _ := runEpochs[T](t, build(0).Epochs(ctx, epochs), -1)
	p := build(0)
	got, e, step := runEpochs[T](t, p.Epochs(ctx, epochs), k)
	if pe, ps := p.Position(); pe != e || ps != step {
		t.Fatalf("position (%d, %d), the loop counted (%d, %d)", pe, ps, e, step)
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatalf("checkpoint at epoch %d step %d: %v", e, step, err)
	}
	data, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := pipeline.ParseCheckpoint(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	rest, err := build(1).EpochsFrom(ctx, back, epochs)
	if err != nil {
		t.Fatalf("resume from %s: %v", data, err)
	}
	more, _, _ := runFrom[T](t, rest, back.Step, -1)
	got = append(got, more...)
	if len(got) != len(want) {
		t.Fatalf("stopped after %d at epoch %d step %d: %d items in all, want %d (checkpoint %s)", k, e, step, len(got), len(want), data)
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Fatalf("stopped after %d (epoch %d step %d): item %d is %v, want %v (checkpoint %s)", k, e, step, i, got[i], want[i], data)
		}
	}
}

// mnistLike builds source (shuffled by index) -> map -> parallel map ->
// batch -> prefetch, with workers and prefetch that differ by variant.
func mnistLike(n, size int) func(variant int) *pipeline.Pipe[batch.Batch[int]] {
	return func(variant int) *pipeline.Pipe[batch.Batch[int]] {
		d := source.IndexSlice(seq(0, n))
		p := pipeline.From[int](source.ReadIndexed(d, source.ShuffleIndex(7)))
		p = pipeline.Map(p, func(x int) int { return 3 * x })
		p = pipeline.ParallelMap(p, 1+3*variant, func(x int) (int, error) { return x + 1, nil })
		return pipeline.Batch(p, size, batch.Keep).Buffered(4 * variant)
	}
}

func TestCheckpointResumesExactly(t *testing.T) {
	build := mnistLike(1000, 32) // 32 batches per epoch, the last short
	for _, k := range []int{1, 2, 17, 31, 32, 33, 50, 63, 64} {
		t.Run(fmt.Sprint(k), func(t *testing.T) { stopAndResume(t, build, 2, k) })
	}
}

func TestCheckpointRefusesAnotherPipeline(t *testing.T) {
	ctx := context.Background()
	p := mnistLike(1000, 32)(0)
	ck, err := p.CheckpointAt(ctx, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	others := map[string]*pipeline.Pipe[batch.Batch[int]]{
		"other batch size": mnistLike(1000, 16)(0),
		"other data":       mnistLike(999, 32)(0),
		"other seed": pipeline.Batch(pipeline.From[int](source.ReadIndexed(source.IndexSlice(seq(0, 1000)),
			source.ShuffleIndex(8))), 32, batch.Keep),
	}
	for name, q := range others {
		_, err := q.EpochsFrom(ctx, ck, 2)
		if !errors.Is(err, pipeline.ErrCheckpoint) || !errors.Is(err, source.ErrState) {
			t.Errorf("%s: EpochsFrom = %v, want ErrCheckpoint and source.ErrState", name, err)
		}
	}
	tampered := *ck
	tampered.State.Kind = "batch(64,keep)"
	data, _ := tampered.Encode()
	if _, err := pipeline.ParseCheckpoint(data); !errors.Is(err, pipeline.ErrCheckpoint) {
		t.Errorf("a state changed by hand: %v", err)
	}
	if _, err := pipeline.ParseCheckpoint([]byte(`{"version":2}`)); !errors.Is(err, pipeline.ErrCheckpoint) {
		t.Errorf("version 2: %v", err)
	}
	if _, err := pipeline.ParseCheckpoint([]byte(`{"version":1,"fingerprint":"00","state":{"kind":"x"}}`)); !errors.Is(err, pipeline.ErrCheckpoint) {
		t.Errorf("a bad fingerprint: %v", err)
	}
}

func TestCheckpointIsSmall(t *testing.T) {
	// The shape of the MNIST pipeline: 60000 samples with a global shuffle
	// by index, map, batch, prefetch.
	ck, err := mnistLike(60000, 128)(1).CheckpointAt(context.Background(), 3, 400)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ck.Encode()
	if len(data) > 1024 {
		t.Errorf("checkpoint is %d bytes, want at most 1 KiB: %s", len(data), data)
	}
	t.Logf("%d bytes: %s", len(data), data)
}

// randomPipe builds a random pipeline of ints from seed; variant changes
// worker counts and prefetch sizes only.
func randomPipe(seed uint64) func(variant int) *pipeline.Pipe[batch.Batch[int]] {
	return func(variant int) *pipeline.Pipe[batch.Batch[int]] {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := 20 + rng.IntN(200)
		var p *pipeline.Pipe[int]
		if rng.IntN(2) == 0 {
			p = pipeline.From[int](source.ReadIndexed(source.IndexSlice(seq(0, n)), source.ShuffleIndex(seed)))
		} else {
			p = pipeline.From(source.Slice(seq(0, n)))
		}
		for range 1 + rng.IntN(5) {
			switch rng.IntN(10) {
			case 0:
				p = pipeline.Map(p, func(x int) int { return 2*x + 1 })
			case 1:
				m := 2 + rng.IntN(3)
				p = p.Filter(func(x int) bool { return x%m != 0 })
			case 2:
				p = p.Take(rng.IntN(n))
			case 3:
				p = p.Skip(rng.IntN(n / 2))
			case 4:
				p = p.Shuffle(1+rng.IntN(30), seed)
			case 5:
				p = p.Buffered(rng.IntN(3) * variant)
			case 6:
				p = pipeline.ParallelMap(p, 1+variant*rng.IntN(4), func(x int) (int, error) { return x * 5, nil })
			case 7:
				e := pipeline.Enumerate(p)
				p = pipeline.Map(e, func(v stage.Numbered[int]) int { return v.Index*1000 + v.Value })
			case 8:
				z := pipeline.Zip2(p, source.Slice(seq(0, 10*n)), stage.Shortest())
				p = pipeline.Map(z, func(v stage.Tuple2[int, int]) int { return v.A - v.B })
			case 9:
				p = p.Shard(2, rng.IntN(2))
			}
		}
		policy := []batch.Policy{batch.Keep, batch.Drop, batch.Pad, batch.RollOver}[rng.IntN(4)]
		return pipeline.Batch(p, 1+rng.IntN(8), policy)
	}
}

// TestCheckpointOfRandomPipelines is the property over composed
// pipelines: stopped anywhere and resumed (with other worker counts and
// prefetch sizes), a run delivers what it delivers straight.
func TestCheckpointOfRandomPipelines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for seed := range uint64(150) {
		build := randomPipe(seed)
		total, _, _ := runEpochs[batch.Batch[int]](t, build(0).Epochs(context.Background(), 2), -1)
		if len(total) == 0 {
			continue
		}
		k := 1 + rng.IntN(len(total))
		t.Run(fmt.Sprintf("seed=%d/k=%d", seed, k), func(t *testing.T) { stopAndResume(t, build, 2, k) })
	}
}

// TestResumeWithAnotherWorldSize stops an epoch read by W ranks in
// lockstep and finishes it with W' ranks: over all ranks every sample of
// the epoch is read exactly once (PadShards: the padding aside).
func TestResumeWithAnotherWorldSize(t *testing.T) {
	const n, size = 1001, 8
	data := seq(0, n)
	ctx := source.WithEpoch(context.Background(), 3)
	for _, c := range []struct{ before, after, steps int }{{4, 3, 10}, {2, 5, 7}, {8, 1, 15}, {3, 3, 0}, {1, 8, 125}} {
		for _, even := range []source.Even{source.PadShards, source.DropShards} {
			t.Run(fmt.Sprintf("%d->%d/after %d steps/even=%d", c.before, c.after, c.steps, even), func(t *testing.T) {
				rank := func(world, r int) *pipeline.Pipe[batch.Batch[int]] {
					src := source.ReadIndexed(source.IndexSlice(data), source.ShuffleIndex(5), source.ShardIndex(world, r, even))
					return pipeline.Batch(pipeline.From[int](src), size, batch.Keep)
				}
				seen := map[int]int{}
				var states []string
				var ck *pipeline.Checkpoint
				for r := range c.before {
					p := rank(c.before, r)
					step := 0
					for b, err := range p.All(ctx) {
						if err != nil {
							t.Fatal(err)
						}
						if step == c.steps {
							break
						}
						for _, x := range b.Samples {
							seen[x]++
						}
						step++
					}
					var err error
					if ck, err = p.CheckpointAt(ctx, 3, int64(step)); err != nil {
						t.Fatal(err)
					}
					states = append(states, fmt.Sprint(ck.State))
				}
				for _, s := range states[1:] {
					if s != states[0] {
						t.Fatalf("ranks in lockstep disagree on the state: %v", states)
					}
				}
				batches := -1
				for r := range c.after {
					rest, err := rank(c.after, r).EpochsFrom(context.Background(), ck, 4)
					if err != nil {
						t.Fatal(err)
					}
					got, _, _ := runEpochs[batch.Batch[int]](t, rest, -1)
					if batches >= 0 && len(got) != batches {
						t.Errorf("rank %d ran %d batches, rank 0 %d", r, len(got), batches)
					}
					batches = len(got)
					for _, it := range got {
						for _, x := range it.v.Samples {
							seen[x]++
						}
					}
				}
				missing, twice := 0, 0
				for _, x := range data {
					switch {
					case seen[x] == 0:
						missing++
					case seen[x] > 1:
						twice += seen[x] - 1
					}
				}
				if even == source.PadShards && missing > 0 {
					t.Errorf("%d samples missing", missing)
				}
				if even == source.DropShards && (twice > 0 || missing >= c.before+c.after) {
					t.Errorf("dropping: %d missing, %d repeated", missing, twice)
				}
				if even == source.PadShards && twice >= c.before+c.after {
					t.Errorf("padding repeated %d samples", twice)
				}
			})
		}
	}
}

// BenchmarkResume measures the time to the first batch of a run resumed
// at 90% of an epoch of 1M samples: by index (nothing before the position
// is read), and by replay (a stage that cannot compute its position).
func BenchmarkResume(b *testing.B) {
	const n, size = 1 << 20, 128
	d := source.IndexSlice(seq(0, n))
	for _, replay := range []bool{false, true} {
		name := "index"
		if replay {
			name = "replay"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			build := func() *pipeline.Pipe[batch.Batch[int]] {
				p := pipeline.From[int](source.ReadIndexed(d, source.ShuffleIndex(1)))
				if replay {
					p = p.Filter(func(int) bool { return true })
				}
				return pipeline.Batch(pipeline.Map(p, func(x int) int { return x + 1 }), size, batch.Keep)
			}
			ck, err := build().CheckpointAt(context.Background(), 0, n/size*9/10)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				rest, err := build().EpochsFrom(ctx, ck, 1)
				if err != nil {
					b.Fatal(err)
				}
				for _, pass := range rest {
					for _, err := range pass {
						if err != nil {
							b.Fatal(err)
						}
						break
					}
				}
			}
		})
	}
}

// TestCheckpointOfCarryingPolicies stops runs whose epochs are linked
// (RollOver carries the last samples into the next epoch's first batch,
// RoundBatch starts an epoch after the samples the last one padded with)
// after every k, at the epoch boundaries too, and resumes them.
func TestCheckpointOfCarryingPolicies(t *testing.T) {
	for _, policy := range []batch.Policy{batch.RollOver, batch.RoundBatch} {
		for _, n := range []int{100, 5} {
			build := func(variant int) *pipeline.Pipe[batch.Batch[int]] {
				p := pipeline.From[int](source.ReadIndexed(source.IndexSlice(seq(0, n)), source.ShuffleIndex(3)))
				p = pipeline.ParallelMap(p, 1+variant, func(x int) (int, error) { return x, nil })
				return pipeline.Batch(p, 7, policy).Buffered(2 * variant)
			}
			total, _, _ := runEpochs[batch.Batch[int]](t, build(0).Epochs(context.Background(), 4), -1)
			for k := 1; k < len(total); k++ {
				t.Run(fmt.Sprintf("%v/n=%d/k=%d", policy, n, k), func(t *testing.T) { stopAndResume(t, build, 4, k) })
			}
		}
	}
}

// TestRankSplitIgnoresWorkers: a rank's share of an epoch is the same
// whatever the number of workers after the split (1 or 8) and prefetch.
func TestRankSplitIgnoresWorkers(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 1)
	d := source.IndexSlice(seq(0, 997))
	for rank := range 4 {
		var want []int
		for _, workers := range []int{1, 8} {
			p := pipeline.From[int](source.ReadIndexed(d, source.ShuffleIndex(3), source.ShardIndex(4, rank, source.PadShards)))
			p = pipeline.ParallelMap(p, workers, func(x int) (int, error) { return x, nil }).Buffered(workers)
			got, err := collect(t, ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
			} else if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("rank %d: 8 workers read another share than 1", rank)
			}
		}
	}
}

// TestCheckpointEncodingIsStable: the bytes of a checkpoint (field order,
// checksum, marks) are those earlier builds wrote and read, so files
// written before stay readable and a file written now resumes there.
func TestCheckpointEncodingIsStable(t *testing.T) {
	const golden = `{"version":2,"fingerprint":"8eac25ace02e7865","epoch":1,"step":3,"state":{"kind":"batch(10,keep)","pos":[3],"in":[{"kind":"indexed(100,shuffle=7)","pos":[30]}]},"sum":"5ee1b7a1bc7e960e198ea2cd979e4bcc","marks":"31dfb52e4a4f95f3bcd8"}`
	p := pipeline.Batch(pipeline.From[int](source.ReadIndexed(source.IndexSlice(make([]int, 100)), source.ShuffleIndex(7))), 10, batch.Keep)
	c, err := p.CheckpointAt(context.Background(), 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := c.Encode(); err != nil || string(b) != golden {
		t.Fatalf("Encode = %s, %v\nwant %s", b, err, golden)
	}
	parsed, err := pipeline.ParseCheckpoint([]byte(golden))
	if err != nil || parsed.Epoch != 1 || parsed.Step != 3 {
		t.Fatalf("ParseCheckpoint(golden) = %+v, %v", parsed, err)
	}
	if b, err := parsed.Encode(); err != nil || string(b) != golden {
		t.Fatalf("Encode of the parsed golden = %s, %v", b, err)
	}
}
