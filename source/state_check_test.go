package source_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// fileData is an in-memory dataset that describes its data as a file
// would: a source.Identifier.
type fileData struct {
	source.Indexed[int]
	id string
}

func (d fileData) Identity(context.Context) (string, error) { return d.id, nil }

// TestStatePastTheEnd: a state after more samples than the pass has is the
// end of the pass, and a position past the end is refused, naming the
// counter.
func TestStatePastTheEnd(t *testing.T) {
	data := make([]int, 10)
	readers := map[string]source.Resumable[int]{
		"indexed": source.ReadIndexed(source.IndexSlice(data), source.ShuffleIndex(1)),
		"shard":   source.ReadIndexed(source.IndexSlice(data), source.ShardIndex(4, 1, source.PadShards)),
		"slice":   source.Slice(data).(source.Resumable[int]),
	}
	for name, r := range readers {
		st, err := r.StateAt(0, 12) // the upstream of a batch of 4 after its short last batch
		if err != nil {
			t.Fatal(err)
		}
		if st.Pos[0] != 10 {
			t.Errorf("%s: state after 12 of 10 samples %v, want the end, 10", name, st)
		}
		if _, err := r.Resume(st); err != nil {
			t.Errorf("%s: resume at the end: %v", name, err)
		}
		for _, pos := range []int64{11, 1 << 62} {
			st.Pos[0] = pos
			_, err := r.Resume(st)
			var se *source.StateError
			if !errors.As(err, &se) || !errors.Is(err, source.ErrState) || se.Field != "pos[0]" || !strings.Contains(err.Error(), "past the end") {
				t.Errorf("%s: resume at %d of 10: %v, want a StateError of pos[0] past the end", name, pos, err)
			}
		}
	}
}

// TestZipInputsStepTogether: zipped inputs of the same kind at different
// positions are refused; inputs of other kinds are not compared.
func TestZipInputsStepTogether(t *testing.T) {
	a := source.ReadIndexed(source.IndexSlice(make([]int, 10)))
	b := source.ReadIndexed(source.IndexSlice(make([]int, 10)))
	z := stage.Zip2[int, int](a, b).(source.Resumable[stage.Tuple2[int, int]])
	st, err := z.StateAt(0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.Resume(st); err != nil {
		t.Fatalf("as taken: %v", err)
	}
	st.In[1].Pos[0] = 3
	var se *source.StateError
	if _, err := z.Resume(st); !errors.As(err, &se) || se.Field != "in[1]" {
		t.Errorf("an input set back: %v, want a StateError of in[1]", err)
	}
	other := stage.Zip2[int, int](a, source.Slice(make([]int, 10))).(source.Resumable[stage.Tuple2[int, int]])
	st, _ = other.StateAt(0, 4)
	st.In[1].Pos[0] = 3
	if _, err := other.Resume(st); err != nil {
		t.Errorf("inputs of other kinds are not compared: %v", err)
	}
}

// TestDataIdentity: the identities of the readers under a state, found
// through the stages that ask them for states.
func TestDataIdentity(t *testing.T) {
	d := fileData{source.IndexSlice(make([]int, 10)), "train.bin 40 bytes"}
	r := stage.Map(source.ReadIndexed[int](d), func(x int) int { return x })
	z := stage.Zip2(r, source.Slice(make([]int, 10)))
	st, err := source.StateOf(z, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := st.DataIdentity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != "indexed(10): train.bin 40 bytes" {
		t.Errorf("identities %q, want the indexed reader's", ids)
	}
	if s := st.String(); strings.Contains(s, "train.bin") || !strings.HasPrefix(s, `{"kind":"zip"`) {
		t.Errorf("String() = %s, want the JSON of the state", s)
	}
}
