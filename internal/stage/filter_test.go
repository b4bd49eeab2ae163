package stage_test

import (
	"slices"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name string
		in   []int
		keep func(int) bool
		want []int
	}{
		{"empty", nil, func(int) bool { return true }, nil},
		{"all", []int{1, 2, 3}, func(int) bool { return true }, []int{1, 2, 3}},
		{"none", []int{1, 2, 3}, func(int) bool { return false }, nil},
		{"even", lo.Range(10), func(x int) bool { return x%2 == 0 }, []int{0, 2, 4, 6, 8}},
		{"last only", []int{5, 6, 7}, func(x int) bool { return x == 7 }, []int{7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := values(t, stage.Filter(source.Slice(tc.in), tc.keep)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
