package sink_test

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// digit is a tiny image with its class.
type digit struct {
	Pix   [4]uint8 // 2x2 gray
	Class int
}

var digits = []digit{
	{[4]uint8{0, 255, 255, 0}, 1},
	{[4]uint8{255, 0, 0, 255}, 2},
	{[4]uint8{255, 255, 0, 0}, 0},
}

func digitSink(batchSize int) *sink.Sink[digit] {
	return sink.New(batchSize,
		[]sink.Field[digit]{
			sink.Float32("image", []int{2, 2}, func(d digit, dst []float32) {
				for i, p := range d.Pix {
					dst[i] = float32(p) / 255
				}
			}),
		},
		[]sink.Field[digit]{
			sink.Int64("label", nil, func(d digit, dst []int64) { dst[0] = int64(d.Class) }),
		})
}

func ExampleNew() {
	s := digitSink(2)
	// The schema is known before any data: build the model from it.
	fmt.Println("data", s.ProvideData())
	fmt.Println("label", s.ProvideLabel())

	ts, err := s.Assemble(batch.Batch[digit]{Samples: digits[:2]})
	if err != nil {
		panic(err)
	}
	img, _ := ts.Get("image")
	lbl, _ := ts.Get("label")
	fmt.Println(img.Shape, img.F32)
	fmt.Println(lbl.Shape, lbl.I64)
	// Output:
	// data [image float32[2 2 2]]
	// label [label int64[2]]
	// [2 2 2] [0 1 1 0 1 0 0 1]
	// [2] [1 2]
}

func Example_tensorize() {
	// Three samples in batches of two: the last batch is padded with the
	// first sample of the pass, and Padded says so.
	r := pipeline.Tensorize(pipeline.From(source.Slice(digits)), digitSink(2), batch.Pad)
	for ts, err := range r.All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ts.Label[0].I64, "padded", ts.Padded)
	}
	// Output:
	// [1 2] padded 0
	// [0 1] padded 1
}

func Example_shortBatch() {
	// With batch.Keep the last batch is short: its tensors have a smaller
	// batch dimension than ProvideData announces.
	s := digitSink(2)
	fmt.Println(s.ProvideData()[0].Shape)
	for ts, err := range pipeline.Tensorize(pipeline.From(source.Slice(digits)), s, batch.Keep).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ts.Data[0].Shape)
	}
	// Output:
	// [2 2 2]
	// [2 2 2]
	// [1 2 2]
}

func Example_split() {
	// Five samples over two devices: 3 and 2 rows, views of one batch. The
	// padding sample is the last row, so it lands on the last device.
	s := digitSink(5)
	b := batch.Batch[digit]{Samples: []digit{digits[0], digits[1], digits[2], digits[0], digits[1]}, Padded: 1}
	ts, err := s.Assemble(b)
	if err != nil {
		panic(err)
	}
	for i, part := range ts.Split(2) {
		fmt.Println("device", i, part.Label[0].Shape, part.Label[0].I64, "padded", part.Padded)
	}
	// Output:
	// device 0 [3] [1 2 0] padded 0
	// device 1 [2] [1 2] padded 1
}

// word is a sample with more members than the model reads.
type word struct {
	ID    int32
	Freq  float32
	Token string // for humans only: no field reads it
}

func Example_feedingMap() {
	// PaddlePaddle's feeding map: the ID member feeds two inputs (the
	// embedding lookup and the target), Token feeds none.
	s := sink.New(2,
		[]sink.Field[word]{
			sink.Int32("ids", nil, func(w word, dst []int32) { dst[0] = w.ID }),
			sink.Float32("freq", nil, func(w word, dst []float32) { dst[0] = w.Freq }),
		},
		[]sink.Field[word]{
			sink.Int64("target", nil, func(w word, dst []int64) { dst[0] = int64(w.ID) }),
		})
	ts, err := s.Assemble(batch.Batch[word]{Samples: []word{{7, 0.5, "cat"}, {3, 0.25, "dog"}}})
	if err != nil {
		panic(err)
	}
	ids, _ := ts.Get("ids")
	target, _ := ts.Get("target")
	freq, _ := ts.Get("freq")
	fmt.Println(ids.I32, target.I64, freq.F32)
	_, ok := ts.Get("Token")
	fmt.Println("Token fed:", ok)
	// Output:
	// [7 3] [7 3] [0.5 0.25]
	// Token fed: false
}

func Example_customBatchReader() {
	// PaddlePaddle's custom_batch_reader: any source.Reader[batch.Batch[T]]
	// plugs into a sink through TensorizeBatches. This one puts samples of the same class together.
	byClass := source.Func[batch.Batch[digit]](func(ctx context.Context) iter.Seq2[batch.Batch[digit], error] {
		return func(yield func(batch.Batch[digit], error) bool) {
			groups := map[int][]digit{}
			for _, d := range append(digits, digits...) {
				groups[d.Class] = append(groups[d.Class], d)
			}
			for class := range 3 {
				if !yield(batch.Batch[digit]{Samples: groups[class]}, nil) {
					return
				}
			}
		}
	})
	for ts, err := range pipeline.TensorizeBatches(pipeline.From(byClass), digitSink(2)).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ts.Label[0].I64)
	}
	// Output:
	// [0 0]
	// [1 1]
	// [2 2]
}

// token is a sample whose ids come as a slice of any length.
type token struct {
	IDs   []int32
	Label int64
}

func ExampleSlice() {
	// Slice copies a member into the tensor and checks its length; the
	// label is computed by a fill. The fourth sample has two ids where
	// the field wants three.
	s := sink.New(2,
		[]sink.Field[token]{sink.Slice("ids", []int{3}, func(t token) []int32 { return t.IDs })},
		[]sink.Field[token]{sink.Int64("label", nil, func(t token, dst []int64) { dst[0] = t.Label })})
	tokens := []token{{[]int32{1, 2, 3}, 0}, {[]int32{4, 5, 6}, 1}, {[]int32{7, 8, 9}, 1}, {[]int32{10, 11}, 0}}
	for ts, err := range pipeline.Tensorize(pipeline.From(source.Slice(tokens)), s, batch.Keep).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			fmt.Println("bad data:", errors.Is(err, tensorfeed.ErrBadData))
			break
		}
		fmt.Println(ts.Data[0].I32, ts.Label[0].I64)
	}
	// Output:
	// [1 2 3 4 5 6] [0 1]
	// batch 1 of the pass: sink: sample does not fit its field: tensorfeed: bad data: field "ids", row 1 of the batch: 2 elements, want 3 (shape [3])
	// bad data: true
}
