package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed"
)

// FuzzShardRecord reads arbitrary .rec and .idx bytes as a shard: opening
// it succeeds or fails with an error wrapping tensorfeed.ErrBadData, every
// Get returns a sample of the program's shape or an error, never a panic,
// and a bad record is an error wrapping tensorfeed.ErrBadData.
func FuzzShardRecord(f *testing.F) {
	recs, idxs, err := encodeShards(testSamples(3), 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(recs[0], idxs[0])
	f.Add(recs[0][:len(recs[0])-9], idxs[0])
	f.Add([]byte{}, []byte("0\t0\n"))
	f.Fuzz(func(t *testing.T, rec, idxText []byte) {
		if len(idxText) > 1024 {
			return
		}
		dir := t.TempDir()
		if err := errors.Join(os.WriteFile(filepath.Join(dir, "x.rec"), rec, 0o644),
			os.WriteFile(filepath.Join(dir, "x.idx"), idxText, 0o644)); err != nil {
			t.Fatal(err)
		}
		set, err := openShards(context.Background(), filepath.Join(dir, "x.rec"), nil)
		if err != nil {
			if !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("open: %v does not wrap ErrBadData", err)
			}
			return
		}
		defer set.Close()
		for i := range set.Len() + 1 {
			d, err := set.Get(i)
			if err != nil {
				if i < set.Len() && !errors.Is(err, tensorfeed.ErrBadData) {
					t.Fatalf("Get(%d): %v does not wrap ErrBadData", i, err)
				}
				continue
			}
			if len(d.Pixels) != 784 || d.Label > 9 || int64(d.ID) != set.Key(i) {
				t.Fatalf("Get(%d): id %d label %d %d pixels", i, d.ID, d.Label, len(d.Pixels))
			}
		}
	})
}
