package mxnet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// splitRec writes the MNIST records into dir as parts .rec files cut at
// record boundaries, each with its .idx, and returns their paths.
func splitRec(t testing.TB, dir string, cuts ...int) []string {
	t.Helper()
	rec, err := os.ReadFile(tdPath(mnistJPG, ".rec"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := recordio.ReadIndex(context.Background(), tdPath(mnistJPG, ".idx"))
	if err != nil {
		t.Fatal(err)
	}
	bounds := append(append([]int{0}, cuts...), ix.Len())
	var paths []string
	for p := range len(bounds) - 1 {
		lo, hi := bounds[p], bounds[p+1]
		start := ix.Entry(lo).Offset
		end := int64(len(rec))
		if hi < ix.Len() {
			end = ix.Entry(hi).Offset
		}
		path := filepath.Join(dir, fmt.Sprintf("part%d.rec", p))
		if err := os.WriteFile(path, rec[start:end], 0o644); err != nil {
			t.Fatal(err)
		}
		var idx strings.Builder
		for i := lo; i < hi; i++ {
			fmt.Fprintf(&idx, "%d\t%d\n", ix.Entry(i).Key, ix.Entry(i).Offset-start)
		}
		if err := os.WriteFile(strings.TrimSuffix(path, ".rec")+".idx", []byte(idx.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// idConfig labels every image with its record id.
func idConfig(t testing.TB) iterConfig {
	cfg := mnistConfig()
	cfg.Batch.Last = batch.Keep
	entries, _ := imagerec.ReadList(tdPath(mnistJPG, ".lst"))
	for i := range entries {
		entries[i].Labels = []float32{float32(entries[i].Index)}
	}
	cfg.Data.ListPath = filepath.Join(t.TempDir(), "ids.lst")
	writeList(t, cfg.Data.ListPath, entries)
	return cfg
}

// A ";"-separated list of .rec files and a directory of them read the
// records of all files, in order, as one file holding them would.
func TestIterSeveralRecFiles(t *testing.T) {
	dir := t.TempDir()
	paths := splitRec(t, dir, 300, 301, 700)
	cfg := idConfig(t)
	want := labelsOf(pass(t, newIter(t, cfg)))
	for _, tc := range []struct{ name, rec, idx string }{
		{"list", strings.Join(paths, ";"), ""},
		{"directory", dir, ""},
		{"list with index list", strings.Join(paths, ";"), strings.Join(slices.Collect(func(yield func(string) bool) {
			for _, p := range paths {
				if !yield(strings.TrimSuffix(p, ".rec") + ".idx") {
					return
				}
			}
		}), ";")},
		{"directory with index directory", dir, dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Data.RecPath, c.Data.IdxPath = tc.rec, tc.idx
			if got := labelsOf(pass(t, newIter(t, c))); !slices.Equal(got, want) {
				t.Errorf("got %d labels, want the %d of the single file in order", len(got), len(want))
			}
		})
	}
}

// Shard splits the records of several files into disjoint shards that
// cover them all, with and without a shuffling index.
func TestIterShardSeveralRecFiles(t *testing.T) {
	dir := t.TempDir()
	splitRec(t, dir, 250, 600)
	seen := map[float32]int{}
	for part := range 4 {
		for _, idx := range []string{"", dir} {
			cfg := idConfig(t)
			cfg.Data.RecPath, cfg.Data.IdxPath = dir, idx
			cfg.Data.ShardCount, cfg.Data.ShardIndex = 4, part
			cfg.Data.Shuffle = idx != ""
			ids := labelsOf(pass(t, newIter(t, cfg)))
			if len(ids) < 200 || len(ids) > 300 {
				t.Errorf("part %d (idx %q): %d images", part, idx, len(ids))
			}
			for _, id := range ids {
				seen[id]++
			}
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("parts cover %d ids, want 1000", len(seen))
	}
	for id, n := range seen {
		if n != 2 {
			t.Fatalf("id %v seen %d times", id, n)
		}
	}
}

func TestNewSeveralRecFilesErrors(t *testing.T) {
	dir := t.TempDir()
	paths := splitRec(t, dir, 500)
	empty := t.TempDir()
	noIdx := t.TempDir()
	for _, tc := range []struct{ name, rec, idx, msg string }{
		{"empty directory", empty, "", "no .rec file"},
		{"empty list entry", paths[0] + ";", "", "empty path"},
		{"missing file", paths[0] + ";" + filepath.Join(dir, "nope.rec"), "", "nope.rec"},
		{"index count", dir, paths[0][:len(paths[0])-4] + ".idx", "1 .idx files for 2 .rec files"},
		{"index directory without the index", dir, noIdx, "has no index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mnistConfig()
			c.Data.RecPath, c.Data.IdxPath = tc.rec, tc.idx
			_, err := newRec(c.Data.RecPath, c.opts()...)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want an error saying %q", err, tc.msg)
			}
		})
	}
}

// An Iter over several files keeps the contract of every reader.
func TestIterSeveralRecFilesContract(t *testing.T) {
	dir := t.TempDir()
	splitRec(t, dir, 400)
	cfg := idConfig(t)
	cfg.Data.RecPath, cfg.Data.IdxPath, cfg.Data.Shuffle = dir, dir, true
	cfg.Backend.Threads = 2
	if err := sourcetest.TestReader[*tensor.Batch](newIter(t, cfg)); err != nil {
		t.Error(err)
	}
}

// TestIterRoundBatch checks MXNet's round_batch: the last batch of an
// epoch is completed with the first images, and the next epoch starts
// after them.
func TestIterRoundBatch(t *testing.T) {
	cfg := idConfig(t)
	cfg.Batch.Last = batch.RoundBatch
	it := newIter(t, cfg)
	e0 := pass(t, it)
	last := e0[len(e0)-1]
	if len(e0) != 8 || last.Len() != 128 || last.Padded != 24 {
		t.Fatalf("epoch 0: %d batches, last %d rows with %d padded; want 8, 128, 24", len(e0), last.Len(), last.Padded)
	}
	ids0 := labelsOf(e0)
	pad := last.Label[0].F32[128-24:]
	if !slices.Equal(pad, ids0[:24]) {
		t.Errorf("padding %v, want the first 24 images %v", pad, ids0[:24])
	}
	e1 := pass(t, it)
	if got := e1[0].Label[0].F32[0]; got != ids0[24] {
		t.Errorf("epoch 1 starts with image %v, want %v (the 25th)", got, ids0[24])
	}
}
