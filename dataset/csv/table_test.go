package csv_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func TestTable(t *testing.T) {
	ctx := context.Background()
	r := csv.New(filepath.Join("testdata", "iris.csv"), csv.SkipRows(1), csv.LabelColumns(csv.Index(-1)))
	stream, err := source.Collect(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := r.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 150 || tab.Len() != len(stream) {
		t.Fatalf("Len = %d, the stream has %d rows", tab.Len(), len(stream))
	}
	for i, want := range stream {
		got, err := tab.Get(i)
		if err != nil || !slices.Equal(got.Data, want.Data) || !slices.Equal(got.Label, want.Label) || got.Line != want.Line {
			t.Fatalf("Get(%d) = %+v, %v; the stream's row is %+v", i, got, err, want)
		}
	}
	for _, i := range []int{-1, 150} {
		if _, err := tab.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Fatalf("Get(%d): %v", i, err)
		}
	}
	for _, opts := range [][]source.IndexedOption{nil, {source.ShuffleIndex(4)}} {
		if err := sourcetest.TestReader(source.ReadIndexed(tab, opts...)); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := tab.(source.Identifier).Identity(ctx); err != nil || !strings.Contains(id, "iris.csv") {
		t.Fatal(id, err)
	}
}

func TestTableBadData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte("1,2,0\n3,x,1\n5,6,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := csv.New(path, csv.LabelColumns(csv.Index(-1))).Load(ctx); !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("Load of a bad file: %v", err)
	}
	tab, err := csv.New(path, csv.LabelColumns(csv.Index(-1)), csv.OnBad(source.SkipBad(0.5))).Load(ctx)
	if err != nil || tab.Len() != 2 {
		t.Fatalf("Load with SkipBad: %v", err)
	}
}

// A CSV file loaded once, then read in a new order every epoch.
func ExampleReader_Load() {
	r := csv.New("testdata/iris.csv", csv.SkipRows(1), csv.LabelColumns(csv.Index(-1)))
	tab, err := r.Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	shuffled := source.ReadIndexed(tab, source.ShuffleIndex(1))
	for row, err := range shuffled.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(tab.Len(), "rows; the first of epoch 0 is line", row.Line, row.Data, row.Label)
		break
	}
	// Output: 150 rows; the first of epoch 0 is line 109 [7.3 2.9 6.3 1.8] [2]
}
