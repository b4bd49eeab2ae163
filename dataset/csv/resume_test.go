package csv_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/internal/marks/markstest"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// bigCSV returns a file of n rows under a header: two numbers and a
// quoted text that spans two lines in every third row, and its label
// file.
func bigCSV(n int) (data, labels string) {
	var d, l strings.Builder
	d.WriteString("a,b,text\n")
	for i := range n {
		text := fmt.Sprintf("row %d", i)
		if i%3 == 0 {
			text = fmt.Sprintf("row\n%d", i)
		}
		fmt.Fprintf(&d, "%d,%d.5,\"%s\"\n", i, i%100, text)
		fmt.Fprintf(&l, "%d\n", i%10)
	}
	return d.String(), l.String()
}

// A resumed pass reads the head of its files for the layout, then seeks:
// it reads nothing else before its offsets, the data and label files stay
// in step and line numbers stay those of the file.
func TestResumeReadsNothingBefore(t *testing.T) {
	dir := t.TempDir()
	data, labels := bigCSV(30_000)
	write(t, dir, "data.csv", data)
	write(t, dir, "labels.csv", labels)
	srv, log := storagetest.ServeDir(t, dir)
	for _, withLabels := range []bool{false, true} {
		opts := []csv.Option{csv.Header(), csv.DataColumns(csv.Name("a"), csv.Name("b"))}
		if withLabels {
			opts = append(opts, csv.LabelFile(srv.URL+"/labels.csv"))
		}
		r := csv.New(srv.URL+"/data.csv", opts...)
		full := markstest.Collect(t, r)
		const k = 27_000
		st, err := r.StateAt(0, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Pos) != 7 || st.Pos[1] != int64(full[k].Line-1) || st.Pos[6] != k {
			t.Fatalf("labels %v: state %+v, want the end of line %d", withLabels, st, full[k].Line-1)
		}
		log.Reset()
		r2, err := r.Resume(markstest.JSONRoundTrip(t, st))
		if err != nil {
			t.Fatal(err)
		}
		markstest.SamePass(t, markstest.Collect(t, r2), full[k:])
		if n, _ := log.Before("/data.csv", st.Pos[0]); n > 64<<10 {
			t.Errorf("labels %v: the resumed pass read %d bytes of data.csv before offset %d", withLabels, n, st.Pos[0])
		}
		if n, _ := log.Before("/labels.csv", st.Pos[3]); withLabels && n > 64<<10 {
			t.Errorf("the resumed pass read %d bytes of labels.csv before offset %d", n, st.Pos[3])
		}
	}
}

// Bad rows skipped by a policy are counted in the offsets and lines; a
// resumed pass's errors name the lines of the file.
func TestResumeSkipBadAndErrors(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "bad.csv", "1,2\n3,x\n# a comment\n5,6\n7,8\n9\n10,11\n12,13\n")
	r := csv.New(p, csv.Comment('#'), csv.OnBad(source.SkipBad(0.5)))
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
	full := markstest.Collect(t, r)
	st, _ := r.StateAt(0, 2) // rows 1 and 5: the next is 7,8 on line 5
	if len(st.Pos) != 7 || st.Pos[1] != 4 || full[2].Line != 5 {
		t.Fatalf("state after 2: %+v", st)
	}
	strict := csv.New(p, csv.Comment('#'))
	r2, err := strict.Resume(st)
	if err != nil {
		t.Fatal(err)
	}
	_, err = source.Collect(source.WithEpoch(context.Background(), 0), r2)
	var pe *tensorfeed.Error
	if !errors.As(err, &pe) || pe.Line != 6 {
		t.Fatalf("resumed pass: %v, want the bad row on line 6", err)
	}
}

