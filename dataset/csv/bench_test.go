package csv_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
)

// benchRows reads one pass of r per iteration and reports rows/s,
// ns/row and (through SetBytes) MB/s.
func benchRows(b *testing.B, r *csv.Reader, rows int, size int64) {
	b.ReportAllocs()
	b.SetBytes(size)
	ctx := context.Background()
	for b.Loop() {
		n := 0
		for _, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != rows {
			b.Fatalf("%d rows, want %d", n, rows)
		}
	}
	total := float64(rows) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/row")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRows reads a generated file of 100,000 rows of 10 float columns
// and a label column.
func BenchmarkRows(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const rows = 100000
	for i := range rows {
		for j := range 10 {
			fmt.Fprintf(w, "%.4f,", float64(i%997)*0.37+float64(j))
		}
		fmt.Fprintf(w, "%d\n", i%10)
	}
	w.Flush()
	f.Close()
	st, _ := os.Stat(path)
	benchRows(b, csv.New(path, csv.LabelColumns(csv.Index(-1))), rows, st.Size())
}

// BenchmarkIris reads the 150 rows of iris.data with its header and
// string classes (the cost of opening a small file included).
func BenchmarkIris(b *testing.B) {
	st, _ := os.Stat(td("iris.data"))
	benchRows(b, csv.New(td("iris.data"), csv.Header(), csv.LabelColumns(csv.Name("Name")),
		csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica")), 150, st.Size())
}
