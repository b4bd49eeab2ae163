package csv_test

import (
	"context"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/source"
)

// pos is where a row's error points.
type pos struct {
	line, col, field int
	cause            error
}

// pass reads one pass and returns the first value of each row, the
// errors OnSkip saw and the pass's error.
func pass(t *testing.T, r *csv.Reader) (firsts []float32, err error) {
	t.Helper()
	return passCtx(t, context.Background(), r)
}

// passCtx is pass with the given context.
func passCtx(t *testing.T, ctx context.Context, r *csv.Reader) (firsts []float32, err error) {
	t.Helper()
	for row, e := range r.All(ctx) {
		if e != nil {
			if err != nil {
				t.Fatal("second error")
			}
			err = e
			continue
		}
		firsts = append(firsts, row.Data[0])
	}
	return firsts, err
}

func positions(t *testing.T, errs []error) []pos {
	t.Helper()
	var out []pos
	for _, err := range errs {
		var pe *tensorfeed.Error
		if !errors.As(err, &pe) || !errors.Is(err, tensorfeed.ErrBadData) {
			t.Fatalf("skipped %v: not a *tensorfeed.Error wrapping tensorfeed.ErrBadData", err)
		}
		var cause error
		for _, c := range []error{csv.ErrNumber, csv.ErrFieldCount, csv.ErrClass, csv.ErrTooLarge, stdcsv.ErrQuote, stdcsv.ErrBareQuote} {
			if errors.Is(err, c) {
				cause = c
			}
		}
		field := 0
		if pe.Member != "" {
			if _, err := fmt.Sscanf(pe.Member, "field %d", &field); err != nil {
				t.Fatalf("skipped %v: Member %q is not a field", err, pe.Member)
			}
		}
		out = append(out, pos{pe.Line, pe.Column, field, cause})
	}
	return out
}

// A file with a bad number, a short row, a stray quote, an inf refused by
// Finite and a field over MaxFieldBytes among good rows.
const mixed = "1,2\n3,x\n5,6\n7\n8\",9\n10,inf\n11,12345678901\n13,14\n"

func mixedReader(t *testing.T, opts ...csv.Option) *csv.Reader {
	path := write(t, t.TempDir(), "mixed.csv", mixed)
	return csv.New(path, append([]csv.Option{csv.Finite(), csv.MaxFieldBytes(10)}, opts...)...)
}

var mixedBad = []pos{
	{2, 3, 2, csv.ErrNumber},
	{4, 2, 2, csv.ErrFieldCount},
	{5, 2, 0, stdcsv.ErrBareQuote},
	{6, 4, 2, csv.ErrNumber},
	{7, 4, 2, csv.ErrTooLarge},
}

func TestSkipBadDefaultFails(t *testing.T) {
	path := write(t, t.TempDir(), "mixed.csv", mixed)
	firsts, err := pass(t, csv.New(path, csv.Finite(), csv.MaxFieldBytes(10)))
	if !slices.Equal(firsts, []float32{1}) {
		t.Errorf("rows %v, want [1]", firsts)
	}
	checkErr(t, err, path, 2, 3, 2, csv.ErrNumber, `"x"`)
}

func TestSkipBadSkipsAndCounts(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	var skipped []error
	ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
	r := mixedReader(t, csv.OnBad(source.SkipBad(1, source.OnSkip(func(err error) { skipped = append(skipped, err) }))))
	for epoch := 1; epoch <= 2; epoch++ {
		skipped = skipped[:0]
		firsts, err := passCtx(t, ctx, r)
		if err != nil || !slices.Equal(firsts, []float32{1, 5, 13}) {
			t.Fatalf("epoch %d: rows %v, %v", epoch, firsts, err)
		}
		if got := positions(t, skipped); !slices.Equal(got, mixedBad) {
			t.Errorf("epoch %d: skipped %+v, want %+v", epoch, got, mixedBad)
		}
		if r.Skipped() != int64(epoch*len(mixedBad)) {
			t.Errorf("epoch %d: Skipped() = %d", epoch, r.Skipped())
		}
	}
	if logs.Len() != 2*len(mixedBad) || !errors.Is(logs.All()[0].Context[0].Interface.(error), csv.ErrNumber) {
		t.Errorf("%d warnings, want %d: %v", logs.Len(), 2*len(mixedBad), logs.All())
	}
}

