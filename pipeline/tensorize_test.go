package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// tzSample is a sample of the Workers tests: pixels behind a pointer, a
// label and a slice that may be short (a bad sample).
type tzSample struct {
	Img *[6]uint8 `tensor:"image,float32"`
	Lab uint8     `tensor:"label,label,int32"`
	V   []float32 `tensor:"v,shape=2"`
}

// tzData returns n samples, sample bad (if any) with a short V.
func tzData(n, bad int) []tzSample {
	d := make([]tzSample, n)
	for i := range d {
		var img [6]uint8
		for j := range img {
			img[j] = uint8(7*i + j)
		}
		d[i] = tzSample{Img: &img, Lab: uint8(i % 10), V: []float32{float32(i), -float32(i)}}
	}
	if bad >= 0 {
		d[bad].V = d[bad].V[:1]
	}
	return d
}

// tzFeed is ReadIndexed over d (shuffled when shuffle) -> Tensorize with
// batches of size and the given policy and options.
func tzFeed(d []tzSample, shuffle bool, size int, last batch.Policy, opts ...pipeline.TensorizeOption) *pipeline.Pipe[*tensor.Batch] {
	var ro []source.IndexedOption
	if shuffle {
		ro = append(ro, source.ShuffleIndex(3))
	}
	p := pipeline.From[tzSample](source.ReadIndexed(source.IndexSlice(d), ro...))
	return pipeline.Tensorize(p, sink.Of[tzSample](size), last, opts...)
}

// snap is what a batch holds, bit for bit.
func snap(t *tensor.Batch) string {
	return fmt.Sprint(t.Padded, t.Data[0].Shape, t.Data[0].F32, t.Data[1].F32, t.Label[0].I32)
}

// workerCounts are the Workers options the tests compare, with their names.
var workerCounts = []struct {
	name string
	opt  []pipeline.TensorizeOption
}{
	{"default", nil},
	{"1", []pipeline.TensorizeOption{pipeline.Workers(1)}},
	{"2", []pipeline.TensorizeOption{pipeline.Workers(2)}},
	{"3", []pipeline.TensorizeOption{pipeline.Workers(3)}},
	{"auto", []pipeline.TensorizeOption{pipeline.Workers(pipeline.Auto)}},
}

// epochSnaps runs epochs of feed, releasing every batch, and returns what
// each held.
func epochSnaps(t *testing.T, feed *pipeline.Pipe[*tensor.Batch], epochs int) []string {
	t.Helper()
	return epochSnapsOf(t, feed, epochs, snap)
}

// epochSnapsOf is epochSnaps with what a batch holds told by snap.
func epochSnapsOf(t *testing.T, feed *pipeline.Pipe[*tensor.Batch], epochs int, snap func(*tensor.Batch) string) []string {
	t.Helper()
	var got []string
	for e, pass := range feed.Epochs(context.Background(), epochs) {
		for b, err := range pass {
			if err != nil {
				t.Fatalf("epoch %d after %d batches: %v", e, len(got), err)
			}
			got = append(got, snap(b))
			b.Release()
		}
	}
	return got
}

