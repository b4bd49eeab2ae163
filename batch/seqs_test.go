package batch_test

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestPadSeqs(t *testing.T) {
	seqs := [][]int32{{1, 2, 3}, {4}, {}, {5, 6}}
	tests := []struct {
		name      string
		in        batch.Batch[[]int32]
		length    int
		opts      []pipeline.SeqOption
		data      []int32
		lens      []int
		b, l      int
		padded    int
		truncated int
		err       error
	}{
		{"longest", batch.Batch[[]int32]{Samples: seqs}, 0, nil,
			[]int32{1, 2, 3, 4, 0, 0, 0, 0, 0, 5, 6, 0}, []int{3, 1, 0, 2}, 4, 3, 0, 0, nil},
		{"fixed longer", batch.Batch[[]int32]{Samples: seqs}, 4, nil,
			[]int32{1, 2, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5, 6, 0, 0}, []int{3, 1, 0, 2}, 4, 4, 0, 0, nil},
		{"fixed exact", batch.Batch[[]int32]{Samples: seqs[:2]}, 3, nil,
			[]int32{1, 2, 3, 4, 0, 0}, []int{3, 1}, 2, 3, 0, 0, nil},
		{"fixed shorter", batch.Batch[[]int32]{Samples: seqs}, 2, nil,
			nil, nil, 0, 0, 0, 0, batch.ErrTooLong},
		{"truncate", batch.Batch[[]int32]{Samples: seqs}, 2, []pipeline.SeqOption{pipeline.Truncate()},
			[]int32{1, 2, 4, 0, 0, 0, 5, 6}, []int{2, 1, 0, 2}, 4, 2, 0, 1, nil},
		{"padded batch", batch.Batch[[]int32]{Samples: [][]int32{{7}, {8, 9}, {7}}, Padded: 1}, 0, nil,
			[]int32{7, 0, 8, 9, 7, 0}, []int{1, 2, 1}, 3, 2, 1, 0, nil},
		{"all empty", batch.Batch[[]int32]{Samples: [][]int32{{}, nil}}, 0, nil,
			[]int32{}, []int{0, 0}, 2, 0, 0, 0, nil},
		{"no rows", batch.Batch[[]int32]{}, 5, nil,
			[]int32{}, []int{}, 0, 5, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := padOne(tt.in, tt.length, 0, tt.opts...)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Data, tt.data) || !reflect.DeepEqual(s.Lens, tt.lens) ||
				len(s.Lens) != tt.b || s.L != tt.l || s.Padded != tt.padded || s.Truncated != tt.truncated {
				t.Errorf("got %+v\nwant data %v lens %v Len %d L %d padded %d truncated %d",
					s, tt.data, tt.lens, tt.b, tt.l, tt.padded, tt.truncated)
			}
			if !reflect.DeepEqual(s.Shape(), []int{tt.b, tt.l}) {
				t.Errorf("Shape %v", s.Shape())
			}
		})
	}
}

func TestPadSeqsErrorNamesRow(t *testing.T) {
	_, err := padOne(batch.Batch[[]int]{Samples: [][]int{{1}, {1, 2, 3}}}, 2, 0)
	if err == nil || !strings.Contains(err.Error(), "row 1 has 3 elements") {
		t.Errorf("error %v does not name row 1 and its length", err)
	}
	if !errors.Is(err, batch.ErrTooLong) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Errorf("error %v does not wrap ErrTooLong and tensorfeed.ErrBadData", err)
	}
}

func TestPadSeqsMaskAndRow(t *testing.T) {
	s, err := padOne(batch.Batch[[]float32]{Samples: [][]float32{{1, 2}, {3}, {}}}, 3, -1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint8{1, 1, 0, 1, 0, 0, 0, 0, 0}; !reflect.DeepEqual(s.Mask(), want) {
		t.Errorf("Mask %v, want %v", s.Mask(), want)
	}
	if want := []float32{3, -1, -1}; !reflect.DeepEqual(s.Data[s.L:2*s.L], want) {
		t.Errorf("row 1 %v, want %v", s.Data[s.L:2*s.L], want)
	}
}

func TestPadSeqsCopies(t *testing.T) {
	in := [][]int{{1, 2}, {3}}
	s, err := padOne(batch.Batch[[]int]{Samples: in}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	in[0][0] = 99
	if s.Data[0] != 1 {
		t.Error("PadSeqs shares memory with its input")
	}
}

func TestPadSeqsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a negative length")
		}
	}()
	padOne(batch.Batch[[]int]{}, -1, 0)
}

// padSeqs pads every batch of r as pipeline.PadSeqs does, the step that
// applies PadSeqs to a stream of batches.
func padSeqs[E any](r source.Reader[batch.Batch[[]E]], length int, pad E) source.Reader[batch.Seqs[E]] {
	return pipeline.PadSeqs(pipeline.From(r), length, pad)
}

func TestPadSeqsStream(t *testing.T) {
	seqs := [][]int{{1}, {2, 3}, {4, 5, 6}, {7}, {8, 9, 10, 11}}
	r := padSeqs(batch.Of(source.Slice(seqs), 2, batch.Keep), 0, -1)
	got, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	want := []batch.Seqs[int]{
		{Data: []int{1, -1, 2, 3}, Lens: []int{1, 2}, L: 2},
		{Data: []int{4, 5, 6, 7, -1, -1}, Lens: []int{3, 1}, L: 3},
		{Data: []int{8, 9, 10, 11}, Lens: []int{4}, L: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	// A fixed length: the second batch is too long; the error names it.
	var n int
	var last error
	for _, err := range padSeqs(batch.Of(source.Slice(seqs), 2, batch.Keep), 2, -1).All(context.Background()) {
		if err != nil {
			last = err
			continue
		}
		n++
	}
	if n != 1 || !errors.Is(last, batch.ErrTooLong) || !strings.Contains(last.Error(), "batch 1 of the pass") {
		t.Errorf("%d batches, error %v; want 1 and ErrTooLong in batch 1", n, last)
	}

	// Upstream errors pass through once; early break stops.
	boom := errors.New("boom")
	up := source.Func[batch.Batch[[]int]](func(ctx context.Context) iter.Seq2[batch.Batch[[]int], error] {
		return func(yield func(batch.Batch[[]int], error) bool) {
			if yield(batch.Batch[[]int]{Samples: [][]int{{1}}}, nil) {
				yield(batch.Batch[[]int]{}, boom)
			}
		}
	})
	var errs int
	for _, err := range padSeqs(up, 0, 0).All(context.Background()) {
		if err != nil {
			if !errors.Is(err, boom) {
				t.Errorf("error %v, want boom", err)
			}
			errs++
		}
	}
	if errs != 1 {
		t.Errorf("%d errors, want 1", errs)
	}
	for range padSeqs(up, 0, 0).All(context.Background()) {
		break // must not call yield again
	}
}
