package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// shardPayload is record j of the whole set: its length varies, and
// every fifth one holds the magic word so that it is written in parts.
func shardPayload(j int) []byte {
	p := []byte(fmt.Sprintf("record %03d %s", j, strings.Repeat("x", j%7)))
	if j%5 == 0 {
		p = append(p, 0, 0, 0, 0)
		p = append(p[:len(p)&^3], 0x0a, 0x23, 0xd7, 0xce, 'e', 'n', 'd')
	}
	return p
}

// encodeShardSet writes records [0, n) as shards of the given sizes: each
// a .rec and its .idx, whose key of record j is 1000+j.
func encodeShardSet(t testing.TB, sizes []int) (recs, idxs [][]byte) {
	t.Helper()
	j := 0
	for _, size := range sizes {
		var data, idx bytes.Buffer
		w := recordio.NewWriter(&data)
		for range size {
			idx.Write(recordio.AppendIndexLine(nil, int64(1000+j), w.Tell()))
			if err := w.Write(shardPayload(j)); err != nil {
				t.Fatal(err)
			}
			j++
		}
		recs, idxs = append(recs, data.Bytes()), append(idxs, idx.Bytes())
	}
	return recs, idxs
}

// shardSizes are the shards of the tests: one empty, one of a single record.
var shardSizes = []int{7, 0, 1, 12, 5}

func shardTotal() int {
	n := 0
	for _, s := range shardSizes {
		n += s
	}
	return n
}

// writeShardSet writes the shards in dir as part-K.rec and part-K.idx.
func writeShardSet(t testing.TB, dir string) {
	t.Helper()
	recs, idxs := encodeShardSet(t, shardSizes)
	for k := range recs {
		for ext, b := range map[string][]byte{".rec": recs[k], ".idx": idxs[k]} {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d%s", k, ext)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// putShardSet stores the shards in bucket "shards" as part-K.rec and
// part-K.idx.
func putShardSet(t testing.TB, s3 *storagetest.S3) {
	t.Helper()
	recs, idxs := encodeShardSet(t, shardSizes)
	for k := range recs {
		s3.Put("shards", fmt.Sprintf("part-%d.rec", k), recs[k])
		s3.Put("shards", fmt.Sprintf("part-%d.idx", k), idxs[k])
	}
}

// checkShardSet reads every record of set by Get and through
// source.ReadIndexed, in order, shuffled and split over ranks.
func checkShardSet(t *testing.T, set *recordio.Indexed) {
	t.Helper()
	n := shardTotal()
	if set.Len() != n {
		t.Fatalf("Len %d, want %d", set.Len(), n)
	}
	for i := range n {
		p, err := set.Get(i)
		if _, _, key := set.Locate(i); err != nil || !bytes.Equal(p, shardPayload(i)) || key != int64(1000+i) {
			t.Fatalf("Get(%d) = %q, %v, key %d; want %q", i, p, err, key, shardPayload(i))
		}
	}
	// Record 7 is the first after the empty shard 1.
	for i, want := range map[int][2]int{0: {0, 0}, 6: {0, 6}, 7: {2, 0}, 8: {3, 0}, 24: {4, 4}} {
		file, j, _ := set.Locate(i)
		if path.Base(filepath.ToSlash(file)) != fmt.Sprintf("part-%d.rec", want[0]) || j != want[1] {
			t.Errorf("Locate(%d) = %s, %d; want %v", i, file, j, want)
		}
	}
	for _, i := range []int{-1, n} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Locate(%d) did not panic", i)
				}
			}()
			set.Locate(i)
		}()
	}
	for _, i := range []int{-1, n} {
		if _, err := set.Get(i); !errors.Is(err, source.ErrIndex) {
			t.Errorf("Get(%d): %v, want ErrIndex", i, err)
		}
	}
	ctx := context.Background()
	got, err := source.Collect(ctx, source.ReadIndexed(set))
	if err != nil || len(got) != n || !bytes.Equal(got[n-1], shardPayload(n-1)) {
		t.Fatalf("ReadIndexed: %d records, %v", len(got), err)
	}
	if err := sourcetest.TestReader(source.ReadIndexed(set, source.ShuffleIndex(7))); err != nil {
		t.Error(err)
	}
	seen := map[string]int{}
	for rank := range 3 {
		r := source.ReadIndexed(set, source.ShuffleIndex(7), source.ShardIndex(3, rank, source.PadShards))
		if err := sourcetest.TestReader(r); err != nil {
			t.Errorf("rank %d: %v", rank, err)
		}
		part, err := source.Collect(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range part {
			seen[string(p)]++
		}
	}
	// PadShards repeats at most count-1 samples so that the parts are even.
	if len(seen) != n {
		t.Errorf("the ranks read %d distinct records, want %d", len(seen), n)
	}
}

// A local shard set, named by a glob and by a list of paths.
func TestOpenIndexedShardsLocal(t *testing.T) {
	dir := t.TempDir()
	writeShardSet(t, dir)
	ctx := context.Background()
	set, err := openShards(ctx, filepath.Join(dir, "part-*.rec"))
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	checkShardSet(t, set)

	var names []string
	for k := range shardSizes {
		names = append(names, filepath.Join(dir, fmt.Sprintf("part-%d.rec", k)))
	}
	set2, err := openShards(ctx, names[0]+";"+filepath.Join(dir, "part-[1-3].rec")+";"+names[4])
	if err != nil {
		t.Fatal(err)
	}
	defer set2.Close()
	checkShardSet(t, set2)
	if got, _, _ := set2.Locate(set2.Len() - 1); got != names[4] {
		t.Errorf("shard 4 is %q, want %q", got, names[4])
	}
}

