package source_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// Every source of this package keeps the reader contract, checked with the
// public kit that users run on their own readers.
func TestSourcesKeepTheContract(t *testing.T) {
	ints := make([]int, 1000)
	for i := range ints {
		ints[i] = i
	}
	half := [][]int{ints[:500], ints[500:]}
	cases := []struct {
		name string
		r    source.Reader[int]
		opts []sourcetest.Option
	}{
		{"Slice", source.Slice(ints), nil},
		{"Generate", source.Generate(1000, 7, func(r *rand.Rand, i int) int { return r.IntN(100) + i }), nil},
		{"Constant", source.Constant(3, 1000), nil},
		{"ConcurrentOne", source.Concurrent([]source.Reader[int]{source.Slice(ints)}, 16), nil},
		{"ConcurrentTwo", source.Concurrent([]source.Reader[int]{source.Slice(ints[:500]), source.Slice(ints[500:])}, 16),
			[]sourcetest.Option{sourcetest.Nondeterministic()}},
		{"ConcurrentFails", source.Concurrent([]source.Reader[int]{
			sourcetest.FailAfter(source.Slice(ints), 700, errors.New("bad file"))}, 16), nil},
		{"FilesOneWorker", source.Files([]string{"0", "1"}, 1, func(p string) source.Reader[int] {
			return source.Slice(half[p[0]-'0'])
		}, 16), nil},
		{"FilesFourWorkers", source.Files([]string{"0", "1", "0", "1"}, 4, func(p string) source.Reader[int] {
			return source.Slice(half[p[0]-'0'])
		}, 16), []sourcetest.Option{sourcetest.Nondeterministic()}},
		{"FilesFails", source.Files([]string{"0", "1"}, 1, func(p string) source.Reader[int] {
			return sourcetest.FailAfter(source.Slice(half[p[0]-'0']), 300, errors.New("bad record"))
		}, 16), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := sourcetest.TestReader(tc.r, tc.opts...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Concurrent, used as a one-reader prefetch stage, keeps the stage contract.
func TestConcurrentKeepsTheStageContract(t *testing.T) {
	prefetch := func(r source.Reader[int]) source.Reader[int] {
		return source.Concurrent([]source.Reader[int]{r}, 8)
	}
	if err := sourcetest.TestStage(prefetch, func(i int) int { return i }); err != nil {
		t.Fatal(err)
	}
}
