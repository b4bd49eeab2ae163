package parquet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
)

// FuzzRead feeds arbitrary bytes to both readers: they must not panic, and
// every error about the data must wrap tensorfeed.ErrBadData.
func FuzzRead(f *testing.F) {
	dir := f.TempDir()
	for _, opt := range [][]parquet.WriteOption{nil, {parquet.Snappy()}, {parquet.Zstd()}} {
		p := filepath.Join(dir, "seed.parquet")
		if err := parquet.WriteFile(p, digits(12, 4), append(opt, parquet.RowGroupRows(5))...); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		limits := []parquet.Option{parquet.MaxFooterBytes(1 << 20), parquet.MaxMetadataBytes(64 << 20),
			parquet.MaxPageBytes(16 << 20), parquet.MaxPageValues(1 << 20)}
		ctx := context.Background()
		for _, err := range []error{
			func() error { _, err := source.Collect(ctx, parquet.Read[digit]([]string{p}, limits...)); return err }(),
			func() error {
				_, err := source.Collect(ctx, parquet.ReadColumns([]string{p}, cols, limits...))
				return err
			}(),
		} {
			if err != nil && !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("error not wrapping ErrBadData: %v", err)
			}
		}
	})
}
