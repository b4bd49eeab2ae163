package parquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// Point is the row type of the examples: parquet-go's tags name the
// columns, and ",list" makes a slice a LIST column.
type Point struct {
	Features []float32 `parquet:"features,list"`
	Label    int64     `parquet:"label"`
}

// writePoints writes six points in row groups of two rows to a new
// folder, and returns the file's path and a function that removes it.
func writePoints() (string, func()) {
	dir, err := os.MkdirTemp("", "parquet-example")
	if err != nil {
		panic(err)
	}
	var points []Point
	for i := range 6 {
		points = append(points, Point{Features: []float32{float32(i), float32(i) / 10}, Label: int64(i % 2)})
	}
	path := filepath.Join(dir, "points.parquet")
	if err := writeFile(path, points, parquet.RowGroupRows(2)); err != nil {
		panic(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

func ExampleWriter() {
	dir, err := os.MkdirTemp("", "parquet-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "points.parquet")

	// Rows go to a temporary file in dir; Close renames it to path.
	w, err := parquet.Create[Point](path, parquet.RowGroupRows(1000), parquet.Zstd())
	if err != nil {
		panic(err)
	}
	for i := range 2500 {
		if err := w.Write(Point{Features: []float32{float32(i), 1}, Label: int64(i % 3)}); err != nil {
			w.Abort()
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	d, err := parquet.OpenIndexed(parquet.Read[Point](path))
	if err != nil {
		panic(err)
	}
	defer d.Close()
	last, _ := d.Get(d.Len() - 1)
	fmt.Println(d.Len(), "rows; the last:", last.Features, last.Label)
	// Output:
	// 2500 rows; the last: [2499 1] 0
}

func ExampleRead() {
	path, remove := writePoints()
	defer remove()

	// Each pass opens the file, checks its footer and the columns Point
	// names, and decodes one row group at a time.
	for p, err := range parquet.Read[Point](path).All(context.Background()) {
		if err != nil {
			panic(err) // a *tensorfeed.Error names the file, row, column and row group
		}
		fmt.Println(p.Features, p.Label)
	}
	// Output:
	// [0 0] 0
	// [1 0.1] 1
	// [2 0.2] 0
	// [3 0.3] 1
	// [4 0.4] 0
	// [5 0.5] 1
}

func ExampleReadColumns() {
	path, remove := writePoints()
	defer remove()

	// Two columns as tensor fields: features as [2] float32, label as a
	// scalar int64. A row whose list has another length is a bad record.
	cols := []parquet.Column{parquet.Float32("features", 2), parquet.Int64("label")}
	r := parquet.ReadColumns(path, cols)
	fields := parquet.Fields(cols)
	tensors := sink.New(4, fields[:1], fields[1:]) // features as data, label as label
	fmt.Println(tensors.ProvideData(), tensors.ProvideLabel())

	for t, err := range pipeline.Tensorize(pipeline.From(r), tensors, batch.Keep).All(context.Background()) {
		if err != nil {
			panic(err)
		}
		x, _ := t.Get("features")
		y, _ := t.Get("label")
		fmt.Println(x.Shape, x.F32, y.I64)
		t.Release()
	}
	// Output:
	// [features float32[4 2]] [label int64[4]]
	// [4 2] [0 0 1 0.1 2 0.2 3 0.3] [0 1 0 1]
	// [2 2] [4 0.4 5 0.5] [0 1]
}

func ExampleOpenIndexed() {
	path, remove := writePoints()
	defer remove()

	d, err := parquet.OpenIndexed(parquet.Read[Point](path))
	if err != nil {
		panic(err)
	}
	defer d.Close()

	// A global shuffle by index, seeded: every epoch its own order, and a
	// run resumes at any position of an epoch without reading the rows
	// before it (From).
	r := source.ReadIndexed[Point](d, source.ShuffleIndex(7))
	ctx := source.WithEpoch(context.Background(), 0)
	all, err := source.Collect(ctx, r)
	if err != nil {
		panic(err)
	}
	rest, err := source.Collect(ctx, r.From(4))
	if err != nil {
		panic(err)
	}
	var order []float32
	for _, p := range all {
		order = append(order, p.Features[0])
	}
	fmt.Println("epoch 0:", order)
	fmt.Println("from 4:", rest[0].Features[0], rest[1].Features[0])
	// Output:
	// epoch 0: [4 3 0 2 5 1]
	// from 4: 5 1
}
