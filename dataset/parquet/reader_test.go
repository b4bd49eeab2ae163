package parquet_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

type digit struct {
	Image []float32 `parquet:"image,list"`
	Label int64     `parquet:"label"`
}

func digits(n, width int) []digit {
	out := make([]digit, n)
	for i := range out {
		out[i].Image = make([]float32, width)
		for j := range out[i].Image {
			out[i].Image[j] = float32(i*1000 + j)
		}
		out[i].Label = int64(i % 10)
	}
	return out
}

func writeDigits(t testing.TB, rows []digit, opts ...parquet.WriteOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "digits.parquet")
	if err := writeFile(path, rows, opts...); err != nil {
		t.Fatal(err)
	}
	return path
}

var cols = []parquet.Column{parquet.Float32("image", 4), parquet.Int64("label")}

func TestRoundTrip(t *testing.T) {
	want := digits(50, 4)
	path := writeDigits(t, want, parquet.RowGroupRows(7))
	ctx := context.Background()
	got, err := source.Collect(ctx, parquet.Read[digit](path))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got[49].Label != 9 || got[49].Image[3] != 49003 {
		t.Fatalf("got %d rows, last %+v", len(got), got[len(got)-1])
	}
	for _, w := range []int{1, 3} {
		rows, err := source.Collect(ctx, parquet.ReadColumns(path, cols, parquet.Workers(w)))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 50 {
			t.Fatalf("workers %d: %d rows", w, len(rows))
		}
		for i, r := range rows {
			if r.Index != int64(i) || r.F32[0][2] != float32(i*1000+2) || r.I64[1][0] != int64(i%10) {
				t.Fatalf("workers %d: row %d: %+v", w, i, r)
			}
		}
	}
}

func TestContract(t *testing.T) {
	path := writeDigits(t, digits(40, 4), parquet.RowGroupRows(6))
	for _, w := range []int{1, 2} {
		if err := sourcetest.TestReader(parquet.Read[digit](path, parquet.Workers(w))); err != nil {
			t.Fatal(err)
		}
		if err := sourcetest.TestReader(parquet.ReadColumns(path, cols, parquet.Workers(w))); err != nil {
			t.Fatal(err)
		}
	}
	bad := writeDigits(t, digits(40, 5), parquet.RowGroupRows(6))
	if err := sourcetest.TestReader(parquet.ReadColumns(bad, cols, parquet.Workers(2))); err != nil {
		t.Fatal(err)
	}
}

func TestShardAndIndexed(t *testing.T) {
	path := writeDigits(t, digits(30, 4), parquet.RowGroupRows(4)) // 8 row groups
	ctx := context.Background()
	// Ranks split the rows by index (the package has no shard of its own):
	// every row on exactly one rank, even with more ranks than row groups.
	one, err := parquet.OpenIndexed(parquet.ReadColumns(path, cols))
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	for _, ranks := range []int{3, 9} {
		seen := map[int64]int{}
		for rank := range ranks {
			rows, err := source.Collect(ctx, source.ReadIndexed(one, source.ShardIndex(ranks, rank, source.DropShards)))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				seen[r.Index]++
			}
		}
		if len(seen) > 30 || len(seen) < 30-ranks+1 {
			t.Fatalf("%d ranks cover %d rows", ranks, len(seen))
		}
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("%d ranks: row %d read %d times", ranks, i, n)
			}
		}
	}
	d, err := parquet.OpenIndexed(parquet.ReadColumns(path+";"+path, cols))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Len() != 60 {
		t.Fatalf("Len %d", d.Len())
	}
	for _, i := range []int{59, 3, 31, 0} {
		r, err := d.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		if r.I64[1][0] != int64(i%30%10) || r.F32[0][1] != float32((i%30)*1000+1) {
			t.Fatalf("Get(%d) = %+v", i, r)
		}
	}
	if _, err := d.Get(60); !errors.Is(err, source.ErrIndex) {
		t.Fatalf("Get(60): %v", err)
	}
	shuffled, err := source.Collect(ctx, source.ReadIndexed[parquet.Row](d, source.ShuffleIndex(1)).From(50))
	if err != nil || len(shuffled) != 10 {
		t.Fatalf("resume: %d rows, %v", len(shuffled), err)
	}
}

func TestBadRows(t *testing.T) {
	rows := digits(20, 4)
	rows[5].Image = rows[5].Image[:3]
	path := writeDigits(t, rows, parquet.RowGroupRows(8))
	ctx := context.Background()
	_, err := source.Collect(ctx, parquet.ReadColumns(path, cols))
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) || !errors.Is(err, parquet.ErrShapeCause) || !errors.Is(err, tensorfeed.ErrBadData) ||
		fe.Record != 5 || parquet.RowGroup(err) != 0 || fe.Member != "image" || fe.Path != path {
		t.Fatalf("got %v", err)
	}
	t.Log(err)
	skip := source.SkipBad(0.1)
	got, err := source.Collect(ctx, parquet.ReadColumns(path, cols, parquet.OnBad(skip)))
	if err != nil || len(got) != 19 || skip.Skipped() != 1 {
		t.Fatalf("skip: %d rows, %d skipped, %v", len(got), skip.Skipped(), err)
	}
	_, err = source.Collect(ctx, parquet.ReadColumns(path, []parquet.Column{parquet.Int32("image", 4)}))
	if !errors.Is(err, parquet.ErrColumnType) || !errors.As(err, &fe) || fe.Member != "image" {
		t.Fatalf("wrong type: %v", err)
	}
	t.Log(err)
	type wrong struct {
		Label float32 `parquet:"label"`
	}
	_, err = source.Collect(ctx, parquet.Read[wrong](path))
	if !errors.Is(err, parquet.ErrColumnType) {
		t.Fatalf("wrong struct type: %v", err)
	}
	t.Log(err)
}

