package parquet_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"reflect"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// Rows read from an S3 object (an in-process server on 127.0.0.1) equal
// the local read; a row's File is the URL.
func TestRemoteMatchesLocal(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	local := writeDigits(t, digits(40, 4), parquet.RowGroupRows(6), parquet.Snappy())
	u := s3.PutFile("data", "digits.parquet", local)
	ctx := context.Background()
	want, err := source.Collect(ctx, parquet.ReadColumns(local, cols))
	if err != nil {
		t.Fatal(err)
	}
	remote := parquet.ReadColumns(u, cols, parquet.Storage(s3.Options()...), parquet.Workers(2))
	got, err := source.Collect(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].File != u || !reflect.DeepEqual(got[i].F32, want[i].F32) || !reflect.DeepEqual(got[i].I64, want[i].I64) {
			t.Fatalf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := sourcetest.TestReader(remote); err != nil {
		t.Fatal(err)
	}
	d, err := parquet.OpenIndexed(parquet.Read[digit](u, parquet.Storage(s3.Options()...)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if r, err := d.Get(33); err != nil || r.Label != 3 || r.Image[1] != 33001 {
		t.Fatalf("Get(33) = %+v, %v", r, err)
	}
}

// A remote file cut short fails as the local one does, naming the URL; a
// missing one is an error naming the URL that wraps storage.ErrNotFound.
func TestRemoteBad(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	data, err := os.ReadFile(writeDigits(t, digits(20, 4)))
	if err != nil {
		t.Fatal(err)
	}
	u := s3.Put("data", "cut.parquet", data[:len(data)-5])
	_, err = source.Collect(context.Background(), parquet.Read[digit](u, parquet.Storage(s3.Options()...)))
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) || fe.Path != u {
		t.Fatalf("cut: %v", err)
	}
	missing := u + ".missing"
	_, err = source.Collect(context.Background(), parquet.Read[digit](missing, parquet.Storage(s3.Options()...)))
	if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	_, err = source.Collect(context.Background(), parquet.Read[digit]("no/such/file.parquet"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing local file: %v", err)
	}
}
