package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/marks/markstest"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// writeRecFile writes n records of varied lengths to dir/name and returns
// its path.
func writeRecFile(t testing.TB, dir, name string, n int) string {
	t.Helper()
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	for i := range n {
		if err := w.Write([]byte(strings.Repeat(fmt.Sprintf("%s-%d;", name, i), 1+i%7))); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A resumed pass opens the file of its state at the offset and reads no
// byte before it, nor any earlier file.
func TestResumeReadsNothingBefore(t *testing.T) {
	dir := t.TempDir()
	writeRecFile(t, dir, "a.rec", 300)
	writeRecFile(t, dir, "b.rec", 300)
	srv, log := storagetest.ServeDir(t, dir)
	ctx := source.WithEpoch(context.Background(), 0)
	for _, tc := range []struct {
		name string
		opts []recordio.Option
		k    int64
	}{
		{"whole", nil, 450},
		{"shard", []recordio.Option{recordio.Shard(2, 1)}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := records([]string{srv.URL + "/a.rec", srv.URL + "/b.rec"}, tc.opts...)
			full, err := source.Collect(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			st, err := r.(source.Resumable[recordio.Record]).StateAt(0, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Pos) != 3 || st.Pos[0] != 1 || st.Pos[2] != tc.k {
				t.Fatalf("state %+v, want an offset in file 1 after %d records", st, tc.k)
			}
			log.Reset()
			r2, err := source.ResumeFrom(r, markstest.JSONRoundTrip(t, st))
			if err != nil {
				t.Fatal(err)
			}
			got, err := source.Collect(ctx, r2)
			if err != nil {
				t.Fatal(err)
			}
			markstest.SamePass(t, got, full[tc.k:])
			if n, _ := log.Before("/b.rec", st.Pos[1]); n > 0 {
				t.Errorf("the resumed pass read %d bytes of b.rec before offset %d", n, st.Pos[1])
			}
			if n, reqs := log.Before("/a.rec", 1<<62); n > 0 {
				t.Errorf("the resumed pass read %d bytes of a.rec in %d requests", n, reqs)
			}
		})
	}
}

// Behind the ring of record ends, the state is a replay state; both kinds
// resume exactly, and a resumed reader's states count from the epoch's
// start.
func TestResumeReplayState(t *testing.T) {
	p := writeRecFile(t, t.TempDir(), "big.rec", 5000)
	ctx := source.WithEpoch(context.Background(), 0)
	r := recordio.Open(p)
	full, err := source.Collect(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	markstest.ReplayStates(t, r, full, []int64{0, 10, 903, 4990, 5000}, markstest.SamePass)
	for _, k := range []int64{0, 10, 903, 4990} {
		st, _ := source.StateOf(r, 0, k)
		r2, err := source.ResumeFrom(r, st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := source.Collect(ctx, r2); err != nil {
			t.Fatal(err)
		}
		st2, _ := source.StateOf(r2, 0, 1)
		if want, _ := source.StateOf(r, 0, k+1); fmt.Sprint(st2) != fmt.Sprint(want) && len(want.Pos) == 3 {
			t.Errorf("after resuming at %d: state %+v, want %+v", k, st2, want)
		}
	}
}

// A state of another file set, another shard or a damaged state is refused.
func TestResumeRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := writeRecFile(t, dir, "a.rec", 20), writeRecFile(t, dir, "b.rec", 20)
	ctx := source.WithEpoch(context.Background(), 0)
	r := records([]string{a, b})
	if _, err := source.Collect(ctx, r); err != nil {
		t.Fatal(err)
	}
	st, _ := source.StateOf(r, 0, 25)
	bad := st
	bad.Pos = []int64{5, 0, 25}
	for name, tc := range map[string]struct {
		r  source.Reader[recordio.Record]
		st source.State
	}{
		"other names":  {records([]string{b, a}), st},
		"fewer files":  {recordio.Open(a), st},
		"other shard":  {records([]string{a, b}, recordio.Shard(2, 0)), st},
		"two counters": {r, source.State{Kind: st.Kind, Pos: []int64{1, 2}}},
	} {
		if _, err := source.ResumeFrom(tc.r, tc.st); !errors.Is(err, source.ErrState) {
			t.Errorf("%s: resume from %+v: %v, want ErrState", name, tc.st, err)
		}
	}
	// A file past the list's end is refused when the pass has expanded
	// the list.
	far, err := source.ResumeFrom(r, bad)
	if err == nil {
		_, err = source.Collect(ctx, far)
	}
	if !errors.Is(err, source.ErrState) || !strings.Contains(err.Error(), "pos[0]") {
		t.Errorf("file too far: %v, want ErrState naming pos[0]", err)
	}
	// The files may move.
	moved := t.TempDir()
	for _, p := range []string{a, b} {
		data, _ := os.ReadFile(p)
		os.WriteFile(filepath.Join(moved, filepath.Base(p)), data, 0o644)
	}
	r2, err := source.ResumeFrom(records([]string{filepath.Join(moved, "a.rec"), filepath.Join(moved, "b.rec")}), st)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := source.Count(ctx, r2); n != 15 || err != nil {
		t.Fatalf("moved files: %d records (%v), want 15", n, err)
	}
}

// BenchmarkResume90 is the time to the first record of a pass resumed at
// 90% of a file of 100,000 records: from an offset state (a seek) against
// a replay state (reading and framing 90,000 records).
func BenchmarkResume90(b *testing.B) {
	p := writeRecFile(b, b.TempDir(), "big.rec", 100_000)
	const k = 90_000
	open := func() source.Reader[recordio.Record] { return recordio.Open(p) }
	markstest.BenchResume(b, "", open, k, func(rec recordio.Record) bool { return rec.Index == k })
}
