package main

import (
	"bufio"
	stdcsv "encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
)

// The Iris layout of data/csv/iris.data: a header, four float columns and
// the class name.
var irisClasses = []string{"Iris-setosa", "Iris-versicolor", "Iris-virginica"}

const (
	irisFeatures = 4
	// csvOut is the output of one row: four float32 values and a float32
	// label.
	csvOut = (irisFeatures + 1) * 4
)

// csvRows measures rows per second parsing the Iris layout (header, four
// numbers, a string class) repeated into a large file made at run time.
func csvRows(cfg config) ([]Row, error) {
	src, err := os.ReadFile(filepath.Join(cfg.repo, "dataset", "csv", "testdata", "iris.data"))
	if err != nil {
		return nil, err
	}
	header, body, ok := strings.Cut(string(src), "\n")
	if !ok {
		return nil, fmt.Errorf("iris.data: no header")
	}
	body = strings.TrimRight(body, "\n") + "\n"
	reps := cfg.size(2000, 20000, 10) // short: 300,000 rows, about 8 MB
	dir, err := os.MkdirTemp("", "tensorfeed-bench-csv-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "iris_big.data")
	var sb strings.Builder
	sb.Grow(len(header) + 1 + reps*len(body))
	sb.WriteString(header + "\n")
	for range reps {
		sb.WriteString(body)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		return nil, err
	}
	rows := reps * strings.Count(body, "\n")
	outBytes := int64(rows) * csvOut

	r := csv.New(path, csv.Header(), csv.LabelColumns(csv.Name("Name")), csv.Classes(irisClasses...), csv.ReuseBuffer())
	var got, want float64
	var n int
	rs, err := measureEach(cfg.cheapReps(), readPass(r, func(sum float64, row csv.Row) (float64, error) {
		return consumeCSV(sum, row.Data, row.Label[0]), nil
	}, &got, &n), func() (err error) { want, err = csvPlain(path); return err })
	if err != nil {
		return nil, err
	}
	if n != rows || got != want {
		return nil, fmt.Errorf("csv: library read %d rows (checksum %v), plain loop checksum %v, want %d rows", n, got, want, rows)
	}
	floor, err := measureFloor(cfg.cheapReps(), outBytes, 64<<10)
	if err != nil {
		return nil, err
	}
	row := newRow("csv", 1, rows, outBytes, rs[0], rs[1], floor)
	row.Note = fmt.Sprintf("iris.data x %d (%.1f MB): csv.New with Header, LabelColumns(Name), Classes, ReuseBuffer; "+
		"plain: encoding/csv with ReuseRecord, strconv.ParseFloat, a class map", reps, float64(sb.Len())/1e6)
	return []Row{row}, nil
}

// consumeCSV folds a row into a checksum.
func consumeCSV(sum float64, data []float32, label float32) float64 {
	for _, v := range data {
		sum += float64(v)
	}
	return sum + float64(label)*1000
}

// csvPlain is the loop a user writes with encoding/csv: skip the header,
// parse four floats and look the class up, into one reused row.
func csvPlain(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cr := stdcsv.NewReader(bufio.NewReaderSize(f, 64<<10))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = irisFeatures + 1
	classes := make(map[string]float32, len(irisClasses))
	for i, c := range irisClasses {
		classes[c] = float32(i)
	}
	if _, err := cr.Read(); err != nil { // the header
		return 0, err
	}
	var data [irisFeatures]float32
	var sum float64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return sum, nil
		}
		if err != nil {
			return 0, err
		}
		for i := range data {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 32)
			if err != nil {
				line, _ := cr.FieldPos(i)
				return 0, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			data[i] = float32(v)
		}
		label, ok := classes[strings.TrimSpace(rec[irisFeatures])]
		if !ok {
			line, _ := cr.FieldPos(irisFeatures)
			return 0, fmt.Errorf("%s:%d: unknown class %q", path, line, rec[irisFeatures])
		}
		sum = consumeCSV(sum, data[:], label)
	}
}
