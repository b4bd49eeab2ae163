package markstest_test

import (
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/marks/markstest"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestJSONRoundTrip(t *testing.T) {
	st := source.State{Kind: "k", Pos: []int64{1, 2}, In: []source.State{{Kind: "in", Pos: []int64{3}}}}
	if got := markstest.JSONRoundTrip(t, st); !reflect.DeepEqual(got, st) {
		t.Fatalf("%+v, want %+v", got, st)
	}
}

func TestSamePass(t *testing.T) {
	markstest.SamePass(t, []source.State{{Kind: "a"}}, []source.State{{Kind: "a"}})
}