// A shard set in an in-process S3 bucket, listed by a key glob, read
// directly and through a cache.
func TestOpenIndexedShardsS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "shards")
	putShardSet(t, s3)
	cache, err := storage.NewCache(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range []storage.Option{nil, storage.WithCache(cache)} {
		set, err := openShards(context.Background(), "s3://shards/part-*.rec", recordio.Storage(s3.Options(extra)...))
		if err != nil {
			t.Fatal(err)
		}
		checkShardSet(t, set)
		if got, _, _ := set.Locate(8); got != "s3://shards/part-3.rec" {
			t.Errorf("shard 3 is %q", got)
		}
		if err := set.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A stale .idx (its .rec rewritten with a record more) and a missing .idx
// fail OpenIndexed or Validate, naming the file; so do patterns that match nothing.
func TestOpenIndexedShardsBad(t *testing.T) {
	ctx := context.Background()
	t.Run("stale", func(t *testing.T) {
		dir := t.TempDir()
		writeShardSet(t, dir)
		recs, _ := encodeShardSet(t, []int{13})
		if err := os.WriteFile(filepath.Join(dir, "part-3.rec"), recs[0], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := openShards(ctx, filepath.Join(dir, "part-*.rec"))
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || !errors.Is(err, tensorfeed.ErrBadData) || fe.Path != filepath.Join(dir, "part-3.idx") ||
			!strings.Contains(err.Error(), "part-3.rec") {
			t.Fatalf("stale index: %v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		s3 := storagetest.NewS3(t, "shards")
		putShardSet(t, s3)
		s3.Put("shards", "part-5.rec", nil) // an empty shard without its .idx
		_, err := openShards(ctx, "s3://shards/part-*.rec", recordio.Storage(s3.Options()...))
		var se *tensorfeed.Error
		if !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || se.Path != "s3://shards/part-5.idx" {
			t.Fatalf("missing index: %v", err)
		}
	})
	t.Run("missing shard", func(t *testing.T) {
		dir := t.TempDir()
		_, err := openShards(ctx, filepath.Join(dir, "none.rec"))
		if !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("missing shard: %v", err)
		}
	})
	t.Run("no match", func(t *testing.T) {
		if _, err := openShards(ctx, ""); err == nil {
			t.Fatal("an empty list: no error")
		}
		if _, err := openShards(ctx, filepath.Join(t.TempDir(), "*.rec")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a glob without a match: %v, want fs.ErrNotExist", err)
		}
		dir := t.TempDir()
		if _, err := openShards(ctx, dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a directory without a .rec: %v, want fs.ErrNotExist", err)
		}
	})
}

// ExampleOpenIndexed_shards reads two shards, each a .rec with its .idx, as one
// dataset shuffled by index.
func ExampleOpenIndexed_shards() {
	dir, err := os.MkdirTemp("", "shards")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for k, words := range [][]string{{"alpha", "beta"}, {"gamma", "delta", "epsilon"}} {
		var rec, idx bytes.Buffer
		w := recordio.NewWriter(&rec)
		for i, word := range words {
			idx.Write(recordio.AppendIndexLine(nil, int64(i), w.Tell()))
			if err := w.Write([]byte(word)); err != nil {
				fmt.Println(err)
				return
			}
		}
		name := filepath.Join(dir, fmt.Sprintf("train-%d", k))
		if err := errors.Join(os.WriteFile(name+".rec", rec.Bytes(), 0o644), os.WriteFile(name+".idx", idx.Bytes(), 0o644)); err != nil {
			fmt.Println(err)
			return
		}
	}

	set, err := recordio.OpenIndexed(context.Background(), dir) // its .rec files, in name order
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	fmt.Println(set.Len(), "records")
	for p, err := range source.ReadIndexed(set).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(string(p), " ")
	}
	fmt.Println()
	// Output:
	// 5 records
	// alpha beta gamma delta epsilon
}

// FuzzOpenIndexed opens arbitrary .rec and .idx bytes as a set of two
// shards (the second one a good shard): OpenIndexed and Validate fail with an error
// wrapping tensorfeed.ErrBadData, or every record that the validated
// indexes list reads back.
func FuzzOpenIndexed(f *testing.F) {
	recs, idxs := encodeShardSet(f, []int{6})
	f.Add(recs[0], idxs[0])
	f.Add(recs[0][:len(recs[0])-5], idxs[0])
	f.Add(recs[0], idxs[0][:len(idxs[0])/2])
	f.Add([]byte{}, []byte{})
	good, goodIdx := encodeShardSet(f, []int{2})
	f.Fuzz(func(t *testing.T, rec, idx []byte) {
		if len(idx) > 1024 || len(rec) > 1<<16 {
			return
		}
		dir := t.TempDir()
		for name, b := range map[string][]byte{"a.rec": rec, "a.idx": idx, "b.rec": good[0], "b.idx": goodIdx[0]} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		set, err := openShards(context.Background(), filepath.Join(dir, "*.rec"))
		if err != nil {
			if !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("open: %v does not wrap ErrBadData", err)
			}
			return
		}
		defer set.Close()
		for i := range set.Len() {
			if _, err := set.Get(i); err != nil {
				t.Fatalf("Get(%d) of a validated set: %v", i, err)
			}
		}
		if _, _, key := set.Locate(set.Len() - 1); set.Len() < 2 || key != 1001 {
			t.Fatalf("the good shard's records are not last: Len %d", set.Len())
		}
	})
}

// openShards opens the shards that list names and checks every index
// against its shard, as a program does before it trusts them.
func openShards(ctx context.Context, list string, opts ...recordio.Option) (*recordio.Indexed, error) {
	set, err := recordio.OpenIndexed(ctx, list, opts...)
	if err != nil {
		return nil, err
	}
	if err := set.Validate(); err != nil {
		set.Close()
		return nil, err
	}
	return set, nil
}
