package parquet_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// The files under testdata were written by other Parquet implementations
// (Impala, Spark, Arrow); testdata/SOURCES.md says where they come from.

type allTypes struct {
	ID     int32   `parquet:"id,optional"`
	Bool   bool    `parquet:"bool_col,optional"`
	BigInt int64   `parquet:"bigint_col,optional"`
	Float  float32 `parquet:"float_col,optional"`
	Double float64 `parquet:"double_col,optional"`
	Date   string  `parquet:"date_string_col,optional"`
	Str    string  `parquet:"string_col,optional"`
}

type pageV2 struct {
	A string  `parquet:"a,optional"`
	B int32   `parquet:"b"`
	C float64 `parquet:"c"`
	D bool    `parquet:"d"`
	E []int32 `parquet:"e,list,optional"`
}

type lz4Raw struct {
	C0  int64   `parquet:"c0"`
	C1  []byte  `parquet:"c1"`
	V11 float64 `parquet:"v11,optional"`
}

// TestImpalaDictionary reads alltypes_plain.parquet (Impala, dictionary
// pages, optional columns) as structs and as columns.
func TestImpalaDictionary(t *testing.T) {
	ctx := context.Background()
	paths := "testdata/alltypes_plain.parquet"
	rows, err := source.Collect(ctx, parquet.Read[allTypes](paths))
	if err != nil {
		t.Fatal(err)
	}
	ids := []int32{4, 5, 6, 7, 2, 3, 0, 1}
	if len(rows) != len(ids) {
		t.Fatalf("%d rows, want %d", len(rows), len(ids))
	}
	for i, r := range rows {
		odd := r.ID%2 == 1
		if r.ID != ids[i] || r.Bool == odd || (r.BigInt == 10) != odd || (r.Float == 1.1) != odd ||
			(r.Double == 10.1) != odd || (r.Str == "1") != odd || len(r.Date) != 8 {
			t.Fatalf("row %d: %+v", i, r)
		}
	}
	if rows[0].Date != "03/01/09" || rows[7].Date != "01/01/09" {
		t.Fatalf("dates %q, %q", rows[0].Date, rows[7].Date)
	}
	cols := []parquet.Column{parquet.Int32("id"), parquet.Float32("float_col"), parquet.Uint8("date_string_col", 8),
		parquet.Int64("bigint_col")}
	got, err := source.Collect(ctx, parquet.ReadColumns(paths, cols))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		w := rows[i]
		if r.Index != int64(i) || r.I32[0][0] != w.ID || r.F32[1][0] != w.Float || string(r.U8[2]) != w.Date ||
			r.I64[3][0] != w.BigInt {
			t.Fatalf("row %d: %+v, want %+v", i, r, w)
		}
	}
	if err := sourcetest.TestReader(parquet.ReadColumns(paths, cols)); err != nil {
		t.Fatal(err)
	}
	// string_col holds one byte a row: 8 bytes a row do not fit.
	_, err = source.Collect(ctx, parquet.ReadColumns(paths, []parquet.Column{parquet.Uint8("string_col", 8)}))
	if !errors.Is(err, parquet.ErrShapeCause) {
		t.Fatalf("string_col as 8 bytes: %v", err)
	}
}

// TestSparkPageV2 reads datapage_v2.snappy.parquet (Spark, data pages v2,
// snappy, delta-encoded integers, a list column with rows of 3, 0 and 2
// values and a null).
func TestSparkPageV2(t *testing.T) {
	ctx := context.Background()
	paths := "testdata/datapage_v2.snappy.parquet"
	rows, err := source.Collect(ctx, parquet.Read[pageV2](paths))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for i, r := range rows {
		if r.B != int32(i+1) {
			t.Fatalf("row %d: b = %d", i, r.B)
		}
	}
	if r := rows[0]; r.A != "abc" || r.C != 2 || !r.D || len(r.E) != 3 || r.E[2] != 3 {
		t.Fatalf("row 0: %+v", r)
	}
	if r := rows[4]; r.C != 2 || len(r.E) != 2 || r.E[1] != 2 {
		t.Fatalf("row 4: %+v", r)
	}
	// As a [3] int32 column, the rows with another length are bad records.
	cols := []parquet.Column{parquet.Int32("b"), parquet.Int32("e", 3)}
	_, err = source.Collect(ctx, parquet.ReadColumns(paths, cols))
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) || !errors.Is(err, parquet.ErrShapeCause) || fe.Record != 1 || fe.Member != "e" {
		t.Fatalf("list of 0 values: %v", err)
	}
	skip := source.SkipBad(1)
	got, err := source.Collect(ctx, parquet.ReadColumns(paths, cols, parquet.OnBad(skip)))
	if err != nil || len(got) != 2 || skip.Skipped() != 3 {
		t.Fatalf("skipping: %d rows, %d skipped, %v", len(got), skip.Skipped(), err)
	}
	if got[0].I32[0][0] != 1 || got[1].I32[0][0] != 4 || got[1].I32[1][2] != 3 {
		t.Fatalf("rows kept: %+v", got)
	}
}

