package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

const imagerecData = "../imagerec/testdata"

func TestIndexedFileGet(t *testing.T) {
	rec := filepath.Join(imagerecData, "mnist_t10k_1000_jpg.rec")
	f, err := recordio.OpenIndexed(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stream, err := source.Collect(context.Background(), recordio.Open(rec))
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 1000 || len(stream) != 1000 {
		t.Fatalf("Len = %d, the file has %d records", f.Len(), len(stream))
	}
	ix, err := recordio.ReadIndex(context.Background(), filepath.Join(imagerecData, "mnist_t10k_1000_jpg.idx"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Len() {
		off := ix.Entry(i).Offset
		got, err := f.Get(i)
		if err != nil {
			t.Fatalf("Get(%d): %v", i, err)
		}
		for _, r := range stream {
			if r.Offset == off && !bytes.Equal(r.Data, got) {
				t.Fatalf("Get(%d) differs from the record at offset %d", i, off)
			}
		}
	}
	for _, i := range []int{-1, 1000} {
		if _, err := f.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Fatalf("Get(%d): %v", i, err)
		}
	}
	for _, opts := range [][]source.IndexedOption{nil, {source.ShuffleIndex(6)}} {
		if err := sourcetest.TestReader(source.ReadIndexed(f, opts...)); err != nil {
			t.Fatal(err)
		}
	}
}

// An entry that points into the middle of a record is bad data, which a
// bad-record policy can skip.
func TestIndexedFileBadEntry(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "x.rec")
	var buf bytes.Buffer
	w := recordio.NewWriter(&buf)
	var entries []recordio.IndexEntry
	for i := range 10 {
		entries = append(entries, recordio.IndexEntry{Key: int64(i), Offset: w.Tell()})
		if err := w.Write([]byte(fmt.Sprintf("record %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	entries[4].Offset += 4 // inside record 4
	if err := os.WriteFile(rec, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := recordio.NewIndex(entries)
	if err != nil {
		t.Fatal(err)
	}
	var ib bytes.Buffer
	if _, err := recordio.WriteIndex(idx, &ib); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.idx"), ib.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := recordio.OpenIndexed(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fe *tensorfeed.Error
	if _, err := f.Get(4); !errors.As(err, &fe) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("Get of a bad entry: %v", err)
	}
	got, err := source.Collect(context.Background(), source.ReadIndexed(f, source.SkipIndexed(source.SkipBad(0.2))))
	if err != nil || len(got) != 9 {
		t.Fatalf("with SkipBad: %d records, %v", len(got), err)
	}
}

// A .rec file with its .idx read in a new order every epoch.
func ExampleOpenIndexed_shuffled() {
	f, err := recordio.OpenIndexed(context.Background(), "../imagerec/testdata/mnist_t10k_1000_jpg.rec")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r := source.ReadIndexed(f, source.ShuffleIndex(1))
	n := 0
	for payload, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n += len(payload)
	}
	fmt.Println(f.Len(), "records,", n, "bytes")
	// Output: 1000 records, 1088040 bytes
}
