package gostreams_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/extension"
	"github.com/reugn/go-streams/flow"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/pipeline/gostreams"
	"github.com/tensorfeed/tensorfeed/source"
)

func ExampleTee() {
	batches := pipeline.Batch(pipeline.From(source.Slice([]int{1, 2, 3, 4, 5, 6})), 2, batch.Keep)
	seen := 0
	teed := gostreams.Tee(batches, func(b batch.Batch[int]) error {
		seen += len(b.Samples) // a second consumer: statistics, a dump, a preview
		return nil
	})
	for b, err := range teed.All(context.Background()) {
		if err != nil {
			panic(err)
		}
		fmt.Println(b.Samples)
	}
	fmt.Println("side consumer saw", seen, "samples") // safe: the pass has joined it
	// Output:
	// [1 2]
	// [3 4]
	// [5 6]
	// side consumer saw 6 samples
}

func ExampleTeeSink() {
	p := gostreams.TeeSink(pipeline.From(source.Slice([]string{"x", "y"})), func() streams.Sink {
		return extension.NewStdoutSink() // a go-streams sink: prints every element
	})
	n, err := source.Count(context.Background(), p)
	fmt.Println(n, err)
	// Output:
	// x
	// y
	// 2 <nil>
}

func ExampleTo() {
	upper := flow.NewMap(strings.ToUpper, 1)
	src := gostreams.To(context.Background(), source.Slice([]string{"go", "streams"}))
	src.Via(upper).To(extension.NewStdoutSink())
	fmt.Println("err:", src.Err())
	// Output:
	// GO
	// STREAMS
	// err: <nil>
}

func ExampleFrom() {
	p := gostreams.From[int](func(ctx context.Context) streams.Outlet {
		ch := make(chan any)
		go func() { // a go-streams source fed from elsewhere: closes on ctx
			defer close(ch)
			for _, e := range []any{1, 2, "three", 4} {
				select {
				case ch <- e:
				case <-ctx.Done():
					return
				}
			}
		}()
		return extension.NewChanSource(ch)
	})
	for v, err := range p.All(context.Background()) {
		fmt.Println(v, err, errors.Is(err, gostreams.ErrType))
	}
	// Output:
	// 1 <nil> false
	// 2 <nil> false
	// 0 gostreams: element of the wrong type: element 2 is string, want int true
}

func ExampleVia() {
	batches := pipeline.Batch(pipeline.From(source.Slice([]float64{1, 2, 3, 4, 5})), 2, batch.Keep)
	// Batches are carried across go-streams as pointers.
	ptrs := pipeline.Map(batches, func(b batch.Batch[float64]) *batch.Batch[float64] { return &b })
	scaled := gostreams.Via[*batch.Batch[float64], *batch.Batch[float64]](ptrs, func(s streams.Source) streams.Outlet {
		return s.Via(flow.NewMap(gostreams.Guard(func(b *batch.Batch[float64]) (*batch.Batch[float64], error) {
			if len(b.Samples) < 2 {
				return nil, fmt.Errorf("short batch %v", b.Samples)
			}
			for i := range b.Samples {
				b.Samples[i] *= 10
			}
			return b, nil
		}), 1))
	})
	for b, err := range scaled.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(b.Samples)
	}
	// Output:
	// [10 20]
	// [30 40]
	// error: short batch [5]
}

func ExampleGuard() {
	// go-streams operators serve a single stream: make them inside the
	// function, which runs once per pass.
	q := gostreams.Via[int, int](pipeline.From(source.Slice([]int{2, 4, 5, 6})), func(s streams.Source) streams.Outlet {
		return s.Via(flow.NewMap(gostreams.Guard(func(x int) (int, error) {
			if x%2 != 0 {
				panic(fmt.Sprintf("odd %d", x))
			}
			return x / 2, nil
		}), 1))
	})
	for v, err := range q.All(context.Background()) {
		var pe *tensorfeed.PanicError
		if errors.As(err, &pe) {
			fmt.Println("panic:", pe.Value)
			break
		}
		fmt.Println(v)
	}
	// Output:
	// 1
	// 2
	// panic: odd 5
}
