package csv_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// MXNet's CSVIter(data_csv="iris_data.csv", data_shape=(4,),
// label_csv="iris_label.csv", batch_size=32): the rows, batched and turned
// into tensors. The last batch is padded with the pass's first rows, as
// CSVIter's round_batch does.
func ExampleNew() {
	r := csv.New("testdata/iris_data.csv", csv.DataShape(4), csv.LabelFile("testdata/iris_label.csv"))
	l, err := r.Layout()
	if err != nil {
		fmt.Println(err)
		return
	}
	s := l.Sink(32)
	fmt.Println(s.ProvideData(), s.ProvideLabel())
	for b, err := range pipeline.Tensorize(pipeline.From(r), s, batch.Pad).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		data, _ := b.Get("data")
		label, _ := b.Get("softmax_label")
		fmt.Println(data.Shape, data.F32[:4], label.F32[:3], "padded", b.Padded)
		b.Release() // the sink may fill this memory again
	}
	// Output:
	// [data float32[32 4]] [softmax_label float32[32 1]]
	// [32 4] [5.1 3.5 1.4 0.2] [0 0 0] padded 0
	// [32 4] [5.2 4.1 1.5 0.1] [0 0 0] padded 0
	// [32 4] [5.6 2.9 3.6 1.3] [1 1 1] padded 0
	// [32 4] [5.7 2.9 4.2 1.3] [1 1 1] padded 0
	// [32 4] [6.4 2.8 5.6 2.1] [2 2 2] padded 10
}

// iris.data has a named header and string classes.
func ExampleClasses() {
	r := csv.New("testdata/iris.data", csv.Header(),
		csv.LabelColumns(csv.Name("Name")),
		csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica"))
	count := map[float32]int{}
	for row, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		count[row.Label[0]]++
	}
	fmt.Println(count)
	// Output: map[0:50 1:50 2:50]
}

// iris.csv, scikit-learn's layout: a metadata line, then rows whose last
// column is the class.
func ExampleSkipRows() {
	r := csv.New("testdata/iris.csv", csv.SkipRows(1), csv.LabelColumns(csv.Index(-1)))
	for row, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("line", row.Line, row.Data, row.Label)
		break
	}
	// Output: line 2 [5.1 3.5 1.4 0.2] [0]
}

// Two label columns by name from a file with a header, whose upper bounds
// include inf.
func ExampleLabelColumns() {
	r := csv.New("testdata/veterans_lung_cancer.csv", csv.Header(),
		csv.LabelColumns(csv.Name("Survival_label_lower_bound"), csv.Name("Survival_label_upper_bound")))
	l, err := r.Layout()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("data", l.DataShape, "labels", l.LabelShape)
	for row, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if row.Line == 11 {
			fmt.Println("line 11 labels", row.Label)
		}
	}
	// Output:
	// data [11] labels [2]
	// line 11 labels [100 +Inf]
}

func ExampleReader_Layout() {
	l, err := csv.New("testdata/iris.data", csv.Header(), csv.DataColumns(csv.Name("PetalLength"), csv.Name("PetalWidth"))).Layout()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Columns, l.DataCols, l.DataShape, l.LabelShape)
	// Output: [SepalLength SepalWidth PetalLength PetalWidth Name] [2 3] [2] [1]
}

func Example_errorPosition() {
	// Without Classes, iris.data's string labels are not numbers.
	r := csv.New("testdata/iris.data", csv.Header(), csv.LabelColumns(csv.Name("Name")))
	for _, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			break
		}
	}
	// Output: testdata/iris.data: line 2, column 17: member "field 5": csv: not a number: "Iris-setosa" (string labels need Classes)
}

// writeTemp writes content to a file in a new temporary directory and
// returns its path and a function that removes the directory.
func writeTemp(content string) (string, func()) {
	dir, err := os.MkdirTemp("", "csv-example")
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		panic(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// A file with bad rows read as tensorfeed check --all reads it: every bad
// row is skipped and reported once with its line and column, and the pass
// goes on. SkipBad(0.01) would instead end the pass once more than 1% of
// the rows are bad.
func ExampleSkipBad() {
	path, cleanup := writeTemp("x,y,label\n1,2,0\n3,oops,1\n5,6\n7,8,nan\n9,10,1\n")
	defer cleanup()
	report := func(err error) {
		var pe *tensorfeed.Error
		if errors.As(err, &pe) {
			fmt.Printf("line %d, column %d: %v\n", pe.Line, pe.Column, pe.Err)
		}
	}
	r := csv.New(path, csv.Header(), csv.LabelColumns(csv.Name("label")), csv.Finite(),
		csv.OnBad(source.SkipBad(1, source.OnSkip(report))))
	rows, err := source.Collect(context.Background(), r)
	fmt.Println(len(rows), "rows,", r.Skipped(), "skipped, error:", err)
	// Output:
	// line 3, column 3: csv: not a number: "oops"
	// line 4, column 4: csv: wrong number of fields: 2 fields, want 3
	// line 5, column 5: csv: not a number: "nan" is not finite (Finite)
	// 2 rows, 3 skipped, error: <nil>
}

// A file whose second line is a megabyte of digits: the pass stops there,
// having read only the first 64 KiB of the line, with an error that says
// where.
func ExampleMaxLineBytes() {
	path, cleanup := writeTemp("1,2\n" + strings.Repeat("3", 1<<20) + ",4\n")
	defer cleanup()
	_, err := source.Collect(context.Background(), csv.New(path, csv.MaxLineBytes(64<<10)))
	var pe *tensorfeed.Error
	if errors.As(err, &pe) {
		fmt.Printf("line %d, column %d: %v\n", pe.Line, pe.Column, pe.Err)
	}
	fmt.Println(errors.Is(err, csv.ErrTooLarge), errors.Is(err, tensorfeed.ErrBadData))
	// Output:
	// line 2, column 65537: csv: line too long: a row of more than 65536 bytes (MaxLineBytes)
	// true true
}

// MXNet's CSVIter(data_csv=..., data_shape=(2,), batch_size=2,
// dtype="int32"): integer data comes back exactly, in int32 tensors, where
// float32 would round 200000001 to 200000000.
func ExampleDType() {
	path, cleanup := writeTemp("200000001,7\n-3,2147483647\n")
	defer cleanup()
	r := csv.New(path, csv.DType(sample.Int32))
	l, err := r.Layout()
	if err != nil {
		fmt.Println(err)
		return
	}
	s := l.Sink(2)
	fmt.Println(s.ProvideData(), s.ProvideLabel())
	for b, err := range pipeline.Tensorize(pipeline.From(r), s, batch.Pad).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		data, _ := b.Get("data")
		fmt.Println(data.I32)
		b.Release()
	}
	// A value beyond int32, or one that is not an integer, is a bad row.
	path2, cleanup2 := writeTemp("1,2147483648\n1.5,2\n")
	defer cleanup2()
	report := func(err error) {
		var pe *tensorfeed.Error
		if errors.As(err, &pe) {
			fmt.Printf("line %d, column %d: %v\n", pe.Line, pe.Column, pe.Err)
		}
	}
	_, err = source.Collect(context.Background(), csv.New(path2, csv.DType(sample.Int32), csv.OnBad(source.SkipBad(1, source.OnSkip(report)))))
	fmt.Println(err)
	// Output:
	// [data int32[2 2]] [softmax_label int32[2 1]]
	// [200000001 7 -3 2147483647]
	// line 1, column 3: csv: not a number: "2147483648" is out of the int32 range (DType)
	// line 2, column 1: csv: not a number: "1.5" is not an int32 (DType)
	// <nil>
}
