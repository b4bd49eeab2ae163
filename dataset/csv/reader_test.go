package csv_test

import (
	"context"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

const testdata = "testdata"

func td(name string) string { return filepath.Join(testdata, name) }

func collect(t *testing.T, r source.Reader[csv.Row]) []csv.Row {
	t.Helper()
	rows, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// plain parses a simple (unquoted) CSV file without the package: every
// line split on commas, each field parsed with ParseFloat when it can be.
func plain(t *testing.T, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(td(name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, strings.Split(line, ","))
	}
	return out
}

func f32(t *testing.T, s string) float32 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		t.Fatal(err)
	}
	return float32(v)
}

func floats(t *testing.T, fields []string) []float32 {
	out := make([]float32, len(fields))
	for i, s := range fields {
		out[i] = f32(t, s)
	}
	return out
}

func equalRows(a, b []csv.Row) bool {
	return slices.EqualFunc(a, b, func(x, y csv.Row) bool {
		return slices.Equal(x.Data, y.Data) && slices.Equal(x.Label, y.Label)
	})
}

// The four real layouts give the same Iris rows.
func TestIrisLayouts(t *testing.T) {
	lines := plain(t, "iris.csv")[1:]
	want := make([]csv.Row, len(lines))
	for i, f := range lines {
		want[i] = csv.Row{Data: floats(t, f[:4]), Label: floats(t, f[4:]), Line: i + 2}
	}
	classes := []string{"Iris-setosa", "Iris-versicolor", "Iris-virginica"}
	tests := []struct {
		name  string
		r     *csv.Reader
		lines int // line of the first row
	}{
		{"iris.csv sklearn metadata line", csv.New(td("iris.csv"), csv.SkipRows(1), csv.LabelColumns(csv.Index(-1))), 2},
		{"iris.csv by index", csv.New(td("iris.csv"), csv.SkipRows(1), csv.LabelColumns(csv.Index(4)), csv.DataColumns(csv.Index(0), csv.Index(1), csv.Index(2), csv.Index(3))), 2},
		{"iris.data named header, string classes", csv.New(td("iris.data"), csv.Header(), csv.LabelColumns(csv.Name("Name")), csv.Classes(classes...)), 2},
		{"iris_data.csv + iris_label.csv (CSVIter)", csv.New(td("iris_data.csv"), csv.DataShape(4), csv.LabelFile(td("iris_label.csv")), csv.LabelShape(1)), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collect(t, tt.r)
			if len(got) != 150 || !equalRows(got, want) {
				t.Fatalf("%d rows; first %+v, want %+v", len(got), got[0], want[0])
			}
			if got[0].Line != tt.lines || got[149].Line != tt.lines+149 {
				t.Errorf("lines %d..%d", got[0].Line, got[149].Line)
			}
			hist := map[float32]int{}
			for _, r := range got {
				hist[r.Label[0]]++
			}
			if hist[0] != 50 || hist[1] != 50 || hist[2] != 50 {
				t.Errorf("classes %v", hist)
			}
			l, err := tt.r.Layout()
			if err != nil || !slices.Equal(l.DataShape, []int{4}) || !slices.Equal(l.LabelShape, []int{1}) {
				t.Errorf("layout %+v, %v", l, err)
			}
		})
	}
}

func TestIrisValues(t *testing.T) {
	rows := collect(t, csv.New(td("iris.csv"), csv.SkipRows(1), csv.LabelColumns(csv.Index(-1))))
	if !slices.Equal(rows[0].Data, []float32{5.1, 3.5, 1.4, 0.2}) || rows[0].Label[0] != 0 {
		t.Errorf("first row %+v", rows[0])
	}
	if !slices.Equal(rows[149].Data, []float32{5.9, 3.0, 5.1, 1.8}) || rows[149].Label[0] != 2 {
		t.Errorf("last row %+v", rows[149])
	}
}

