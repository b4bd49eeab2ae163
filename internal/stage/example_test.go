package stage_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// printPass runs one pass of r and prints its samples on one line, or the error
// that ended it.
func printPass[T any](r source.Reader[T]) {
	var parts []string
	for s, err := range r.All(context.Background()) {
		if err != nil {
			parts = append(parts, "error: "+err.Error())
			break
		}
		parts = append(parts, fmt.Sprint(s))
	}
	fmt.Println(strings.Join(parts, " "))
}

func ExampleMap() {
	pixels := source.Slice([]uint8{0, 51, 255})
	scaled := stage.Map(pixels, func(p uint8) float32 { return float32(p) / 255 })
	printPass(scaled)
	// Output: 0 0.2 1
}

func ExampleMapErr() {
	fields := source.Slice([]string{"3", "14", "x", "15"})
	parsed := stage.MapErr(fields, strconv.Atoi)
	printPass(parsed)
	// Output: 3 14 error: stage.MapErr: sample 2: strconv.Atoi: parsing "x": invalid syntax
}

func ExampleFilter() {
	r := stage.Filter(source.Slice([]int{1, 2, 3, 4, 5, 6}), func(x int) bool { return x%3 == 0 })
	printPass(r)
	// Output: 3 6
}

func ExampleTake() {
	// Take ends an endless reader.
	printPass(stage.Take(source.Constant("ping", -1), 3))
	// Output: ping ping ping
}

func ExampleSkip() {
	printPass(stage.Skip(source.Slice([]string{"header", "a", "b"}), 1))
	// Output: a b
}

func ExampleChain() {
	train := source.Slice([]string{"t1", "t2"})
	extra := source.Slice([]string{"e1"})
	printPass(stage.Chain(train, extra))
	// Output: t1 t2 e1
}

func ExampleZip2() {
	images := source.Slice([]string{"img0", "img1", "img2"})
	labels := source.Slice([]int{7, 2, 1})
	pairs := stage.Zip2(images, labels)
	for p, err := range pairs.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.A, p.B)
	}

	// Readers of different lengths are an error.
	_, err := source.Collect(context.Background(), stage.Zip2(images, source.Slice([]int{7, 2})))
	fmt.Println(errors.Is(err, stage.ErrNotAligned), err)
	// Output:
	// img0 7
	// img1 2
	// img2 1
	// true stage.Zip: reader 1 ended after 2 samples, reader 0 has more: stage: zipped readers not aligned
}

func ExampleShortest() {
	// A GAN's discriminator input: real samples, endless noise and a
	// constant label. Shortest stops at the end of the real samples.
	samples := source.Slice([]string{"r0", "r1"})
	noise := source.Uniform(2, -1, 1, 42)
	label := source.Constant(true, -1)
	for t, err := range stage.Zip3(samples, noise, label, stage.Shortest()).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.A, len(t.B), t.C)
	}
	// Output:
	// r0 2 true
	// r1 2 true
}

func ExampleZip3() {
	r := stage.Zip3(source.Slice([]int{1, 2}), source.Slice([]string{"a", "b"}), source.Slice([]bool{true, false}))
	printPass(r)
	// Output: {1 a true} {2 b false}
}

func ExampleZip4() {
	r := stage.Zip4(
		source.Slice([]int{1, 2}),
		source.Slice([]string{"a", "b"}),
		source.Slice([]bool{true, false}),
		source.Slice([]float32{0.5, 0.25}),
	)
	printPass(r)
	// Output: {1 a true 0.5} {2 b false 0.25}
}

func ExampleShuffle() {
	r := stage.Shuffle(source.Slice([]int{0, 1, 2, 3, 4, 5, 6, 7}), 8, 1)
	// Every epoch has its own order; the same seed and epoch repeat it.
	for epoch := range 2 {
		s, _ := source.Collect(source.WithEpoch(context.Background(), epoch), r)
		fmt.Println(s)
	}
	again, _ := source.Collect(source.WithEpoch(context.Background(), 0), r)
	fmt.Println(again)
	// Output:
	// [5 1 4 2 6 7 3 0]
	// [3 0 7 4 1 6 2 5]
	// [5 1 4 2 6 7 3 0]
}

func ExampleRepeat() {
	printPass(stage.Repeat(source.Slice([]string{"a", "b"}), 3))
	// Endless, stopped by Take.
	printPass(stage.Take(stage.Repeat(source.Slice([]int{1, 2}), -1), 5))
	// Output:
	// a b a b a b
	// 1 2 1 2 1
}

func ExampleCache() {
	reads := 0
	decode := func(s string) string { reads++; return strings.ToUpper(s) }
	r := stage.Cache(stage.Map(source.Slice([]string{"a", "b"}), decode))
	printPass(r)
	printPass(r)
	fmt.Println("decoded", reads, "samples")
	// Output:
	// A B
	// A B
	// decoded 2 samples
}

func ExampleShard() {
	data := source.Slice([]int{0, 1, 2, 3, 4, 5, 6})
	for part := range 3 {
		printPass(stage.Shard(data, 3, part))
	}
	// Output:
	// 0 3 6
	// 1 4
	// 2 5
}

func ExampleEnumerate() {
	r := stage.Enumerate(source.Slice([]string{"a", "b", "c"}))
	for s, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Index, s.Value)
	}
	// Output:
	// 0 a
	// 1 b
	// 2 c
}
