package pipeline_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// A whole pipeline: a slice of numbers becomes shuffled batches of tensors,
// two epochs long.
func Example() {
	type point struct {
		X [2]float32
		Y int32
	}
	p := pipeline.Map(pipeline.From(source.Slice([]int{0, 1, 2, 3, 4, 5, 6, 7})), func(i int) point {
		return point{X: [2]float32{float32(i), float32(i * i)}, Y: int32(i % 2)}
	}).Shuffle(8, 42)
	s := sink.New(4,
		[]sink.Field[point]{sink.Float32("x", []int{2}, func(p point, dst []float32) { copy(dst, p.X[:]) })},
		[]sink.Field[point]{sink.Int32("y", nil, func(p point, dst []int32) { dst[0] = p.Y })})
	tensors := pipeline.Tensorize(p, s, batch.Drop) // batches of 4, the sink's size

	for epoch, pass := range tensors.Epochs(context.Background(), 2) {
		for ts, err := range pass {
			if err != nil {
				panic(err)
			}
			x, _ := ts.Get("x")
			y, _ := ts.Get("y")
			fmt.Println(epoch, x.Shape, x.F32[:4], y.I32)
			ts.Release() // the next batch may reuse this memory
		}
	}
	// Output:
	// 0 [4 2] [0 0 3 9] [0 1 0 0]
	// 0 [4 2] [5 25 1 1] [1 1 1 0]
	// 1 [4 2] [2 4 4 16] [0 0 1 0]
	// 1 [4 2] [3 9 7 49] [1 1 1 0]
}

func ExampleFrom() {
	p := pipeline.From(source.Slice([]int{1, 2, 3, 4, 5, 6, 7, 8, 9})).
		Filter(func(x int) bool { return x%2 == 1 }).
		Skip(1).
		Take(3)
	squares := pipeline.Map(p, func(x int) int { return x * x })
	got, err := source.Collect(context.Background(), squares)
	fmt.Println(got, err)
	// Output:
	// [9 25 49] <nil>
}

func ExamplePipe_Epochs() {
	p := pipeline.From(source.Slice([]int{1, 2, 3, 4, 5})).Shuffle(5, 7)
	for epoch, pass := range p.Epochs(context.Background(), 3) {
		var order []int
		for v, err := range pass {
			if err != nil {
				panic(err)
			}
			order = append(order, v)
		}
		fmt.Println("epoch", epoch, order)
	}
	// Output:
	// epoch 0 [3 5 2 4 1]
	// epoch 1 [5 2 3 4 1]
	// epoch 2 [2 3 4 1 5]
}

// Epochs of batches with the last one padded: the loop body sees every
// batch with its epoch.
func ExamplePipe_Epochs_batches() {
	p := pipeline.Batch(pipeline.From(source.Slice([]string{"a", "b", "c", "d", "e"})), 2, batch.Pad)
	for epoch, pass := range p.Epochs(context.Background(), 2) {
		for b, err := range pass {
			if err != nil {
				panic(err)
			}
			fmt.Println(epoch, b.Samples, "padded", b.Padded)
		}
	}
	// Output:
	// 0 [a b] padded 0
	// 0 [c d] padded 0
	// 0 [e a] padded 1
	// 1 [a b] padded 0
	// 1 [c d] padded 0
	// 1 [e a] padded 1
}

func ExamplePipe_Stats() {
	p := pipeline.From(source.Slice(make([]int, 1000))).Named("zeros").
		Filter(func(int) bool { return true }).
		Take(100).Named("first-100")
	batches := pipeline.Batch(p, 32, batch.Keep)
	if _, err := source.Count(context.Background(), batches); err != nil {
		panic(err)
	}
	for _, s := range batches.Stats() {
		fmt.Printf("%-10s passes %d samples %d busy+wait=wall %v\n", s.Name, s.Passes, s.Samples, s.Busy+s.Wait == s.Wall)
	}
	// Output:
	// zeros      passes 1 samples 100 busy+wait=wall true
	// filter     passes 1 samples 100 busy+wait=wall true
	// first-100  passes 1 samples 100 busy+wait=wall true
	// batch      passes 1 samples 4 busy+wait=wall true
}

// A pipeline logs through the logger of the context its passes run with.
func Example_logger() {
	core, logs := observer.New(zapcore.InfoLevel) // any *zap.Logger; zap.NewProduction() in a program
	ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
	p := pipeline.From(source.Slice([]int{1, 2, 3})).Take(2)
	for _, pass := range p.Epochs(ctx, 2) {
		for _, err := range pass {
			if err != nil {
				panic(err)
			}
		}
	}
	for _, e := range logs.All() {
		f := e.ContextMap()
		fmt.Println(e.Message, "epoch", f["epoch"], "samples", f["samples"], "stages", len(f["stages"].([]any)))
	}
	// Output:
	// epoch done epoch 0 samples 2 stages 2
	// epoch done epoch 1 samples 2 stages 2
}