// The reader reports its skipped rows to pipeline statistics.
var _ source.SkipCounted = (*csv.Reader)(nil)

func TestSkipBadTooMany(t *testing.T) {
	// Without a known total, the bound is checked as the rows go: the
	// third bad row of five passes half.
	firsts, err := pass(t, mixedReader(t, csv.OnBad(source.SkipBad(0.5))))
	if !errors.Is(err, source.ErrTooManyBad) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.Is(err, stdcsv.ErrBareQuote) || len(firsts) != 2 {
		t.Errorf("rows %v, error %v: want ErrTooManyBad at the bare quote", firsts, err)
	}
	// At most 5 of 7 rows (and 5 of 8 at the end) is within the bound.
	if firsts, err := pass(t, mixedReader(t, csv.OnBad(source.SkipBad(0.75)))); err != nil || len(firsts) != 3 {
		t.Errorf("rows %v, error %v", firsts, err)
	}
	// SkipBad(0) skips nothing.
	if _, err := pass(t, mixedReader(t, csv.OnBad(source.SkipBad(0)))); !errors.Is(err, csv.ErrNumber) {
		t.Errorf("SkipBad(0): %v", err)
	}
}

func TestOnBadSharedPolicy(t *testing.T) {
	p := source.SkipBad(1)
	a, b := mixedReader(t, csv.OnBad(p)), mixedReader(t, csv.OnBad(p))
	for _, r := range []*csv.Reader{a, b} {
		if _, err := pass(t, r); err != nil {
			t.Fatal(err)
		}
	}
	if p.Skipped() != 2*int64(len(mixedBad)) || a.Skipped() != p.Skipped() {
		t.Errorf("policy skipped %d, reader says %d", p.Skipped(), a.Skipped())
	}
	if csv.New("x").Skipped() != 0 {
		t.Error("a reader without a policy skipped rows")
	}
}

// A bad data row and its label row are skipped together, and so is a good
// data row with a bad label row.
func TestSkipBadLabelFile(t *testing.T) {
	tests := []struct {
		name, data, labels string
		bad                pos
		inLabel            bool
	}{
		{"bad data row", "1\nx\n3\n", "0\n1\n2\n", pos{2, 1, 1, csv.ErrNumber}, false},
		{"bad label row", "1\n2\n3\n", "0\ny\n2\n", pos{2, 1, 1, csv.ErrNumber}, true},
		{"ragged label row", "1\n2\n3\n", "0\n1,1\n2\n", pos{2, 3, 2, csv.ErrFieldCount}, true},
		{"bare quote in label row", "1\n2\n3\n", "0\n1\"\n2\n", pos{2, 2, 0, stdcsv.ErrBareQuote}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var skipped []error
			lp := write(t, dir, "labels.csv", tt.labels)
			r := csv.New(write(t, dir, "data.csv", tt.data), csv.LabelFile(lp),
				csv.OnBad(source.SkipBad(1, source.OnSkip(func(err error) { skipped = append(skipped, err) }))))
			rows, err := source.Collect(context.Background(), r)
			if err != nil || len(rows) != 2 || rows[0].Data[0] != 1 || rows[1].Data[0] != 3 || rows[1].Label[0] != 2 || rows[1].Line != 3 {
				t.Fatalf("rows %+v, %v", rows, err)
			}
			var pe *tensorfeed.Error
			if got := positions(t, skipped); len(got) != 1 || got[0] != tt.bad || !errors.As(skipped[0], &pe) || (pe.Path == lp) != tt.inLabel {
				t.Errorf("skipped %v, want %+v", skipped, tt.bad)
			}
		})
	}
}

