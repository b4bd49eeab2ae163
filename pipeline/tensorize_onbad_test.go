package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// fillSample is a sample of the OnBad tests: its index, and whether its
// "image" cannot be decoded (its fill fails) or its fill fails with an
// error that is not about the data.
type fillSample struct {
	I        int
	Bad, Odd bool
}

// errOdd is a fill error that is not bad data.
var errOdd = errors.New("fill: out of scratch memory")

// fillSink fills "data" [3] float32 from the index, failing for a bad
// sample with a positioned error as a decoder's would be, and "label"
// int32.
func fillSink(size int) *sink.Sink[fillSample] {
	data := sink.Fill("data", []int{3}, func(s fillSample, dst []float32) error {
		if s.Odd {
			return errOdd
		}
		if s.Bad {
			return &tensorfeed.Error{Path: "photos.rec", Offset: int64(100 * s.I), Record: int64(s.I),
				Err: fmt.Errorf("not a JPEG: %w", tensorfeed.ErrBadData)}
		}
		dst[0], dst[1], dst[2] = float32(s.I), float32(2*s.I), float32(-s.I)
		return nil
	})
	label := sink.Int32("label", nil, func(s fillSample, dst []int32) { dst[0] = int32(s.I % 7) })
	return sink.New(size, []sink.Field[fillSample]{data}, []sink.Field[fillSample]{label})
}

// fillData returns n samples, those at bad marked bad.
func fillData(n int, bad ...int) []fillSample {
	d := make([]fillSample, n)
	for i := range d {
		d[i] = fillSample{I: i, Bad: slices.Contains(bad, i)}
	}
	return d
}

// fillFeed is ReadIndexed over d -> Tensorize with fillSink(size).
func fillFeed(d []fillSample, size int, last batch.Policy, opts ...pipeline.TensorizeOption) *pipeline.Pipe[*tensor.Batch] {
	return pipeline.Tensorize(pipeline.From[fillSample](source.ReadIndexed(source.IndexSlice(d))), fillSink(size), last, opts...)
}

// fillSnap is what a batch holds.
func fillSnap(t *tensor.Batch) string {
	return fmt.Sprint(t.Padded, t.Data[0].Shape, t.Data[0].F32, t.Label[0].I32)
}

// fillPass runs one pass of epoch 0 of feed and returns the batches before
// its error, and the error.
func fillPass(feed *pipeline.Pipe[*tensor.Batch]) ([]string, error) {
	var got []string
	for b, err := range feed.All(source.WithEpoch(context.Background(), 0)) {
		if err != nil {
			return got, err
		}
		got = append(got, fillSnap(b))
		b.Release()
	}
	return got, nil
}

// Without a policy, a fill that fails ends the pass with its positioned
// error after the batches before its own, whatever the number of workers.
func TestTensorizeFillErrorEndsPass(t *testing.T) {
	d := fillData(100, 37)
	for _, w := range workerCounts {
		t.Run(w.name, func(t *testing.T) {
			got, err := fillPass(fillFeed(d, 8, batch.Keep, w.opt...))
			var pe *tensorfeed.Error
			if !errors.As(err, &pe) || pe.Record != 37 || pe.Offset != 3700 || pe.Path != "photos.rec" || !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("error %v, want the fill's error about record 37", err)
			}
			if len(got) != 4 {
				t.Fatalf("%d batches before the error, want 4", len(got))
			}
		})
	}
}

