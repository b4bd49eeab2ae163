package source_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/source"
)

func ExampleSlice() {
	r := source.Slice([]string{"cat", "dog", "bird"})
	for s, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(s)
	}
	// Output:
	// cat
	// dog
	// bird
}

// Generate gives every pass (epoch) its own repeatable random stream.
func ExampleGenerate() {
	roll := func(r *rand.Rand, _ int) int { return 1 + r.IntN(6) }
	dice := source.Generate(5, 1, roll)
	ctx := context.Background()
	epoch0, _ := source.Collect(ctx, dice)
	epoch1, _ := source.Collect(ctx, dice)
	sameSeed, _ := source.Collect(ctx, source.Generate(5, 1, roll))
	fmt.Println(epoch0, epoch1, sameSeed)
	// Output: [5 2 5 4 2] [1 1 4 6 3] [5 2 5 4 2]
}

// Uniform is the endless noise input of a GAN's generator.
func ExampleUniform() {
	noise := source.Uniform(3, -1, 1, 7)
	n := 0
	for z, err := range noise.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%.3f\n", z)
		if n++; n == 2 {
			break // endless: the consumer decides when to stop
		}
	}
	// Output:
	// [0.727 -0.155 0.610]
	// [-0.070 -0.414 -0.768]
}

// Constant gives the labels of a GAN's discriminator.
func ExampleConstant() {
	real, _ := source.Collect(context.Background(), source.Constant(float32(1), 3))
	fmt.Println(real)
	// Output: [1 1 1]
}

// WithEpoch tells every random stage of a pass which epoch it is, so a
// pass can be replayed exactly, by a fresh reader too.
func ExampleWithEpoch() {
	newNoise := func() source.Reader[int] {
		return source.Generate(3, 9, func(r *rand.Rand, _ int) int { return r.IntN(100) })
	}
	r := newNoise()
	ctx := context.Background()
	epoch0, _ := source.Collect(ctx, r) // the reader counts its own passes
	epoch1, _ := source.Collect(ctx, r)
	replay, _ := source.Collect(source.WithEpoch(ctx, 1), newNoise())
	fmt.Println(epoch0, epoch1, replay)
	// Output: [22 90 45] [51 51 2] [51 51 2]
}

// A stage keeps an Epochs counter and starts each pass with it; the epoch
// in the context, when there is one, wins, and the returned context carries
// the epoch to the readers the stage runs.
func ExampleEpochs() {
	var epochs source.Epochs
	start := func(ctx context.Context) int {
		ctx, epoch := epochs.Start(ctx)
		var upstream source.Epochs // the counter of a stage the stage runs
		if _, inner := upstream.Start(ctx); inner != epoch {
			panic("the context does not carry the epoch")
		}
		return epoch
	}
	ctx := context.Background()
	fmt.Println(start(ctx), start(ctx), start(source.WithEpoch(ctx, 7)), start(ctx))
	// Output: 0 1 7 2
}

// NewRand derives a generator from (seed, epoch, index) alone: the same
// sample gets the same augmentation whichever worker handles it, and a new
// one in the next epoch.
func ExampleNewRand() {
	a := source.NewRand(42, 0, 5).Uint64()
	b := source.NewRand(42, 0, 5).Uint64() // another worker, same sample
	c := source.NewRand(42, 1, 5).Uint64() // the next epoch
	fmt.Println(a == b, a == c)
	// Output: true false
}

func ExampleCollect() {
	got, err := source.Collect(context.Background(), source.Slice([]int{1, 2, 3}))
	fmt.Println(got, err)
	// Output: [1 2 3] <nil>
}

func ExampleCount() {
	n, err := source.Count(context.Background(), source.Constant("x", 42))
	fmt.Println(n, err)
	// Output: 42 <nil>
}

// Fail is the pass of a reader that cannot start, for example because its
// file cannot be opened.
func ExampleFail() {
	errMissing := errors.New("labels.idx: no such file")
	r := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return source.Fail[int](errMissing)
	})
	_, err := source.Collect(context.Background(), r)
	fmt.Println(err)
	// Output: labels.idx: no such file
}

// Func makes a reader from a function that starts a pass.
func ExampleFunc() {
	countdown := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := 3; i > 0; i-- {
				if !yield(i, nil) {
					return
				}
			}
		}
	})
	got, _ := source.Collect(context.Background(), countdown)
	fmt.Println(got)
	// Output: [3 2 1]
}

// Concurrent reads several readers at once. The order across readers is not
// deterministic, so this example sorts what it got.
func ExampleConcurrent() {
	shards := []source.Reader[string]{
		source.Slice([]string{"a1", "a2"}),
		source.Slice([]string{"b1", "b2", "b3"}),
		source.Slice([]string{"c1"}),
	}
	got, err := source.Collect(context.Background(), source.Concurrent(shards, 4))
	slices.Sort(got)
	fmt.Println(got, err)
	// Output: [a1 a2 b1 b2 b3 c1] <nil>
}

// Files reads a queue of files with a few workers. Here the "files" are in
// memory; a real open function returns a format reader (one that opens the
// file when its pass starts). With one worker the files come in order.
func ExampleFiles() {
	contents := map[string]string{"a.txt": "a1 a2", "b.txt": "b1", "c.txt": "c1 c2 c3"}
	open := func(path string) source.Reader[string] {
		return source.Slice(strings.Fields(contents[path]))
	}
	paths := []string{"a.txt", "b.txt", "c.txt"}
	got, _ := source.Collect(context.Background(), source.Files(paths, 1, open, 8))
	fmt.Println(got)
	got, _ = source.Collect(context.Background(), source.Files(paths, 3, open, 8))
	slices.Sort(got)
	fmt.Println(got)
	// Output:
	// [a1 a2 b1 c1 c2 c3]
	// [a1 a2 b1 c1 c2 c3]
}
