package stage_test

import (
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestEnumerate(t *testing.T) {
	r := stage.Enumerate(source.Slice([]string{"a", "b", "c"}))
	want := []stage.Numbered[string]{{0, "a"}, {1, "b"}, {2, "c"}}
	for pass := range 3 { // the index restarts on every pass
		if got := values(t, r); !slices.Equal(got, want) {
			t.Errorf("pass %d: got %v, want %v", pass, got, want)
		}
	}
}

// TestEnumerateBeforeShuffle: the index keeps each sample's original
// position through a shuffle.
func TestEnumerateBeforeShuffle(t *testing.T) {
	words := []string{"a", "b", "c", "d", "e", "f"}
	got := values(t, stage.Shuffle(stage.Enumerate(source.Slice(words)), 10, 3))
	for _, s := range got {
		if words[s.Index] != s.Value {
			t.Errorf("index %d carries %q, want %q", s.Index, s.Value, words[s.Index])
		}
	}
	if len(got) != len(words) {
		t.Errorf("got %d samples", len(got))
	}
}

func TestEnumerateEmpty(t *testing.T) {
	if got := values(t, stage.Enumerate(source.Slice[int](nil))); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}