// A pass resumed from an offset judges the policy's fraction over the whole
// pass: a tail denser in bad rows than the pass does not fail it.
func TestResumeSkipBadJudgesWholePass(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := range 22 { // rows 1 and 20 bad: 2 of 22
		if i == 1 || i == 20 {
			fmt.Fprintf(&b, "%d,x\n", i)
			continue
		}
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	r := csv.New(write(t, t.TempDir(), "bad.csv", b.String()), csv.Header(), csv.OnBad(source.SkipBad(0.1)))
	st := markstest.ResumeTail(t, r, 20, 19) // the tail is a bad row and a good one
	if len(st.Pos) != 7 || st.Pos[2] != 21 {
		t.Fatalf("state after 19: %+v, want 21 records (header and bad row included)", st)
	}
}

// Behind the ring of row ends, the state is a replay state; both kinds
// resume exactly.
func TestResumeReplayState(t *testing.T) {
	dir := t.TempDir()
	data, labels := bigCSV(5000)
	r := csv.New(write(t, dir, "d.csv", data), csv.Header(), csv.DataColumns(csv.Index(0), csv.Index(1)), csv.LabelFile(write(t, dir, "l.csv", labels)))
	markstest.ReplayStates(t, r, markstest.Collect(t, r), []int64{0, 10, 903, 4990, 5000}, markstest.SamePass)
}

// A state of other files, or a damaged state, is refused; the files may
// move.
func TestResumeRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	data, labels := bigCSV(20)
	d, l := write(t, dir, "d.csv", data), write(t, dir, "l.csv", labels)
	l2 := write(t, dir, "l2.csv", labels)
	opts := []csv.Option{csv.Header(), csv.DataColumns(csv.Index(0), csv.Index(1))}
	r := csv.New(d, append(opts, csv.LabelFile(l))...)
	markstest.Collect(t, r)
	st, _ := r.StateAt(0, 5)
	for name, tc := range map[string]struct {
		r  *csv.Reader
		st source.State
	}{
		"other labels":  {csv.New(d, append(opts, csv.LabelFile(l2))...), st},
		"no labels":     {csv.New(d, opts...), st},
		"other data":    {csv.New(l, append(opts, csv.LabelFile(l))...), st},
		"two counters":  {r, source.State{Kind: st.Kind, Pos: []int64{1, 2}}},
		"negative line": {r, source.State{Kind: st.Kind, Pos: []int64{1, -2, 3, 4, 5, 6, 7}}},
	} {
		if _, err := tc.r.Resume(tc.st); !errors.Is(err, source.ErrState) {
			t.Errorf("%s: resume from %+v: %v, want ErrState", name, tc.st, err)
		}
	}
	moved := t.TempDir()
	for _, p := range []string{d, l} {
		b, _ := os.ReadFile(p)
		write(t, moved, filepath.Base(p), string(b))
	}
	r2, err := csv.New(filepath.Join(moved, "d.csv"), append(opts, csv.LabelFile(filepath.Join(moved, "l.csv")))...).Resume(st)
	if err != nil {
		t.Fatal(err)
	}
	if got := markstest.Collect(t, r2); len(got) != 15 || got[0].Data[0] != 5 {
		t.Fatalf("moved files: %d rows, want 15 from row 5", len(got))
	}
}

// BenchmarkResume90 is the time to the first row of a pass resumed at 90%
// of a file of 100,000 rows with a label file: from an offset state (the
// head read for the layout, then a seek) against a replay state (parsing
// 90,000 rows).
func BenchmarkResume90(b *testing.B) {
	const k = 90_000
	dir := b.TempDir()
	data, labels := bigCSV(100_000)
	d, l := filepath.Join(dir, "d.csv"), filepath.Join(dir, "l.csv")
	if os.WriteFile(d, []byte(data), 0o644) != nil || os.WriteFile(l, []byte(labels), 0o644) != nil {
		b.Fatal("cannot write the files")
	}
	open := func() source.Reader[csv.Row] {
		return csv.New(d, csv.Header(), csv.DataColumns(csv.Index(0), csv.Index(1)), csv.LabelFile(l))
	}
	markstest.BenchResume(b, "", open, k, func(row csv.Row) bool { return row.Data[0] == k })
}
