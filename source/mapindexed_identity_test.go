package source_test

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

// filed is a random-access dataset that describes its data, as a
// file-backed table does.
type filed struct{ source.Indexed[int] }

func (filed) Identity(context.Context) (string, error) { return "a.rec (40 bytes, etag 1)", nil }

// A MapIndexed answers Identity with the identity of the dataset it maps,
// and with "" over data in memory; so does a ReadIndexed over it.
func TestMapIndexedIdentity(t *testing.T) {
	ctx := context.Background()
	double := func(v int) (int, error) { return 2 * v, nil }
	for _, tc := range []struct {
		d    source.Indexed[int]
		want string
	}{
		{filed{source.IndexSlice([]int{1, 2, 3})}, "a.rec (40 bytes, etag 1)"},
		{source.IndexSlice([]int{1, 2, 3}), ""},
	} {
		m := source.MapIndexed(source.MapIndexed(tc.d, double), double)
		id, ok := m.(source.Identifier)
		if !ok {
			t.Fatalf("MapIndexed(%T) is not an Identifier", tc.d)
		}
		if got, err := id.Identity(ctx); got != tc.want || err != nil {
			t.Errorf("MapIndexed(%T).Identity = %q, %v, want %q", tc.d, got, err, tc.want)
		}
		if got, err := source.ReadIndexed(m).Identity(ctx); got != tc.want || err != nil {
			t.Errorf("ReadIndexed(MapIndexed(%T)).Identity = %q, %v, want %q", tc.d, got, err, tc.want)
		}
	}
}