func TestIrisDataHeader(t *testing.T) {
	r := csv.New(td("iris.data"), csv.Header(), csv.LabelColumns(csv.Name("Name")), csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica"))
	l, err := r.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Columns, []string{"SepalLength", "SepalWidth", "PetalLength", "PetalWidth", "Name"}) ||
		!slices.Equal(l.DataCols, []int{0, 1, 2, 3}) || !slices.Equal(l.LabelCols, []int{4}) {
		t.Errorf("layout %+v", l)
	}
	// Without Classes the string label is an error at line 2, field 5.
	_, err = source.Collect(context.Background(), csv.New(td("iris.data"), csv.Header(), csv.LabelColumns(csv.Name("Name"))))
	checkErr(t, err, td("iris.data"), 2, 17, 5, csv.ErrNumber, `"Iris-setosa"`)
	// Only some data columns, by name.
	rows := collect(t, csv.New(td("iris.data"), csv.Header(), csv.DataColumns(csv.Name("PetalWidth"), csv.Name("SepalLength")),
		csv.LabelColumns(csv.Name("Name")), csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica")))
	if len(rows) != 150 || !slices.Equal(rows[0].Data, []float32{0.2, 5.1}) {
		t.Errorf("selected columns: %+v", rows[0])
	}
}

func TestIrisCSVIterWithoutLabels(t *testing.T) {
	rows := collect(t, csv.New(td("iris_data.csv"), csv.DataShape(2, 2)))
	if len(rows) != 150 || !slices.Equal(rows[0].Label, []float32{0}) || !slices.Equal(rows[0].Data, []float32{5.1, 3.5, 1.4, 0.2}) {
		t.Errorf("rows %d, first %+v", len(rows), rows[0])
	}
	rows = collect(t, csv.New(td("iris_data.csv"), csv.LabelShape(3)))
	if !slices.Equal(rows[7].Label, []float32{0, 0, 0}) {
		t.Errorf("zero labels of shape [3]: %v", rows[7].Label)
	}
	_, err := source.Collect(context.Background(), csv.New(td("iris_data.csv"), csv.DataShape(5)))
	checkErr(t, err, td("iris_data.csv"), 1, 0, 0, csv.ErrShape, "4 data columns for data shape [5]")
	_, err = csv.New(td("iris_data.csv"), csv.DataShape(5)).Layout()
	if !errors.Is(err, csv.ErrShape) {
		t.Errorf("Layout: %v", err)
	}
	_, err = source.Collect(context.Background(), csv.New(td("iris_data.csv"), csv.LabelFile(td("iris_label.csv")), csv.LabelShape(2)))
	checkErr(t, err, td("iris_label.csv"), 1, 0, 0, csv.ErrShape, "1 labels for label shape [2]")
}

func TestVeterans(t *testing.T) {
	lines := plain(t, "veterans_lung_cancer.csv")
	r := csv.New(td("veterans_lung_cancer.csv"), csv.Header(),
		csv.LabelColumns(csv.Name("Survival_label_lower_bound"), csv.Name("Survival_label_upper_bound")))
	rows := collect(t, r)
	if len(rows) != 137 || len(rows) != len(lines)-1 {
		t.Fatalf("%d rows", len(rows))
	}
	infs := 0
	for i, row := range rows {
		f := lines[i+1]
		if !slices.Equal(row.Data, floats(t, f[2:])) || !slices.Equal(row.Label, floats(t, f[:2])) || row.Line != i+2 {
			t.Fatalf("row %d: %+v, want %v", i, row, f)
		}
		if math.IsInf(float64(row.Label[1]), 1) {
			infs++
		}
	}
	if infs != 9 {
		t.Errorf("%d rows with an inf upper bound, want 9", infs)
	}
	if got := rows[9]; got.Line != 11 || got.Label[0] != 100 || !math.IsInf(float64(got.Label[1]), 1) || got.Data[0] != 70 {
		t.Errorf("line 11: %+v", got)
	}
	l, err := r.Layout()
	if err != nil || len(l.Columns) != 13 || !slices.Equal(l.DataShape, []int{11}) || !slices.Equal(l.LabelShape, []int{2}) {
		t.Errorf("layout %+v %v", l, err)
	}
}

// fieldMember is the Member of an error about field n (from 1) of a row.
func fieldMember(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("field %d", n)
}

// checkErr checks a row error's position and cause. col and field 0 are
// not checked.
func checkErr(t *testing.T, err error, file string, line, col, field int, cause error, text string) {
	t.Helper()
	var pe *tensorfeed.Error
	if !errors.As(err, &pe) || !errors.Is(err, csv.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.Is(err, cause) {
		t.Fatalf("error %v: want a *tensorfeed.Error wrapping ErrFormat, tensorfeed.ErrBadData and %v", err, cause)
	}
	if pe.Path != file || pe.Line != line || (col != 0 && pe.Column != col) || (field != 0 && pe.Member != fieldMember(field)) {
		t.Errorf("error %q at %s:%d:%d %s, want %s:%d:%d field %d", err, pe.Path, pe.Line, pe.Column, pe.Member, file, line, col, field)
	}
	if !strings.Contains(err.Error(), text) || !strings.Contains(err.Error(), file) {
		t.Errorf("error %q does not say %q", err, text)
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		labels  string // label file content, "" for none
		opts    []csv.Option
		rows    int // rows yielded before the error
		inLabel bool
		line    int
		col     int
		field   int
		cause   error
		text    string
	}{
		{name: "ragged row, too few", data: "1,2,3\n4,5,6\n7,8\n9,10,11\n", rows: 2, line: 3, col: 4, field: 3, cause: csv.ErrFieldCount, text: "2 fields, want 3"},
		{name: "ragged row, too many", data: "1,2\n3,4,5\n", rows: 1, line: 2, col: 5, field: 3, cause: csv.ErrFieldCount, text: "3 fields, want 2"},
		{name: "row longer than header", data: "a,b\n1,2,3\n", opts: []csv.Option{csv.Header()}, line: 2, col: 5, field: 3, cause: csv.ErrFieldCount},
		{name: "not a number", data: "1,2\n3,x\n", rows: 1, line: 2, col: 3, field: 2, cause: csv.ErrNumber, text: `"x"`},
		{name: "empty field", data: "1,2\n3,\n", rows: 1, line: 2, col: 3, field: 2, cause: csv.ErrNumber, text: "empty field"},
		{name: "out of float32 range", data: "1e39\n", line: 1, col: 1, field: 1, cause: csv.ErrNumber, text: "range"},
		{name: "bare quote", data: "1,2\n3,4\"5\n", rows: 1, line: 2, col: 4, cause: stdcsv.ErrBareQuote},
		{name: "unterminated quote", data: "1,2\n\"3,4\n", rows: 1, line: 2, cause: stdcsv.ErrQuote},
		{name: "empty file", data: "", line: 1, cause: csv.ErrEmptyCause},
		{name: "header only", data: "a,b\n", opts: []csv.Option{csv.Header()}, line: 2, cause: csv.ErrEmptyCause},
		{name: "skipped rows only", data: "a,b\n", opts: []csv.Option{csv.SkipRows(2)}, line: 2, cause: csv.ErrEmptyCause, text: "SkipRows"},
		{name: "unknown class", data: "1,cat\n2,dog\n3,cow\n", opts: []csv.Option{csv.LabelColumns(csv.Index(1)), csv.Classes("cat", "dog")}, rows: 2, line: 3, col: 3, field: 2, cause: csv.ErrClass, text: `"cow"`},
		{name: "no such column name", data: "a,b\n1,2\n", opts: []csv.Option{csv.Header(), csv.LabelColumns(csv.Name("c"))}, line: 1, cause: csv.ErrColumn, text: `"c"`},
		{name: "no such column index", data: "1,2\n", opts: []csv.Option{csv.LabelColumns(csv.Index(2))}, line: 1, cause: csv.ErrColumn},
		{name: "no data columns", data: "1,2\n", opts: []csv.Option{csv.LabelColumns(csv.Index(0), csv.Index(1))}, line: 1, cause: csv.ErrShape},
		{name: "label file shorter", data: "1\n2\n3\n", labels: "0\n1\n", rows: 2, line: 3, cause: csv.ErrRowCountCause, text: "ends after 2 rows"},
		{name: "label file longer", data: "1\n2\n", labels: "0\n1\n1\n", rows: 2, inLabel: true, line: 3, cause: csv.ErrRowCountCause},
		{name: "label file empty", data: "1\n2\n", labels: "", line: 1, cause: csv.ErrRowCountCause},
		{name: "label file ragged", data: "1\n2\n", labels: "0,1\n1\n", rows: 1, inLabel: true, line: 2, cause: csv.ErrFieldCount},
		{name: "label not a number", data: "1\n2\n", labels: "0\nx\n", rows: 1, inLabel: true, line: 2, col: 1, field: 1, cause: csv.ErrNumber},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := write(t, dir, "data.csv", tt.data)
			opts := tt.opts
			file := path
			if tt.name == "label file shorter" || tt.labels != "" || strings.HasPrefix(tt.name, "label file") {
				lp := write(t, dir, "labels.csv", tt.labels)
				opts = append(opts, csv.LabelFile(lp))
				if tt.inLabel {
					file = lp
				}
			}
			n := 0
			var got error
			for row, err := range csv.New(path, opts...).All(context.Background()) {
				if err != nil {
					if got != nil {
						t.Fatal("second error")
					}
					got = err
					continue
				}
				if len(row.Data) == 0 {
					t.Fatal("empty row")
				}
				n++
			}
			if n != tt.rows {
				t.Errorf("%d rows before the error, want %d", n, tt.rows)
			}
			checkErr(t, got, file, tt.line, tt.col, tt.field, tt.cause, tt.text)
		})
	}
}

func TestAccepted(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	tests := []struct {
		name string
		data string
		opts []csv.Option
		want [][]float32 // data of each row
		lab  [][]float32
	}{
		{"inf and nan", "inf,-inf,nan,+Inf,Infinity,NaN,-0\n", nil, [][]float32{{inf, -inf, nan, inf, inf, nan, 0}}, [][]float32{{0}}},
		{"spaces", " 1 , 2.5\t,3e2 \n", nil, [][]float32{{1, 2.5, 300}}, [][]float32{{0}}},
		{"semicolon", "1;2\n3;4\n", []csv.Option{csv.Delimiter(';')}, [][]float32{{1, 2}, {3, 4}}, [][]float32{{0}, {0}}},
		{"tab, comments, blank lines", "# x\n1\t2\n\n# y\n3\t4\n", []csv.Option{csv.Delimiter('\t'), csv.Comment('#')}, [][]float32{{1, 2}, {3, 4}}, [][]float32{{0}, {0}}},
		{"CRLF", "a,b\r\n1,2\r\n3,4\r\n", []csv.Option{csv.Header(), csv.LabelColumns(csv.Name("a"))}, [][]float32{{2}, {4}}, [][]float32{{1}, {3}}},
		{"BOM and quotes", "\ufeffx,\"y\"\n\"1.5\",2\n", []csv.Option{csv.Header(), csv.LabelColumns(csv.Name("x"))}, [][]float32{{2}}, [][]float32{{1.5}}},
		{"no final newline", "1,2\n3,4", nil, [][]float32{{1, 2}, {3, 4}}, [][]float32{{0}, {0}}},
		{"header names with spaces", "a , b\n1,2\n", []csv.Option{csv.Header(), csv.LabelColumns(csv.Name("b"))}, [][]float32{{1}}, [][]float32{{2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := collect(t, csv.New(write(t, t.TempDir(), "d.csv", tt.data), tt.opts...))
			if len(rows) != len(tt.want) {
				t.Fatalf("%d rows, want %d", len(rows), len(tt.want))
			}
			same := func(a, b []float32) bool {
				return slices.EqualFunc(a, b, func(x, y float32) bool { return x == y || (x != x && y != y) })
			}
			for i, r := range rows {
				if !same(r.Data, tt.want[i]) || !same(r.Label, tt.lab[i]) {
					t.Errorf("row %d: %v %v, want %v %v", i, r.Data, r.Label, tt.want[i], tt.lab[i])
				}
			}
		})
	}
}

func TestRowsDoNotAlias(t *testing.T) {
	rows := collect(t, csv.New(td("iris_data.csv"), csv.LabelFile(td("iris_label.csv"))))
	for i := range rows {
		rows[i].Data = append(rows[i].Data, 99) // must not write into the next row
		rows[i].Label[0] = -1
	}
	again := collect(t, csv.New(td("iris_data.csv")))
	for i := range rows {
		if !slices.Equal(rows[i].Data[:4], again[i].Data) {
			t.Fatalf("row %d changed: %v", i, rows[i].Data)
		}
		if cap(rows[0].Data) > 5 && len(rows[i].Data) != 5 {
			t.Fatal("append")
		}
	}
}

func TestEarlyBreakAndCancel(t *testing.T) {
	r := csv.New(td("veterans_lung_cancer.csv"), csv.Header())
	if n := len(sourcetest.BreakAfter(t, r, 3)); n != 3 {
		t.Errorf("break after %d", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := source.Collect(ctx, r)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled pass: %v", err)
	}
}

func TestMissingFile(t *testing.T) {
	_, err := source.Collect(context.Background(), csv.New("no/such.csv"))
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, tensorfeed.ErrBadData) {
		t.Errorf("missing data file: %v", err)
	}
	_, err = source.Collect(context.Background(), csv.New(td("iris_data.csv"), csv.LabelFile("no/such.csv")))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing label file: %v", err)
	}
}

func TestNewPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"quote delimiter":          func() { csv.New("x", csv.Delimiter('"')) },
		"newline delimiter":        func() { csv.New("x", csv.Delimiter('\n')) },
		"comment equals delimiter": func() { csv.New("x", csv.Comment(',')) },
		"label file and columns":   func() { csv.New("x", csv.LabelFile("y"), csv.LabelColumns(csv.Index(0))) },
		"name without header":      func() { csv.New("x", csv.LabelColumns(csv.Name("a"))) },
		"negative skip":            func() { csv.SkipRows(-1) },
		"zero dimension":           func() { csv.DataShape(4, 0) },
		"no dimensions":            func() { csv.LabelShape() },
		"repeated class":           func() { csv.Classes("a", "b", "a") },
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

func TestColString(t *testing.T) {
	if csv.Name("a b").String() != `"a b"` || csv.Index(-1).String() != "-1" {
		t.Error(csv.Name("a b"), csv.Index(-1))
	}
}

func TestSink(t *testing.T) {
	r := csv.New(td("veterans_lung_cancer.csv"), csv.Header(), csv.LabelColumns(csv.Index(0), csv.Index(1)), csv.DataShape(11, 1))
	l, err := r.Layout()
	if err != nil {
		t.Fatal(err)
	}
	s := l.Sink(8)
	if d, l := s.ProvideData(), s.ProvideLabel(); d[0].String() != "data float32[8 11 1]" || l[0].String() != "softmax_label float32[8 2]" {
		t.Errorf("descs %v %v", d, l)
	}
	rows := collect(t, r)
	b := batch.Batch[csv.Row]{Samples: rows[:3]}
	ts, err := s.Assemble(b)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ts.Get("data")
	label, _ := ts.Get("softmax_label")
	if !slices.Equal(data.F32[11:22], rows[1].Data) || !slices.Equal(label.F32[4:6], rows[2].Label) {
		t.Errorf("tensors %v %v", data.F32[11:22], label.F32[4:6])
	}
	if _, err := csv.New(td("iris_data.csv"), csv.DataShape(3)).Layout(); !errors.Is(err, csv.ErrShape) {
		t.Errorf("Layout with a bad shape: %v", err)
	}
}

func TestLogger(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
	r := csv.New(td("iris_data.csv"))
	if n, err := source.Count(ctx, r); n != 150 || err != nil {
		t.Fatal(n, err)
	}
	if logs.Len() != 1 || logs.All()[0].ContextMap()["file"] != td("iris_data.csv") {
		t.Errorf("logs %v", logs.All())
	}
}

// TestContract checks readers of the test files against the contract of
// source.Reader, including passes that fail and passes that skip.
func TestContract(t *testing.T) {
	classes := csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica")
	dir := t.TempDir()
	bad := write(t, dir, "bad.csv", "1,2\n3,4\n5,x\n7,8\n")
	for name, r := range map[string]*csv.Reader{
		"iris_data.csv with a label file": csv.New(td("iris_data.csv"), csv.LabelFile(td("iris_label.csv"))),
		"iris.data, named classes":        csv.New(td("iris.data"), csv.Header(), csv.LabelColumns(csv.Name("Name")), classes),
		"iris.csv, metadata line":         csv.New(td("iris.csv"), csv.SkipRows(1), csv.LabelColumns(csv.Index(-1))),
		"veterans, two label columns":     csv.New(td("veterans_lung_cancer.csv"), csv.Header(), csv.LabelColumns(csv.Index(0), csv.Index(1))),
		"a bad row":                       csv.New(bad),
		"a bad row skipped":               csv.New(bad, csv.OnBad(source.SkipBad(0.5))),
		"a missing file":                  csv.New(filepath.Join(dir, "none.csv")),
	} {
		if err := sourcetest.TestReader(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A pass stops at the row after its context is cancelled.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n, errs int
	var last error
	for _, err := range csv.New(td("iris.csv"), csv.SkipRows(1), csv.LabelColumns(csv.Index(-1))).All(ctx) {
		if err != nil {
			errs++
			last = err
			continue
		}
		if n++; n == 5 {
			cancel()
		}
	}
	if n != 5 || errs != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("%d rows, %d errors (%v); want 5 and one context.Canceled", n, errs, last)
	}
}

// With ReuseBuffer a pass gives the same rows, consumed one at a time
// (float and integer DTypes, a label file, bad rows skipped after some of
// their fields were parsed), in one shared slice; Load keeps rows of its
// own whatever the option.
func TestReuseBuffer(t *testing.T) {
	dir := t.TempDir()
	data := write(t, dir, "d.csv", "1,2,3\n4,x,6\n7,8,9\n10,11,12\n13,14\n15,16,17\n")
	labels := write(t, dir, "l.csv", "0\n1\n2\n3\n4\n5\n")
	for _, tc := range []struct {
		name string
		opts []csv.Option
	}{
		{"float", []csv.Option{csv.LabelColumns(csv.Index(-1))}},
		{"int64", []csv.Option{csv.LabelColumns(csv.Index(0)), csv.DType(sample.Int64)}},
		{"label file", []csv.Option{csv.LabelFile(labels)}},
	} {
		opts := append(tc.opts, csv.OnBad(source.SkipBad(0.5)))
		want := collect(t, csv.New(data, opts...))
		r := csv.New(data, append(opts, csv.ReuseBuffer())...)
		i := 0
		var first *float32
		var firstInt *int64
		for row, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			w := want[i]
			if !slices.Equal(row.Data, w.Data) || !slices.Equal(row.Label, w.Label) || !slices.Equal(row.IntData, w.IntData) ||
				!slices.Equal(row.IntLabel, w.IntLabel) || row.Line != w.Line {
				t.Fatalf("%s: row %d = %+v, want %+v", tc.name, i, row, w)
			}
			if row.Data != nil {
				if first == nil {
					first = &row.Data[0]
				} else if &row.Data[0] != first {
					t.Fatalf("%s: row %d has memory of its own", tc.name, i)
				}
			}
			if row.IntData != nil {
				if firstInt == nil {
					firstInt = &row.IntData[0]
				} else if &row.IntData[0] != firstInt {
					t.Fatalf("%s: row %d has memory of its own", tc.name, i)
				}
			}
			i++
		}
		if i != len(want) || i != 4 {
			t.Fatalf("%s: %d rows, want %d", tc.name, i, len(want))
		}
		tab, err := r.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for j := range tab.Len() {
			got, _ := tab.Get(j)
			if !slices.Equal(got.Data, want[j].Data) || !slices.Equal(got.IntData, want[j].IntData) {
				t.Fatalf("%s: Load row %d = %+v, want %+v", tc.name, j, got, want[j])
			}
		}
	}
}
