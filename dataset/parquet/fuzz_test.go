package parquet_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/source"
)

// fuzzLimits are the limits the fuzz target reads with: small enough that
// a hostile header cannot make one input cost more than a few
// milliseconds.
var fuzzLimits = []parquet.Option{parquet.MaxFooterBytes(1 << 20), parquet.MaxMetadataBytes(16 << 20),
	parquet.MaxPageBytes(1 << 20), parquet.MaxPageValues(1 << 16), parquet.MaxRowGroupValues(1 << 20)}

// FuzzRead feeds arbitrary bytes to the readers: they must not panic, and
// every error about the data must wrap tensorfeed.ErrBadData.
//
// No input is slow: each takes well under a millisecond. What stalls a
// fuzzing run of a file format is the fuzzer's minimisation of every input
// that finds new coverage: it tries removing every byte range of it, one
// run per try, for up to a minute (-fuzzminimizetime), and counts none of
// those runs. Parquet offsets and lengths make almost every try fail, so
// a few-hundred-byte input takes tens of thousands of runs. The seeds are
// therefore small, every input is written to the same file, and unless
// -fuzzminimizetime is given the target bounds minimisation to
// fuzzMinimizeRuns runs, so that a 10 s run fuzzes thousands of inputs.
func FuzzRead(f *testing.F) {
	if fl := flag.Lookup("test.fuzzminimizetime"); fl != nil && !flagSet(fl.Name) {
		if err := fl.Value.Set(fuzzMinimizeRuns); err != nil {
			f.Fatal(err)
		}
	}
	dir := f.TempDir()
	for _, opt := range [][]parquet.WriteOption{nil, {parquet.Snappy()}, {parquet.Zstd()}} {
		p := filepath.Join(dir, "seed.parquet")
		if err := writeFile(p, digits(4, 4), append(opt, parquet.RowGroupRows(3))...); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("PAR1"))
	p := filepath.Join(dir, "f.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkFuzz(t, p)
	})
}

// fuzzMinimizeRuns is the -fuzzminimizetime FuzzRead sets when none is
// given.
const fuzzMinimizeRuns = "200x"

// flagSet reports whether the command line set the flag.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// checkFuzz reads the file at p with every reader, as FuzzRead does.
func checkFuzz(t *testing.T, p string) {
	t.Helper()
	ctx := context.Background()
	for _, err := range []error{
		func() error {
			_, err := source.Collect(ctx, parquet.Read[digit](p, fuzzLimits...))
			return err
		}(),
		func() error {
			_, err := source.Collect(ctx, parquet.ReadColumns(p, cols, fuzzLimits...))
			return err
		}(),
		func() error { _, err := source.Collect(ctx, parquet.ReadRaw(p, fuzzLimits...)); return err }(),
	} {
		if err != nil && !errors.Is(err, tensorfeed.ErrBadData) {
			t.Fatalf("error not wrapping ErrBadData: %v", err)
		}
	}
}
