package csv_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// benchRows runs passes of r with sourcetest.Passes (ns/sample is the cost
// per row) and also reports rows/s and, through SetBytes, MB/s.
func benchRows(b *testing.B, r *csv.Reader, rows int, size int64) {
	b.SetBytes(size)
	sourcetest.Passes(b, r, rows)
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
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

// BenchmarkIrisLarge reads iris.data's rows repeated 2,000 times (300,000
// rows, as the bench's csv row does) with its header, string classes and
// ReuseBuffer: the cost per row of parsing short numbers, without that of
// opening the file.
func BenchmarkIrisLarge(b *testing.B) {
	src, err := os.ReadFile(td("iris.data"))
	if err != nil {
		b.Fatal(err)
	}
	header, body, _ := strings.Cut(string(src), "\n")
	body = strings.TrimRight(body, "\n") + "\n"
	const reps = 2000
	path := filepath.Join(b.TempDir(), "iris_big.data")
	if err := os.WriteFile(path, []byte(header+"\n"+strings.Repeat(body, reps)), 0o644); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	benchRows(b, csv.New(path, csv.Header(), csv.LabelColumns(csv.Name("Name")),
		csv.Classes("Iris-setosa", "Iris-versicolor", "Iris-virginica"), csv.ReuseBuffer()), reps*strings.Count(body, "\n"), st.Size())
}