// With OnBad, the samples whose fill fails are dropped, counted and
// reported, and the rows after them close up: the batches are those of the
// good samples alone, for any number of workers, epoch after epoch.
func TestTensorizeOnBadClosesUp(t *testing.T) {
	bad := []int{9, 10, 17, 40, 41, 42, 43, 44, 45, 46, 47, 150, 199}
	d := fillData(200, bad...)
	var good []fillSample
	for _, s := range d {
		if !s.Bad {
			good = append(good, s)
		}
	}
	for _, last := range []batch.Policy{batch.Keep, batch.Drop} {
		want := epochSnapsOf(t, fillFeed(good, 8, last), 2, fillSnap)
		for _, w := range workerCounts {
			t.Run(fmt.Sprintf("%v/%s", last, w.name), func(t *testing.T) {
				var reported []error
				policy := source.SkipBad(0.5, source.OnSkip(func(err error) { reported = append(reported, err) }))
				feed := fillFeed(d, 8, last, append(slices.Clone(w.opt), pipeline.OnBad(policy))...)
				got := epochSnapsOf(t, feed, 2, fillSnap)
				if !slices.Equal(got, want) {
					t.Fatalf("batches:\n%v\nwant\n%v", got, want)
				}
				if len(reported) != 2*len(bad) || policy.Skipped() != int64(2*len(bad)) {
					t.Fatalf("%d reported, %d skipped; want %d", len(reported), policy.Skipped(), 2*len(bad))
				}
				var pe *tensorfeed.Error
				if !errors.As(reported[0], &pe) || pe.Record != 9 {
					t.Fatalf("first report %v, want record 9's error", reported[0])
				}
				if s := feed.Stats().Last(); s.Name != "tensorize" || s.Skipped != int64(2*len(bad)) {
					t.Fatalf("stats %+v, want tensorize with %d skipped", s, 2*len(bad))
				}
			})
		}
	}
}

// Under Pad, the rows of a last batch left short by dropped samples are
// padding that repeats its first rows, counted in Padded; a batch of
// padding alone is not yielded.
func TestTensorizeOnBadPad(t *testing.T) {
	d := fillData(21, 3, 19) // 19 good: 2 full batches and 3 rows, then the 3 padding rows of the input
	got, err := fillPass(fillFeed(d, 8, batch.Pad, pipeline.OnBad(source.SkipBad(0.5))))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 [8 3] [0 0 0 1 2 -1 2 4 -2 4 8 -4 5 10 -5 6 12 -6 7 14 -7 8 16 -8] [0 1 2 4 5 6 0 1]",
		"0 [8 3] [9 18 -9 10 20 -10 11 22 -11 12 24 -12 13 26 -13 14 28 -14 15 30 -15 16 32 -16] [2 3 4 5 6 0 1 2]",
		"5 [8 3] [17 34 -17 18 36 -18 20 40 -20 0 0 0 1 2 -1 2 4 -2 17 34 -17 18 36 -18] [3 4 6 0 1 2 3 4]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("batches:\n%q\nwant\n%q", got, want)
	}
	// Every sample bad but the padding's: the padding alone is no batch.
	all := fillData(5, 0, 1, 2, 3, 4)
	if got, err := fillPass(fillFeed(all, 8, batch.Pad, pipeline.OnBad(source.SkipBad(1)))); len(got) != 0 || !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("all bad: %d batches, error %v; want none and ErrTooManyBad", len(got), err)
	}
}

// A run with dropped samples stopped after k batches and resumed, with
// another number of workers, delivers the batches of an uninterrupted
// run.
func TestTensorizeOnBadResume(t *testing.T) {
	d := fillData(200, 9, 10, 17, 40, 41, 42, 43, 44, 45, 46, 47, 150, 199)
	const epochs = 2
	policy := source.SkipBad(0.5)
	want := epochSnapsOf(t, fillFeed(d, 8, batch.Keep, pipeline.OnBad(policy)), epochs, fillSnap)
	for _, pair := range [][2]int{{0, 2}, {2, 3}, {4, 1}} {
		stopW, resumeW := workerCounts[pair[0]], workerCounts[pair[1]]
		for _, k := range []int{1, 5, 23, 24, 30} {
			t.Run(fmt.Sprintf("%s-%s/%d", stopW.name, resumeW.name, k), func(t *testing.T) {
				got, _ := stopResume(t, fillFeed(d, 8, batch.Keep, append(slices.Clone(stopW.opt), pipeline.OnBad(policy))...),
					fillFeed(d, 8, batch.Keep, append(slices.Clone(resumeW.opt), pipeline.OnBad(policy))...), k, epochs, fillSnap)
				if !slices.Equal(got, want) {
					t.Fatalf("batches:\n%v\nwant\n%v", got, want)
				}
			})
		}
	}
}

