package parquet_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/tensorfeed/tensorfeed"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
)

type mixed struct {
	L []float32 `parquet:"l,list"`
	X *float32  `parquet:"x,optional"`
	Y int32     `parquet:"y"`
	D []int64   `parquet:"d,list,dict"`
}

// writeMixed writes rows with parquet-go directly, with small pages, so
// that pages end inside rows and values come plain, dictionary-encoded,
// optional and repeated.
func writeMixed(t *testing.T, rows []mixed, opts ...pq.WriterOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mixed.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[mixed](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPages reads columns written with pages of every size and both page
// versions, good rows and bad ones, and checks every value.
func TestPages(t *testing.T) {
	const n, width = 300, 5
	rows := make([]mixed, n)
	for i := range rows {
		x := float32(i) / 2
		rows[i] = mixed{L: make([]float32, width), X: &x, Y: int32(-i), D: []int64{int64(i % 3), int64(i % 7)}}
		for j := range rows[i].L {
			rows[i].L[j] = float32(i*10 + j)
		}
	}
	bad := map[int]string{7: "l", 100: "x", 101: "l", 299: "d"}
	rows[7].L = rows[7].L[:4]
	rows[100].X = nil
	rows[101].L = nil
	rows[299].D = append(rows[299].D, 1)
	cols := []parquet.Column{parquet.Float32("l", width), parquet.Float32("x"), parquet.Int32("y"), parquet.Int64("d", 2)}
	for _, version := range []int{1, 2} {
		for _, page := range []int{16, 100, 1000, 1 << 20} {
			t.Run(fmt.Sprintf("v%d/page%d", version, page), func(t *testing.T) {
				path := writeMixed(t, rows, pq.PageBufferSize(page), pq.DataPageVersion(version), pq.MaxRowsPerRowGroup(128))
				skip := source.SkipBad(0.1)
				got, err := source.Collect(context.Background(), parquet.ReadColumns(path, cols, parquet.OnBad(skip)))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != n-len(bad) || skip.Skipped() != int64(len(bad)) {
					t.Fatalf("%d rows, %d skipped", len(got), skip.Skipped())
				}
				// Row groups decoded whole, ahead, give the same rows.
				got2, err := source.Collect(context.Background(), parquet.ReadColumns(path, cols, parquet.OnBad(source.SkipBad(0.1)), parquet.Workers(2)))
				if err != nil || !reflect.DeepEqual(got2, got) {
					t.Fatalf("2 workers: %d rows, %v", len(got2), err)
				}
				for _, r := range got {
					i := int(r.Index)
					if _, ok := bad[i]; ok {
						t.Fatalf("bad row %d kept", i)
					}
					w := rows[i]
					for j, v := range r.F32[0] {
						if v != w.L[j] {
							t.Fatalf("row %d: l = %v, want %v", i, r.F32[0], w.L)
						}
					}
					if r.F32[1][0] != *w.X || r.I32[2][0] != w.Y || r.I64[3][0] != w.D[0] || r.I64[3][1] != w.D[1] {
						t.Fatalf("row %d: %v %v %v, want %+v", i, r.F32[1], r.I32[2], r.I64[3], w)
					}
				}
				// Without a policy, the first bad row ends the pass.
				_, err = source.Collect(context.Background(), parquet.ReadColumns(path, cols))
				var fe *tensorfeed.Error
				if !errors.As(err, &fe) || !errors.Is(err, parquet.ErrShapeCause) || fe.Record != 7 || fe.Member != "l" {
					t.Fatalf("no policy: %v", err)
				}
			})
		}
	}
}

// TestRowGroupValues: a few dictionary-encoded bytes claim millions of
// values; MaxRowGroupValues refuses them before they are decoded.
func TestRowGroupValues(t *testing.T) {
	type long struct {
		L []float32 `parquet:"l,list,dict"`
	}
	path := filepath.Join(t.TempDir(), "long.parquet")
	row := long{L: make([]float32, 3<<20)} // one row of 3 Mi zeros
	if err := writeFile(path, []long{row}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d values in %d bytes", len(row.L), st.Size())
	ctx := context.Background()
	rows, err := source.Collect(ctx, parquet.Read[long](path))
	if err != nil || len(rows) != 1 || len(rows[0].L) != len(row.L) {
		t.Fatalf("default limits: %d rows, %v", len(rows), err)
	}
	for _, read := range []func() error{
		func() error {
			_, err := source.Collect(ctx, parquet.Read[long](path, parquet.MaxRowGroupValues(1<<20)))
			return err
		},
		func() error {
			_, err := source.Collect(ctx, parquet.ReadColumns(path, []parquet.Column{parquet.Float32("l", 4)},
				parquet.MaxRowGroupValues(1<<20)))
			return err
		},
	} {
		err := read()
		var fe *tensorfeed.Error
		if !errors.Is(err, parquet.ErrTooLarge) || !errors.As(err, &fe) || parquet.RowGroup(err) != 0 || fe.Member != "l.list.element" {
			t.Fatalf("MaxRowGroupValues(1 Mi): %v", err)
		}
		t.Log(err)
	}
}

// A page over the limits is refused before parquet-go reads it, after the
// rows of the pages before it.
func TestPageOverLimit(t *testing.T) {
	rows := make([]mixed, 210)
	for i := range rows {
		n := 5
		if i >= 200 {
			n = 50000 // a page of 200 KB
		}
		rows[i] = mixed{L: make([]float32, n), Y: int32(i)}
	}
	path := writeMixed(t, rows, pq.PageBufferSize(1024))
	cols := []parquet.Column{parquet.Float32("l", 5), parquet.Int32("y")}
	want := -1 // the rows of the pages before (those the writer's batches put there)
	for _, w := range []int{1, 2} {
		n := 0
		var err error
		for row, e := range parquet.ReadColumns(path, cols, parquet.MaxPageBytes(64<<10), parquet.Workers(w)).All(context.Background()) {
			if e != nil {
				err = e
				break
			}
			if row.I32[1][0] != int32(n) {
				t.Fatalf("workers %d: row %d: y %d", w, n, row.I32[1][0])
			}
			n++
		}
		var fe *tensorfeed.Error
		if n == 0 || n > 200 || (want >= 0 && n != want) || !errors.Is(err, parquet.ErrTooLarge) || !errors.As(err, &fe) ||
			fe.Member != "l.list.element" || fe.Offset <= 0 {
			t.Fatalf("workers %d: %d rows, then %v", w, n, err)
		}
		want = n
		t.Log(n, err)
	}
}