func ExampleFanIn() {
	train := pipeline.From(source.Slice([]string{"a1", "a2", "a3"}))
	extra := source.Slice([]string{"b1", "b2"})
	both := pipeline.FanIn([]source.Reader[string]{train, extra}, 4)
	got, err := source.Collect(context.Background(), both)
	slices.Sort(got) // the interleaving depends on timing
	fmt.Println(got, err)
	// Output:
	// [a1 a2 a3 b1 b2] <nil>
}

// A report of a pipe whose decoding is slow: the training loop waits for
// data most of the time, and the report names the step to speed up. Use
// fmt.Print(feed.Stats().Report()) for the whole table; times vary from run to run,
// so this example prints only what does not.
func ExampleStats_Report_bottleneck() {
	files := pipeline.From(source.Slice([]string{"a.jpg", "b.jpg", "c.jpg", "d.jpg", "e.jpg", "f.jpg"}))
	decoded := pipeline.Map(files, func(name string) int {
		time.Sleep(2 * time.Millisecond) // a slow decoder
		return len(name)
	}).Named("decode")
	feed := pipeline.Batch(decoded.Shuffle(6, 1), 2, batch.Keep)

	for epoch, pass := range feed.Epochs(context.Background(), 2) {
		before := feed.Stats()
		for b, err := range pass {
			if err != nil {
				panic(err)
			}
			_ = b // a fast training step
		}
		r := feed.Stats().Sub(before).Report() // this epoch only
		fmt.Printf("epoch %d: slowest step %s, waited for data more than half the time: %v\n",
			epoch, r.Slowest.Name, r.WaitedFraction() > 0.5)
	}
	r := feed.Stats().Report() // every epoch
	fmt.Println("in all:", r.Slowest.Name, r.Slowest.Samples, "samples")
	// Output:
	// epoch 0: slowest step decode, waited for data more than half the time: true
	// epoch 1: slowest step decode, waited for data more than half the time: true
	// in all: decode 12 samples
}

// The report of a snapshot, here one made by hand: files are read by a
// source, decoded by 4 workers, batched, assembled into tensors and
// prefetched while the model trains.
func ExampleStats_Report() {
	ms := time.Millisecond
	epoch := pipeline.Stats{
		{Name: "files", Passes: 1, Samples: 6400, Wall: 4000 * ms, Busy: 300 * ms, Wait: 3700 * ms, Self: 300 * ms},
		{Name: "decode", Passes: 1, Samples: 6400, Wall: 4000 * ms, Busy: 3400 * ms, Wait: 600 * ms, Self: 3100 * ms},
		{Name: "batch", Passes: 1, Samples: 100, Wall: 4000 * ms, Busy: 3450 * ms, Wait: 550 * ms, Self: 50 * ms},
		{Name: "tensorize", Passes: 1, Samples: 100, Wall: 4000 * ms, Busy: 3700 * ms, Wait: 300 * ms, Self: 250 * ms},
		{Name: "buffered", Passes: 1, Samples: 100, Wall: 4010 * ms, Busy: 1210 * ms, Wait: 2800 * ms},
	}
	fmt.Print(epoch.Report())
	// Output:
	// waited for data: 1.21s of 4.01s (30%)
	// slowest step:    decode, 3.1s of its own (78% of its wall)
	// stage      passes  samples  skipped   wall   busy   wait   self  per s
	// files           1     6400        0     4s  300ms   3.7s  300ms   1600
	// decode          1     6400        0     4s   3.4s  600ms   3.1s   1600  <- slowest
	// batch           1      100        0     4s  3.45s  550ms   50ms     25
	// tensorize       1      100        0     4s   3.7s  300ms  250ms     25
	// buffered        1      100        0  4.01s  1.21s   2.8s     0s     25
}

func ExampleZip3() {
	images := pipeline.From(source.Slice([]string{"cat.jpg", "dog.jpg"}))
	labels := source.Slice([]int32{3, 5})
	weights := source.Slice([]float32{1, 0.5})
	for t, err := range pipeline.Zip3(images, labels, weights).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(t.A, t.B, t.C)
	}
	// Output:
	// cat.jpg 3 1
	// dog.jpg 5 0.5
}

func ExampleZip4() {
	ids := pipeline.From(source.Slice([]int{7, 8}))
	z := pipeline.Zip4(ids, source.Slice([]string{"a", "b"}), source.Slice([]bool{true, false}),
		pipeline.From(source.Slice([]float64{0.1, 0.2})).Named("scores"))
	got, err := source.Collect(context.Background(), z)
	fmt.Println(got, err)
	for _, s := range z.Stats() {
		fmt.Print(s.Name, " ")
	}
	fmt.Println()
	// Output:
	// [{7 a true 0.1} {8 b false 0.2}] <nil>
	// source scores zip
}

func ExamplePadSeqs() {
	sentences := pipeline.From(source.Slice([][]int32{{4, 8, 15}, {16}, {23, 42}}))
	batches := pipeline.Batch(sentences, 2, batch.Keep, batch.Recycling())
	for s, err := range pipeline.PadSeqs(batches, 0, -1).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(s.Shape(), s.Data, "lens", s.Lens, "mask", s.Mask())
	}
	// Output:
	// [2 3] [4 8 15 16 -1 -1] lens [3 1] mask [1 1 1 1 0 0]
	// [1 2] [23 42] lens [2] mask [1 1]
}
