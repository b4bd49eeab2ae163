package csv_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/sink"
)

// MXNet's CSVIter(data_csv="iris_data.csv", data_shape=(4,),
// label_csv="iris_label.csv", batch_size=32): the rows, batched and turned
// into tensors. The last batch is padded with the pass's first rows, as
// CSVIter's round_batch does.
func ExampleNew() {
	r := csv.New("testdata/iris_data.csv", csv.DataShape(4), csv.LabelFile("testdata/iris_label.csv"))
	s, err := r.Sink(32)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.ProvideData(), s.ProvideLabel())
	for t, err := range sink.Tensorize(batch.Of(r, 32, batch.Pad), s).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		data, _ := t.Get("data")
		label, _ := t.Get("softmax_label")
		fmt.Println(data.Shape, data.F32[:4], label.F32[:3], "padded", t.Padded)
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

func ExampleParseError() {
	// Without Classes, iris.data's string labels are not numbers.
	r := csv.New("testdata/iris.data", csv.Header(), csv.LabelColumns(csv.Name("Name")))
	for _, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			break
		}
	}
	// Output: csv: testdata/iris.data:2:17: field 5: not a number: "Iris-setosa" (string labels need Classes)
}