// Any number of workers yields the batches of one, in order, bit for bit,
// under every last-batch policy, epoch after epoch.
func TestTensorizeWorkersSameBatches(t *testing.T) {
	d := tzData(1003, -1)
	for _, last := range []batch.Policy{batch.Keep, batch.Drop, batch.Pad, batch.RollOver} {
		want := epochSnaps(t, tzFeed(d, true, 16, last), 3)
		for _, w := range workerCounts {
			t.Run(fmt.Sprintf("%v/%s", last, w.name), func(t *testing.T) {
				got := epochSnaps(t, tzFeed(d, true, 16, last, w.opt...), 3)
				if len(got) != len(want) {
					t.Fatalf("%d batches, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("batch %d:\n%s\nwant\n%s", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// A consumer that keeps every batch of an epoch unreleased finds them
// unchanged at its end: workers never write into memory it holds.
func TestTensorizeWorkersKeepBatches(t *testing.T) {
	d := tzData(500, -1)
	for _, w := range workerCounts[2:] {
		t.Run(w.name, func(t *testing.T) {
			feed := tzFeed(d, true, 8, batch.Keep, w.opt...)
			for e, pass := range feed.Epochs(context.Background(), 2) {
				var held []*tensor.Batch
				var at []string
				for b, err := range pass {
					if err != nil {
						t.Fatal(err)
					}
					held, at = append(held, b), append(at, snap(b))
				}
				for i, b := range held {
					if s := snap(b); s != at[i] {
						t.Fatalf("epoch %d: batch %d changed while held:\n%s\nwas\n%s", e, i, s, at[i])
					}
					b.Release()
				}
			}
		})
	}
}

// A run stopped with one number of workers, checkpointed and resumed with
// another delivers the batches of an uninterrupted run, and the
// checkpoint is the same whatever the number of workers.
func TestTensorizeWorkersResume(t *testing.T) {
	ctx := context.Background()
	d := tzData(1003, -1) // 63 batches per epoch, the last short
	const epochs = 2
	want := epochSnaps(t, tzFeed(d, true, 16, batch.Keep), epochs)
	ref, err := tzFeed(d, true, 16, batch.Keep).CheckpointAt(ctx, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	refData, err := ref.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]int{{1, 2}, {2, 1}, {2, 3}, {3, 2}, {4, 0}, {0, 2}} {
		stopW, resumeW := workerCounts[pair[0]], workerCounts[pair[1]]
		for _, k := range []int{1, 5, 62, 63, 64, 100} {
			t.Run(fmt.Sprintf("%s-%s/%d", stopW.name, resumeW.name, k), func(t *testing.T) {
				got, data := stopResume(t, tzFeed(d, true, 16, batch.Keep, stopW.opt...), tzFeed(d, true, 16, batch.Keep, resumeW.opt...), k, epochs, snap)
				if len(got) != len(want) {
					t.Fatalf("%d batches in all, want %d (checkpoint %s)", len(got), len(want), data)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("batch %d:\n%s\nwant\n%s (checkpoint %s)", i, got[i], want[i], data)
					}
				}
				at, err := tzFeed(d, true, 16, batch.Keep, stopW.opt...).CheckpointAt(ctx, 1, 5)
				if err != nil {
					t.Fatal(err)
				}
				if atData, _ := at.Encode(); string(atData) != string(refData) {
					t.Fatalf("checkpoint at (1, 5):\n%s\nwith one worker:\n%s", atData, refData)
				}
			})
		}
	}
}

// stopResume runs epochs of p until k batches came, checkpoints it, and
// runs the rest of the epochs of q from the checkpoint: it returns what
// every batch held, and the checkpoint.
func stopResume(t *testing.T, p, q *pipeline.Pipe[*tensor.Batch], k, epochs int, snap func(*tensor.Batch) string) ([]string, []byte) {
	t.Helper()
	return stopEditResume(t, p, q, k, epochs, snap, nil)
}

// stopEditResume is stopResume with edit (when not nil) applied to the
// checkpoint before it is encoded.
func stopEditResume(t *testing.T, p, q *pipeline.Pipe[*tensor.Batch], k, epochs int, snap func(*tensor.Batch) string,
	edit func(*pipeline.Checkpoint)) ([]string, []byte) {
	t.Helper()
	ctx := context.Background()
	var got []string
run:
	for _, pass := range p.Epochs(ctx, epochs) {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, snap(b))
			b.Release()
			if len(got) == k {
				break run
			}
		}
	}
	ck, err := p.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(ck)
	}
	data, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := pipeline.ParseCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := q.EpochsFrom(ctx, back, epochs)
	if err != nil {
		t.Fatalf("resume from %s: %v", data, err)
	}
	for _, pass := range rest {
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, snap(b))
			b.Release()
		}
	}
	return got, data
}

// tzErrRun runs one pass of feed and returns the batches before its error
// and the error.
func tzErrRun(t *testing.T, ctx context.Context, feed *pipeline.Pipe[*tensor.Batch]) ([]string, error) {
	t.Helper()
	var got []string
	for b, err := range feed.All(ctx) {
		if err != nil {
			return got, err
		}
		got = append(got, snap(b))
		b.Release()
	}
	return got, nil
}

// A sample that does not fit ends the pass after the batches before its
// own, with the error one worker gives: it names the batch and the row.
func TestTensorizeWorkersBadSample(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 0)
	d := tzData(400, 3*16+5)
	want, wantErr := tzErrRun(t, ctx, tzFeed(d, false, 16, batch.Keep))
	if !errors.Is(wantErr, sink.ErrSampleShape) || !strings.Contains(wantErr.Error(), "batch 3 of the pass") || len(want) != 3 {
		t.Fatalf("one worker: %d batches, then %v", len(want), wantErr)
	}
	for _, w := range workerCounts[2:] {
		t.Run(w.name, func(t *testing.T) {
			got, err := tzErrRun(t, ctx, tzFeed(d, false, 16, batch.Keep, w.opt...))
			if err == nil || err.Error() != wantErr.Error() || !errors.Is(err, sink.ErrSampleShape) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d batches before the error, want %d", len(got), len(want))
			}
		})
	}
}

