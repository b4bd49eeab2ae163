// Package markstest holds the helpers shared by the resume tests of the
// streaming readers.
package markstest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/source"
)

// JSONRoundTrip returns st after encoding it to JSON and back, as a
// checkpoint stores it.
func JSONRoundTrip(t testing.TB, st source.State) source.State {
	t.Helper()
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back source.State
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// ReplayStates checks the states of r's pass of epoch 0, which gave full:
// the state after each k of ks is a replay state ({kind, [k]}) exactly
// when the pass read more than marks.RingSize records past k, and a pass
// resumed from it, after a JSON round trip, gives full[k:] (same compares).
func ReplayStates[T any](t *testing.T, r source.Reader[T], full []T, ks []int64, same func(t *testing.T, got, want []T)) {
	t.Helper()
	ctx := source.WithEpoch(context.Background(), 0)
	for _, k := range ks {
		st, err := source.StateOf(r, 0, k)
		if err != nil {
			t.Fatal(err)
		}
		if replay := k < int64(len(full))-marks.RingSize; (len(st.Pos) == 1) != replay {
			t.Errorf("state after %d: %+v, replay %v", k, st, replay)
		}
		r2, err := source.ResumeFrom(r, JSONRoundTrip(t, st))
		if err != nil {
			t.Fatal(err)
		}
		got, err := source.Collect(ctx, r2)
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, full[k:])
	}
}

// BenchResume measures the time to the first record of a pass of a reader
// from open resumed after k records of its epoch-0 pass, from the offset
// state (sub-benchmark prefix+"offset") and from the replay state {kind,
// [k]} (prefix+"replay"); first checks that record.
func BenchResume[T any](b *testing.B, prefix string, open func() source.Reader[T], k int64, first func(T) bool) {
	ctx := source.WithEpoch(context.Background(), 0)
	for _, name := range []string{"offset", "replay"} {
		b.Run(prefix+name, func(b *testing.B) {
			r := open()
			i := int64(0)
			for _, err := range r.All(ctx) {
				if err != nil {
					b.Fatal(err)
				}
				if i++; i == k {
					break // the consumer stops here: the pass remembers record k
				}
			}
			st, err := source.StateOf(r, 0, k)
			if err != nil || len(st.Pos) < 2 {
				b.Fatal(st, err)
			}
			if name == "replay" {
				st.Pos = []int64{k}
			}
			b.ReportAllocs()
			for b.Loop() {
				r2, err := source.ResumeFrom(r, st)
				if err != nil {
					b.Fatal(err)
				}
				for v, err := range r2.All(ctx) {
					if err != nil || !first(v) {
						b.Fatal(v, err)
					}
					break
				}
			}
		})
	}
}

// SamePass fails t unless got and want hold equal records (reflect.DeepEqual)
// in the same order.
func SamePass[T any](t *testing.T, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("record %d: %s, want %s", i, short(got[i]), short(want[i]))
		}
	}
}

// short prints v, cut to a few hundred bytes.
func short(v any) string {
	s := fmt.Sprintf("%+v", v)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// Collect runs a pass of r in epoch 0 and returns its records; an error
// fails t.
func Collect[T any](t testing.TB, r source.Reader[T]) []T {
	t.Helper()
	out, err := source.Collect(source.WithEpoch(context.Background(), 0), r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ResumeTail runs r's pass of epoch 0, which must yield n records, takes
// its state after k of them and checks that a pass resumed from it (after a
// JSON round trip) yields the same tail. It returns the state.
func ResumeTail[T any](t *testing.T, r source.Reader[T], n int, k int64) source.State {
	t.Helper()
	full := Collect(t, r)
	if len(full) != n {
		t.Fatalf("%d records, want %d", len(full), n)
	}
	st, err := source.StateOf(r, 0, k)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := source.ResumeFrom(r, JSONRoundTrip(t, st))
	if err != nil {
		t.Fatal(err)
	}
	SamePass(t, Collect(t, r2), full[k:])
	return st
}
