package parquet_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestResumeContract(t *testing.T) {
	rows := digits(30, 4)
	rows[3].Image = rows[3].Image[:2]
	rows[17].Image = nil
	bad := writeDigits(t, rows, parquet.RowGroupRows(7))
	good := writeDigits(t, digits(30, 4), parquet.RowGroupRows(4))
	for _, r := range []source.Reader[parquet.Row]{
		parquet.ReadColumns(bad, cols, parquet.OnBad(source.SkipBad(0.5))),
		parquet.ReadColumns(bad+";"+good, cols, parquet.OnBad(source.SkipBad(0.5)), parquet.Workers(3)),
		parquet.ReadColumns(good+";"+bad, cols, parquet.OnBad(source.SkipBad(0.5))),
	} {
		if _, ok := r.(source.Resumable[parquet.Row]); !ok {
			t.Fatal("ColumnRows is not Resumable")
		}
		if err := sourcetest.TestReader(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := sourcetest.TestReader(parquet.Read[digit](good + ";" + good)); err != nil {
		t.Fatal(err)
	}
}

// TestResumeSkipsRowGroups resumes past a row group whose pages are
// garbage: the resumed pass does not read it.
func TestResumeSkipsRowGroups(t *testing.T) {
	path := writeDigits(t, digits(20, 4), parquet.RowGroupRows(8))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4; i < 12; i++ { // the first page header of row group 0
		data[i] = 0xff
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := parquet.ReadColumns(path, cols)
	if _, err := source.Collect(ctx, r); !errors.Is(err, parquet.ErrFormat) {
		t.Fatalf("full pass: %v", err)
	}
	st, err := source.StateOf(r, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", st)
	resumed, err := source.ResumeFrom(r, st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := source.Collect(ctx, resumed)
	if err != nil || len(got) != 10 || got[0].Index != 10 || got[9].I64[1][0] != 9 {
		t.Fatalf("resumed at 10: %d rows, %v", len(got), err)
	}
	// A state of another reader is refused.
	if _, err := source.ResumeFrom(parquet.ReadColumns(path, cols[:1]), st); !errors.Is(err, source.ErrState) {
		t.Fatalf("other columns: %v", err)
	}
	if _, err := source.ResumeFrom(parquet.Read[digit](path), st); !errors.Is(err, source.ErrState) {
		t.Fatalf("structs from a columns state: %v", err)
	}
}