func TestTruncated(t *testing.T) {
	path := writeDigits(t, digits(40, 4), parquet.RowGroupRows(8))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range []int{0, 3, 4, 11, 12, 100, len(data) / 2, len(data) - 9, len(data) - 4, len(data) - 1} {
		p := filepath.Join(dir, "t.parquet")
		if err := os.WriteFile(p, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := source.Collect(context.Background(), parquet.Read[digit](p))
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || !errors.Is(err, tensorfeed.ErrBadData) || fe.Path != p {
			t.Fatalf("truncated at %d: %v", n, err)
		}
	}
	// A footer length larger than the file.
	p := filepath.Join(dir, "long.parquet")
	bad := append([]byte(nil), data...)
	bad[len(bad)-8], bad[len(bad)-7], bad[len(bad)-6], bad[len(bad)-5] = 0xff, 0xff, 0xff, 0x7f
	os.WriteFile(p, bad, 0o644)
	_, err = source.Collect(context.Background(), parquet.Read[digit](p))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("long footer: %v", err)
	}
	t.Log(err)
	// Bad magic.
	bad = append([]byte("PAR2"), data[4:]...)
	os.WriteFile(p, bad, 0o644)
	_, err = source.Collect(context.Background(), parquet.Read[digit](p))
	if !errors.Is(err, parquet.ErrFormat) {
		t.Fatalf("bad magic: %v", err)
	}
	t.Log(err)
}

// OpenIndexed opens the files of any reader of the package, with its
// decoding, and refuses a reader of another package.
func TestOpenIndexedReaders(t *testing.T) {
	path := writeDigits(t, digits(6, 4), parquet.RowGroupRows(4))
	raw, err := parquet.OpenIndexed(parquet.ReadRaw(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if r, err := raw.Get(5); err != nil || raw.Len() != 6 || r.Index != 5 || len(r.Fields["label"]) != 8 {
		t.Fatalf("raw Get(5) = %+v, %v; Len %d", r, err, raw.Len())
	}
	if _, err := parquet.OpenIndexed(source.Slice([]int{1})); err == nil {
		t.Error("OpenIndexed of a slice reader: no error")
	}
}

// With ReuseBuffer the rows are the same, consumed one at a time (row
// groups of several pages, one and two workers, a bad row skipped), though
// their values are in pages that go back to parquet-go's pool after each
// row group.
func TestReuseBuffer(t *testing.T) {
	const width = 784
	want := digits(600, width)
	want[250].Image = want[250].Image[:5]
	path := writeDigits(t, want, parquet.RowGroupRows(200))
	cols := []parquet.Column{parquet.Float32("image", width), parquet.Int64("label")}
	for _, w := range []int{1, 2} {
		for pass := range 2 {
			skip := source.SkipBad(0.1)
			r := parquet.ReadColumns(path, cols, parquet.Workers(w), parquet.ReuseBuffer(), parquet.OnBad(skip))
			i := 0
			for row, err := range r.All(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				if i == 250 {
					i++
				}
				if row.Index != int64(i) || row.I64[1][0] != want[i].Label || len(row.F32[0]) != width {
					t.Fatalf("workers %d, pass %d: row %d: index %d label %d", w, pass, i, row.Index, row.I64[1][0])
				}
				for j, v := range row.F32[0] {
					if v != want[i].Image[j] {
						t.Fatalf("workers %d, pass %d: row %d: value %d is %v, want %v", w, pass, i, j, v, want[i].Image[j])
					}
				}
				i++
			}
			if i != len(want) || skip.Skipped() != 1 {
				t.Fatalf("workers %d, pass %d: %d rows, %d skipped", w, pass, i, skip.Skipped())
			}
		}
	}
}

// A page that parquet-go cannot read (its checksum does not match) ends
// the pass with an error naming the file, the column and the first row
// not read, after the rows of the pages before it: with one worker and
// with two, the same rows.
func TestCorruptPage(t *testing.T) {
	const width = 784 // rows of 3 KiB: pages of about 64 rows
	path := writeDigits(t, digits(300, width), parquet.RowGroupRows(300))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A byte of values in the image column's last pages: the column
	// chunk is nearly all of the file.
	data[len(data)*5/6] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cols := []parquet.Column{parquet.Float32("image", width), parquet.Int64("label")}
	want := -1
	for _, w := range []int{1, 2} {
		n := 0
		var err error
		for row, e := range parquet.ReadColumns(path, cols, parquet.Workers(w)).All(context.Background()) {
			if e != nil {
				err = e
				break
			}
			if row.Index != int64(n) || row.F32[0][1] != float32(n*1000+1) {
				t.Fatalf("workers %d: row %d: index %d, value %v", w, n, row.Index, row.F32[0][1])
			}
			n++
		}
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || !errors.Is(err, parquet.ErrFormat) || fe.Path != path || fe.Member != "image" || fe.Record != int64(n) {
			t.Fatalf("workers %d: after %d rows: %v", w, n, err)
		}
		if n == 0 || (want >= 0 && n != want) {
			t.Fatalf("workers %d: %d rows before the error, want %d (and some)", w, n, want)
		}
		want = n
		t.Log(err)
	}
}