// An error of the samples' reader comes after the batches before it, as
// it is, not as a batch's.
func TestTensorizeWorkersUpstreamError(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 0)
	d := tzData(400, -1)
	feed := func(opts ...pipeline.TensorizeOption) *pipeline.Pipe[*tensor.Batch] {
		r := sourcetest.FailAfter[tzSample](source.ReadIndexed(source.IndexSlice(d)), 100, errBoom)
		return pipeline.Tensorize(pipeline.From(r), sink.Of[tzSample](16), batch.Keep, opts...)
	}
	want, wantErr := tzErrRun(t, ctx, feed())
	if !errors.Is(wantErr, errBoom) || strings.Contains(wantErr.Error(), "of the pass") {
		t.Fatalf("one worker: %v", wantErr)
	}
	for _, w := range workerCounts[2:] {
		t.Run(w.name, func(t *testing.T) {
			got, err := tzErrRun(t, ctx, feed(w.opt...))
			if err == nil || err.Error() != wantErr.Error() || !errors.Is(err, errBoom) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d batches before the error, want %d", len(got), len(want))
			}
		})
	}
}

// A consumer that stops early, or whose context is cancelled, leaves no
// goroutine of the workers behind (TestMain checks with goleak), and the
// batches it received stay its own.
func TestTensorizeWorkersStop(t *testing.T) {
	d := tzData(20000, -1)
	for _, w := range workerCounts[2:] {
		t.Run(w.name+"/break", func(t *testing.T) {
			feed := tzFeed(d, true, 16, batch.Keep, w.opt...)
			want := epochSnaps(t, tzFeed(d, true, 16, batch.Keep), 1)[:3]
			var held []*tensor.Batch
			for b, err := range feed.All(source.WithEpoch(context.Background(), 0)) {
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, b)
				if len(held) == 3 {
					break
				}
			}
			for i, b := range held {
				if s := snap(b); s != want[i] {
					t.Fatalf("batch %d: %s, want %s", i, s, want[i])
				}
				b.Release()
			}
		})
		t.Run(w.name+"/cancel", func(t *testing.T) {
			ctx, cancel := context.WithCancel(source.WithEpoch(context.Background(), 0))
			defer cancel()
			n := 0
			var last error
			for b, err := range tzFeed(d, true, 16, batch.Keep, w.opt...).All(ctx) {
				if err != nil {
					last = err
					break
				}
				b.Release()
				if n++; n == 3 {
					cancel()
				}
				if n > 20000/16 {
					t.Fatal("the pass went on after its context was cancelled")
				}
			}
			if !errors.Is(last, context.Canceled) {
				t.Fatalf("pass ended with %v after %d batches, want context.Canceled", last, n)
			}
		})
	}
}

// A fill that panics on a worker ends the pass with a
// *tensorfeed.PanicError after the batches before its own.
func TestTensorizeWorkersFillPanics(t *testing.T) {
	ctx := source.WithEpoch(context.Background(), 0)
	s := sink.New(10, []sink.Field[int]{sink.Float32("x", nil, func(v int, dst []float32) {
		if v == 57 {
			panic("fill of 57")
		}
		dst[0] = float32(v)
	})}, nil)
	for _, w := range workerCounts[2:] {
		t.Run(w.name, func(t *testing.T) {
			var got []float32
			var last error
			for b, err := range pipeline.Tensorize(pipeline.From(count(200)), s, batch.Keep, w.opt...).All(ctx) {
				if err != nil {
					last = err
					break
				}
				got = append(got, b.Data[0].F32...)
				b.Release()
			}
			var pe *tensorfeed.PanicError
			if !errors.As(last, &pe) || !strings.Contains(last.Error(), "fill of 57") {
				t.Fatalf("pass ended with %v, want a PanicError of the fill", last)
			}
			if fmt.Sprint(got) != fmt.Sprint(lo.Map(seq(0, 50), func(v, _ int) float32 { return float32(v) })) {
				t.Fatalf("before the panic: %v, want 0..49", got)
			}
		})
	}
}

func TestWorkersPanicsBelowOne(t *testing.T) {
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Workers(%d) did not panic", n)
				}
			}()
			pipeline.Workers(n)
		}()
	}
}