// TestArrowLZ4 reads lz4_raw_compressed.parquet (Arrow, LZ4_RAW pages).
func TestArrowLZ4(t *testing.T) {
	ctx := context.Background()
	paths := "testdata/lz4_raw_compressed.parquet"
	rows, err := source.Collect(ctx, parquet.Read[lz4Raw](paths))
	if err != nil {
		t.Fatal(err)
	}
	want := []lz4Raw{{1593604800, []byte("abc"), 42}, {1593604800, []byte("def"), 7.7},
		{1593604801, []byte("abc"), 42.125}, {1593604801, []byte("def"), 7.7}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if w := want[i]; r.C0 != w.C0 || string(r.C1) != string(w.C1) || r.V11 != w.V11 {
			t.Fatalf("row %d: %+v, want %+v", i, r, w)
		}
	}
	got, err := source.Collect(ctx, parquet.ReadColumns(paths, []parquet.Column{parquet.Int64("c0"), parquet.Uint8("c1", 3)}))
	if err != nil || len(got) != 4 || got[3].I64[0][0] != 1593604801 || string(got[3].U8[1]) != "def" {
		t.Fatalf("columns: %+v, %v", got, err)
	}
}

// TestMalformedFiles reads the malformed files parquet-go tests itself
// with: each is a positioned error wrapping tensorfeed.ErrBadData.
func TestMalformedFiles(t *testing.T) {
	type record struct {
		ID   int64  `parquet:"id"`
		Name string `parquet:"name"`
	}
	cols := []parquet.Column{parquet.Int64("id")}
	for _, name := range []string{"negative_page_size", "negative_row_group_num_rows", "num_values_exceeds_data"} {
		path := "testdata/" + name + ".parquet"
		ctx := context.Background()
		for _, err := range []error{
			func() error { _, err := source.Collect(ctx, parquet.Read[record](path)); return err }(),
			func() error { _, err := source.Collect(ctx, parquet.ReadColumns(path, cols)); return err }(),
		} {
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) || !errors.Is(err, tensorfeed.ErrBadData) || fe.Path != path {
				t.Fatalf("%s: %v", name, err)
			}
			t.Log(err)
		}
	}
}

// TestReadRaw reads files of other writers with every column as bytes.
func TestReadRaw(t *testing.T) {
	ctx := context.Background()
	rows, err := source.Collect(ctx, parquet.ReadRaw("testdata/alltypes_plain.parquet"+";"+"testdata/datapage_v2.snappy.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 13 {
		t.Fatalf("%d rows, want 13", len(rows))
	}
	r := rows[1]
	if r.Index != 1 || r.RowGroup != 0 || r.Offset < 4 || len(r.Fields) != 11 ||
		binary.LittleEndian.Uint32(r.Fields["id"]) != 5 || string(r.Fields["string_col"]) != "1" ||
		math.Float32frombits(binary.LittleEndian.Uint32(r.Fields["float_col"])) != 1.1 ||
		!bytes.Equal(r.Fields["bool_col"], []byte{0}) || len(r.Fields["timestamp_col"]) != 12 {
		t.Fatalf("alltypes row 1: %+v", r)
	}
	for i, want := range [][]int32{{1, 2, 3}, {}, {}, {1, 2, 3}, {1, 2}} {
		r := rows[8+i]
		if r.File != "testdata/datapage_v2.snappy.parquet" || r.Index != int64(i) || len(r.Fields["e"]) != 4*len(want) {
			t.Fatalf("datapage_v2 row %d: %+v", i, r)
		}
		for j, w := range want {
			if got := int32(binary.LittleEndian.Uint32(r.Fields["e"][4*j:])); got != w {
				t.Fatalf("datapage_v2 row %d: e[%d] = %d, want %d", i, j, got, w)
			}
		}
	}
	if a, ok := rows[11].Fields["a"]; !ok || len(a) != 0 {
		t.Fatalf("a null string: %q, %v", a, ok)
	}
	if err := sourcetest.TestReader(parquet.ReadRaw("testdata/lz4_raw_compressed.parquet" + ";" + "testdata/alltypes_plain.parquet")); err != nil {
		t.Fatal(err)
	}
	_, err = source.Collect(ctx, parquet.ReadRaw("testdata/negative_page_size.parquet"))
	if !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("malformed: %v", err)
	}
}

// writeFile writes rows as a Parquet file at path with Create, Write and
// Close, aborting on a failed Write.
func writeFile[T any](path string, rows []T, opts ...parquet.WriteOption) error {
	w, err := parquet.Create[T](path, opts...)
	if err != nil {
		return err
	}
	if err := w.Write(rows...); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
