package tfrecord_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/internal/marks/markstest"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// manyRecords returns n records of varied lengths.
func manyRecords(n int) [][]byte {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = []byte(strings.Repeat(fmt.Sprintf("r%d;", i), 1+i%7))
	}
	return recs
}

// A resumed pass over a plain file reads no byte before its offset (but
// the three of the gzip magic); over a gzip file it decompresses up to it.
func TestResumeReadsNothingBefore(t *testing.T) {
	dir := t.TempDir()
	for _, gz := range []bool{false, true} {
		name := fmt.Sprintf("gz%v.tfrecord", gz)
		if err := os.WriteFile(filepath.Join(dir, name), encode(t, manyRecords(300), gz), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, log := storagetest.ServeDir(t, dir)
	for _, gz := range []bool{false, true} {
		name := fmt.Sprintf("gz%v.tfrecord", gz)
		r := tfrecord.Open(srv.URL + "/" + name)
		full := markstest.Collect(t, r)
		st, err := source.StateOf(r, 0, 250)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Pos) != 3 || st.Pos[0] != full[250].Offset || st.Pos[1] != 250 || st.Pos[2] != 250 {
			t.Fatalf("gzip %v: state %+v, want the offset of record 250 (%d)", gz, st, full[250].Offset)
		}
		log.Reset()
		r2, err := source.ResumeFrom(r, markstest.JSONRoundTrip(t, st))
		if err != nil {
			t.Fatal(err)
		}
		markstest.SamePass(t, markstest.Collect(t, r2), full[250:])
		if n, _ := log.Before("/"+name, st.Pos[0]); !gz && n > 3 {
			t.Errorf("the resumed pass read %d bytes before offset %d", n, st.Pos[0])
		}
	}
}

// Records skipped as bad are counted in the state's offset and index; the
// contract (resume included) holds under a policy.
func TestResumeSkipBad(t *testing.T) {
	file, _ := corrupt(t, 12) // record 1's data
	file = append(file, encode(t, manyRecords(20), false)...)
	path := writeFile(t, file)
	r := tfrecord.Open(path, tfrecord.OnBad(source.SkipBad(0.5)))
	if err := sourcetest.TestReader[tfrecord.Record](r); err != nil {
		t.Fatal(err)
	}
	full := markstest.Collect(t, r)
	st, _ := source.StateOf(r, 0, 2) // after "a", the bad record and "c"
	if len(st.Pos) != 3 || st.Pos[0] != full[2].Offset || st.Pos[1] != 3 || full[1].Index != 2 {
		t.Fatalf("state after 2: %+v, want record 3 at %d", st, full[2].Offset)
	}
}

// A pass resumed from an offset judges the policy's fraction over the whole
// pass: a tail denser in bad records than the pass does not fail it.
func TestResumeSkipBadJudgesWholePass(t *testing.T) {
	var file []byte
	for i := range 22 { // records 1 and 20 bad: 2 of 22
		rec := encode(t, [][]byte{fmt.Appendf(nil, "record %d", i)}, false)
		if i == 1 || i == 20 {
			rec[12] ^= 0x40 // a data byte
		}
		file = append(file, rec...)
	}
	r := tfrecord.Open(writeFile(t, file), tfrecord.OnBad(source.SkipBad(0.1)))
	st := markstest.ResumeTail(t, r, 20, 19) // the tail is a bad record and a good one
	if len(st.Pos) != 3 || st.Pos[1] != 20 {
		t.Fatalf("state after 19: %+v, want record index 20", st)
	}
	st.Pos[1] = 18 // a record index before the record count
	if _, err := source.ResumeFrom(r, st); !errors.Is(err, source.ErrState) {
		t.Fatalf("Resume(%+v) = %v, want ErrState", st, err)
	}
}

// Behind the ring of record ends, the state is a replay state; both kinds
// resume exactly.
func TestResumeReplayState(t *testing.T) {
	for _, gz := range []bool{false, true} {
		r := tfrecord.Open(writeFile(t, encode(t, manyRecords(5000), gz)))
		markstest.ReplayStates(t, r, markstest.Collect(t, r), []int64{0, 10, 903, 4990, 5000}, markstest.SamePass)
	}
}

// A state of another file, or a damaged state, is refused.
func TestResumeRefusesOtherFiles(t *testing.T) {
	a := writeFile(t, encode(t, manyRecords(20), false))
	b := filepath.Join(t.TempDir(), "other.tfrecord")
	data, _ := os.ReadFile(a)
	if err := os.WriteFile(b, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := tfrecord.Open(a)
	markstest.Collect(t, r)
	st, _ := source.StateOf(r, 0, 5)
	for name, tc := range map[string]struct {
		r  source.Reader[tfrecord.Record]
		st source.State
	}{
		"other file":   {tfrecord.Open(b), st},
		"two counters": {r, source.State{Kind: st.Kind, Pos: []int64{1, 2}}},
		"negative":     {r, source.State{Kind: st.Kind, Pos: []int64{-1, 2, 3}}},
	} {
		if _, err := source.ResumeFrom(tc.r, tc.st); !errors.Is(err, source.ErrState) {
			t.Errorf("%s: resume from %+v: %v, want ErrState", name, tc.st, err)
		}
	}
	// The file may move.
	moved := filepath.Join(t.TempDir(), filepath.Base(a))
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := source.ResumeFrom(tfrecord.Open(moved), st)
	if err != nil {
		t.Fatal(err)
	}
	if got := markstest.Collect(t, r2); len(got) != 15 {
		t.Fatalf("moved file: %d records, want 15", len(got))
	}
}

// BenchmarkResume90 is the time to the first record of a pass resumed at
// 90% of a file of 100,000 records: from an offset state (a seek; for
// gzip, decompressing up to the offset) against a replay state (reading
// and checking 90,000 records).
func BenchmarkResume90(b *testing.B) {
	const k = 90_000
	for _, gz := range []bool{false, true} {
		p := writeFile(b, encode(b, manyRecords(100_000), gz))
		open := func() source.Reader[tfrecord.Record] { return tfrecord.Open(p) }
		markstest.BenchResume(b, fmt.Sprintf("gzip=%v/", gz), open, k, func(rec tfrecord.Record) bool { return rec.Index == k })
	}
}