// Problems with the file rather than a row end the pass under any policy.
func TestSkipBadStructural(t *testing.T) {
	tests := []struct {
		name, data, labels string
		opts               []csv.Option
		rows               int
		cause              error
	}{
		{name: "line too long", data: "1,2\n3,4444444444\n5,6\n", opts: []csv.Option{csv.MaxLineBytes(8)}, rows: 1, cause: csv.ErrTooLarge},
		{name: "label file shorter", data: "1\n2\n3\n", labels: "0\n1\n", rows: 2, cause: csv.ErrRowCountCause},
		{name: "label file longer", data: "1\n2\n", labels: "0\n1\n2\n", rows: 2, cause: csv.ErrRowCountCause},
		{name: "header only", data: "a,b\n", opts: []csv.Option{csv.Header()}, cause: csv.ErrEmptyCause},
		{name: "no such column", data: "a,b\n1,2\n", opts: []csv.Option{csv.Header(), csv.LabelColumns(csv.Name("c"))}, cause: csv.ErrColumn},
		{name: "broken header", data: "a,\"b\n1,2\n", opts: []csv.Option{csv.Header()}, cause: stdcsv.ErrQuote},
		{name: "missing file", cause: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := dir + "/missing.csv"
			if tt.cause != fs.ErrNotExist {
				path = write(t, dir, "data.csv", tt.data)
			}
			opts := append(tt.opts, csv.OnBad(source.SkipBad(1)))
			if tt.labels != "" {
				opts = append(opts, csv.LabelFile(write(t, dir, "labels.csv", tt.labels)))
			}
			firsts, err := pass(t, csv.New(path, opts...))
			if len(firsts) != tt.rows || !errors.Is(err, tt.cause) {
				t.Errorf("rows %v, error %v: want %d rows and %v", firsts, err, tt.rows, tt.cause)
			}
			if tt.cause == fs.ErrNotExist && errors.Is(err, tensorfeed.ErrBadData) {
				t.Errorf("a missing file is reported as bad data: %v", err)
			}
		})
	}
}

// Limits on quoted fields that hold line breaks: the row's bytes count
// over all its lines, and a field over MaxFieldBytes is consumed whole,
// so that the next row is read from its start.
func TestLimitsAcrossLines(t *testing.T) {
	long := "1,2\n\"" + strings.Repeat("a", 30) + "\n" + strings.Repeat("b", 30) + "\",3\n4,5\n"
	var skipped []error
	r := csv.New(write(t, t.TempDir(), "d.csv", long), csv.MaxFieldBytes(40),
		csv.OnBad(source.SkipBad(1, source.OnSkip(func(err error) { skipped = append(skipped, err) }))))
	firsts, err := pass(t, r)
	if err != nil || !slices.Equal(firsts, []float32{1, 4}) {
		t.Fatalf("rows %v, %v", firsts, err)
	}
	if got := positions(t, skipped); len(got) != 1 || got[0] != (pos{2, 1, 1, csv.ErrTooLarge}) {
		t.Errorf("skipped %+v", got)
	}
	// Lines 2 to 4 hold 5, 4 and 6 bytes: the limit of 10 is passed at
	// the second byte of line 4.
	path := write(t, t.TempDir(), "d.csv", "1,2\n\"aaaa\nbbbb\nccc\",1\n")
	_, err = pass(t, csv.New(path, csv.MaxLineBytes(10)))
	checkErr(t, err, path, 4, 2, 0, csv.ErrTooLarge, "more than 10 bytes")
}

func TestLimitPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"zero line":  func() { csv.MaxLineBytes(0) },
		"huge line":  func() { csv.MaxLineBytes(1<<30 + 1) },
		"zero field": func() { csv.MaxFieldBytes(0) },
		"bad skip":   func() { csv.OnBad(source.SkipBad(2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
