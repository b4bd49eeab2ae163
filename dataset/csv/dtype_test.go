package csv_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// checkCSVIterDType is MXNet's check_CSVIter_synthetic: a data file of
// rows of 64 copies of entry, read with data_shape (8, 8), a label file of
// zeros, batch_size 4 and dtype; every batch must hold entry exactly, in
// tensors of dtype.
func checkCSVIterDType(t *testing.T, dtype sample.DType, entry int64, entryStr string) {
	t.Helper()
	dir := t.TempDir()
	const rows = 1000
	data := write(t, dir, "data.csv", strings.Repeat(strings.TrimSuffix(strings.Repeat(entryStr+",", 64), ",")+"\n", rows))
	label := write(t, dir, "label.csv", strings.Repeat("0\n", rows))
	r := csv.New(data, csv.DataShape(8, 8), csv.LabelFile(label), csv.DType(dtype))
	l, err := r.Layout()
	if err != nil {
		t.Fatal(err)
	}
	s := l.Sink(4)
	if d, lb := s.ProvideData()[0], s.ProvideLabel()[0]; d.DType != dtype || lb.DType != dtype || !slices.Equal(d.Shape, []int{4, 8, 8}) {
		t.Fatalf("descs %v %v", d, lb)
	}
	batches := 0
	for b, err := range pipeline.Tensorize(pipeline.From(r), s, batch.Pad).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		d, _ := b.Get("data")
		lb, _ := b.Get("softmax_label")
		if d.DType != dtype || lb.DType != dtype {
			t.Fatalf("batch %d: dtypes %v %v, want %v", batches, d.DType, lb.DType, dtype)
		}
		var got, labels []int64
		switch dtype {
		case sample.Int32:
			for _, v := range d.I32 {
				got = append(got, int64(v))
			}
			for _, v := range lb.I32 {
				labels = append(labels, int64(v))
			}
		case sample.Int64:
			got, labels = d.I64, lb.I64
		}
		if len(got) != 4*64 || slices.ContainsFunc(got, func(v int64) bool { return v != entry }) {
			t.Fatalf("batch %d: data %v, want 256 copies of %d", batches, got, entry)
		}
		if len(labels) != 4 || slices.ContainsFunc(labels, func(v int64) bool { return v != 0 }) {
			t.Fatalf("batch %d: labels %v", batches, labels)
		}
		batches++
		b.Release()
	}
	if batches != rows/4 {
		t.Errorf("%d batches, want %d", batches, rows/4)
	}
}

// TestCSVIterDTypeInt32 is MXNet's test_CSVIter with dtype int32:
// 200000001, which float32 rounds to 200000000, comes back exactly.
func TestCSVIterDTypeInt32(t *testing.T) {
	if v := int64(200000001); int64(float32(v)) == v {
		t.Fatal("float32 holds 200000001: the test proves nothing")
	}
	checkCSVIterDType(t, sample.Int32, 200000001, "200000001")
}

// TestCSVIterDTypeInt64 is MXNet's test_CSVIter with dtype int64:
// 2147483648, one beyond int32, comes back exactly.
func TestCSVIterDTypeInt64(t *testing.T) {
	checkCSVIterDType(t, sample.Int64, 2147483648, "2147483648")
}

// TestCSVIterDTypeBadValues checks that a value an integer DType cannot
// hold is a bad row at its position, which SkipBad may skip.
func TestCSVIterDTypeBadValues(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		dtype      sample.DType
		content    string
		line, col  int
		field      int
		errContain string
	}{
		{sample.Int32, "1,2\n3,2147483648\n", 2, 3, 2, "out of the int32 range"},
		{sample.Int32, "1,2\n3,-2147483649\n", 2, 3, 2, "out of the int32 range"},
		{sample.Int64, "1,9223372036854775808\n", 1, 3, 2, "out of the int64 range"},
		{sample.Int32, "1,2\n1.5,4\n", 2, 1, 1, "is not an int32"},
		{sample.Int64, "1, 2\n3,1e3\n", 2, 3, 2, "is not an int64"},
		{sample.Int64, "nan,2\n", 1, 1, 1, "is not an int64"},
		{sample.Int32, "1,\n", 1, 3, 2, "empty field"},
	} {
		p := write(t, dir, "bad.csv", tt.content)
		_, err := source.Collect(context.Background(), csv.New(p, csv.DType(tt.dtype)))
		var pe *tensorfeed.Error
		if !errors.As(err, &pe) || !errors.Is(err, csv.ErrNumber) || pe.Line != tt.line || pe.Column != tt.col || pe.Member != fieldMember(tt.field) || !strings.Contains(err.Error(), tt.errContain) {
			t.Errorf("%v %q: error %v, want %d:%d field %d %q", tt.dtype, tt.content, err, tt.line, tt.col, tt.field, tt.errContain)
		}
	}
	p := write(t, dir, "skip.csv", "1,2\n3,2147483648\n5,6\n")
	rows, err := source.Collect(context.Background(), csv.New(p, csv.DType(sample.Int32), csv.OnBad(source.SkipBad(0.5))))
	if err != nil || len(rows) != 2 || !slices.Equal(rows[1].IntData, []int64{5, 6}) || rows[1].Data != nil {
		t.Errorf("skipped: %+v, %v", rows, err)
	}
}

// TestCSVIterDTypeLabels checks integer labels from columns and from
// Classes, and that the float32 default is unchanged.
func TestCSVIterDTypeLabels(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "ints.csv", "a,b,c\n1,-2,x\n 3 ,+4,y\n")
	r := csv.New(p, csv.Header(), csv.LabelColumns(csv.Name("c")), csv.Classes("x", "y"), csv.DType(sample.Int32))
	rows, err := source.Collect(context.Background(), r)
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	if !slices.Equal(rows[0].IntData, []int64{1, -2}) || !slices.Equal(rows[1].IntData, []int64{3, 4}) ||
		!slices.Equal(rows[0].IntLabel, []int64{0}) || !slices.Equal(rows[1].IntLabel, []int64{1}) || rows[0].Data != nil || rows[0].Label != nil {
		t.Errorf("rows %+v", rows)
	}
	dst := make([]int32, 2)
	csv.FillDataInt32(rows[0], dst)
	if !slices.Equal(dst, []int32{1, -2}) {
		t.Errorf("FillDataInt32: %v", dst)
	}
	rows, err = source.Collect(context.Background(), csv.New(write(t, dir, "f.csv", "200000001\n")))
	if err != nil || rows[0].Data[0] != 200000000 || rows[0].IntData != nil {
		t.Errorf("float32 default: %+v, %v", rows, err)
	}
	for _, d := range []sample.DType{sample.Int32, sample.Int64} {
		if err := sourcetest.TestReader(csv.New(p, csv.Header(), csv.LabelColumns(csv.Index(-1)), csv.Classes("x", "y"), csv.DType(d))); err != nil {
			t.Errorf("%v: %v", d, err)
		}
	}
}

func TestDTypePanics(t *testing.T) {
	for _, d := range []sample.DType{0, sample.Uint8, sample.Float64} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("DType(%v) did not panic", d)
				}
			}()
			csv.DType(d)
		}()
	}
}