// The policy's bound ends the pass; so does a fill error that is not
// about the data, whatever the policy.
func TestTensorizeOnBadEnds(t *testing.T) {
	d := fillData(100, 5, 6, 7, 8)
	_, err := fillPass(fillFeed(d, 8, batch.Keep, pipeline.OnBad(source.SkipBad(0.02))))
	if !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("over the bound: %v, want ErrTooManyBad", err)
	}
	d = fillData(100, 5)
	d[30].Odd = true
	for _, w := range workerCounts {
		got, err := fillPass(fillFeed(d, 8, batch.Keep, append(slices.Clone(w.opt), pipeline.OnBad(source.SkipBad(1)))...))
		if !errors.Is(err, errOdd) || len(got) != 3 {
			t.Fatalf("%s: %d batches, then %v; want 3, then %v", w.name, len(got), err, errOdd)
		}
	}
}

// A run with dropped samples resumes at the batch that holds the row after
// the last one delivered: the resumed pass fills only the samples from
// there on, not the pass's earlier batches again, and delivers the batches
// of an uninterrupted run, with any number of workers; the skip policy's
// counts go on from the stopped pass's.
func TestTensorizeOnBadResumeFillsOnlyTheRest(t *testing.T) {
	d := fillData(200, 3, 9, 10, 17, 40, 41, 42, 43, 150, 199)
	policy := source.SkipBad(0.5)
	feed := func(fills *atomic.Int64, opts ...pipeline.TensorizeOption) *pipeline.Pipe[*tensor.Batch] {
		s := fillSink(8)
		data := sink.Fill("data", []int{3}, func(x fillSample, dst []float32) error {
			fills.Add(1)
			if x.Bad {
				return &tensorfeed.Error{Path: "photos.rec", Record: int64(x.I), Err: fmt.Errorf("not a JPEG: %w", tensorfeed.ErrBadData)}
			}
			dst[0], dst[1], dst[2] = float32(x.I), float32(2*x.I), float32(-x.I)
			return nil
		})
		label := sink.Int32("label", nil, func(x fillSample, dst []int32) { dst[0] = int32(x.I % 7) })
		s = sink.New(s.BatchSize(), []sink.Field[fillSample]{data}, []sink.Field[fillSample]{label})
		return pipeline.Tensorize(pipeline.From[fillSample](source.ReadIndexed(source.IndexSlice(d))), s, batch.Keep,
			append(opts, pipeline.OnBad(policy))...)
	}
	var all atomic.Int64
	want := epochSnapsOf(t, feed(&all), 1, fillSnap)
	for _, w := range workerCounts {
		for _, k := range []int{1, 5, 19, 23} {
			t.Run(fmt.Sprintf("%s/%d", w.name, k), func(t *testing.T) {
				var fills atomic.Int64
				got, state := stopResume(t, feed(&all, w.opt...), feed(&fills, w.opt...), k, 1, fillSnap)
				if !slices.Equal(got, want) {
					t.Fatalf("%d batches, want %d; first differing at %d", len(got), len(want), firstDiff(got, want))
				}
				// k batches of 8 delivered: at least 8k samples are behind
				// the resume point, and at most one batch of them is
				// filled again (more workers fill at most a batch more
				// each, ahead, at the end of the pass).
				if n, most := fills.Load(), int64(len(d)-8*k+8); n > most {
					t.Errorf("the resumed pass filled %d samples, want at most %d (checkpoint %s)", n, most, state)
				}
			})
		}
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A state that holds the batch count alone (a checkpoint written before
// Tensorize recorded its points under OnBad) still resumes exactly, by
// replay.
func TestTensorizeOnBadResumeByReplay(t *testing.T) {
	d := fillData(200, 3, 9, 10, 17, 40, 41, 42, 43, 150, 199)
	feed := func() *pipeline.Pipe[*tensor.Batch] {
		return fillFeed(d, 8, batch.Keep, pipeline.OnBad(source.SkipBad(0.5)))
	}
	want := epochSnapsOf(t, feed(), 1, fillSnap)
	start, err := feed().Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const k = 11
	got, _ := stopEditResume(t, feed(), feed(), k, 1, fillSnap, func(ck *pipeline.Checkpoint) {
		if ck.State.Kind != "tensorize" || len(ck.State.Pos) != 6 {
			t.Fatalf("state %v, want tensorize's point", ck.State)
		}
		ck.State.Pos, ck.State.In = []int64{k}, start.State.In
	})
	if !slices.Equal(got, want) {
		t.Fatalf("%d batches, want %d; first differing at %d", len(got), len(want), firstDiff(got, want))
	}
}
