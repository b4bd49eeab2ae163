package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// TestCheckFindsDuplicatesAndMissing feeds the check reads that differ
// from an epoch's split: a repeated id, an id read in place of another
// and an id that is not in the dataset are all caught.
func TestCheckFindsDuplicatesAndMissing(t *testing.T) {
	keys := []int32{10, 11, 12, 13, 14}
	ph := phase{World: 2}
	order := func(e int) (ids []int32) { // the split of world 2, PadShards
		p := seeded.NewPermutation(len(keys), 7, e)
		for r := range 2 {
			for j := range 3 {
				ids = append(ids, keys[p.At((r+2*j)%len(keys))])
			}
		}
		return ids
	}
	for _, tt := range []struct {
		name        string
		edit        func([]int32) []int32
		dup, missed int
	}{
		{"as split", func(ids []int32) []int32 { return ids }, 0, 0},
		{"one more", func(ids []int32) []int32 { return append(ids, ids[0]) }, 1, 0},
		{"one less", func(ids []int32) []int32 { return ids[1:] }, 0, 1},
		{"one swapped", func(ids []int32) []int32 { ids[1] = ids[0]; return ids }, 1, 1},
		{"unknown id", func(ids []int32) []int32 { return append(ids, 99) }, 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCheck(keys, 7, source.PadShards)
			c.read(0, tt.edit(order(0)))
			if from, to := c.segment(0, ph, 2); from != 0 || to != 6 {
				t.Errorf("segment covers [%d, %d), want [0, 6)", from, to)
			}
			var res result
			c.result(&res)
			if res.Duplicates != tt.dup || res.Missing != tt.missed || res.Padded != 1 {
				t.Errorf("duplicates %d missing %d padded %d, want %d, %d and 1", res.Duplicates, res.Missing, res.Padded, tt.dup, tt.missed)
			}
		})
	}
}

// TestRunInProcess runs the program's run function in the test's
// process: the server, the ranks and their pipelines leave no goroutine
// behind (TestMain checks), and a cancelled run ends with its context's
// error.
func TestRunInProcess(t *testing.T) {
	cfg := defaultConfig()
	cfg.Limit, cfg.Shards, cfg.BatchSize, cfg.World, cfg.ResumeWorld = 300, 3, 16, 3, 2
	var out strings.Builder
	res, err := run(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Samples != 300 || res.Duplicates != 0 || res.Missing != 0 || res.Reads != 600 {
		t.Errorf("%+v\n%s", res, out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(ctx, cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("cancelled run: %v", err)
	}
}

// testSamples makes n digits with ids 100.. and labels id mod 10.
func testSamples(n int) []mnist.Sample {
	s := make([]mnist.Sample, n)
	for i := range s {
		s[i].Index, s[i].Label = 100+i, uint8(i%10)
		s[i].Image = new([mnist.Pixels]uint8)
		s[i].Image[0] = byte(i)
	}
	return s
}

// putShards writes samples as shards objects into the test's server.
func putShards(t *testing.T, s3 *storagetest.S3, samples []mnist.Sample, shards int) {
	t.Helper()
	recs, idxs, err := encodeShards(samples, shards)
	if err != nil {
		t.Fatal(err)
	}
	for k := range recs {
		s3.Put("shards", shardName(k, shards, ".rec"), recs[k])
		s3.Put("shards", shardName(k, shards, ".idx"), idxs[k])
	}
}

// TestShardSet reads shards from an S3 server as one random-access set:
// every record once with its id, label and pixels, in the order of the
// concatenated indexes; a reader over it, shuffled and split, keeps the
// contract of every reader.
func TestShardSet(t *testing.T) {
	s3 := storagetest.NewS3(t, "shards")
	samples := testSamples(50)
	putShards(t, s3, samples, 3)
	cache, err := storage.NewCache(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	set, err := openShards(ctx, "s3://shards/"+shardGlob(3), s3.Options(storage.WithCache(cache)))
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if set.Len() != 50 {
		t.Fatalf("Len %d, want 50", set.Len())
	}
	for i, s := range samples {
		d, err := set.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != int32(s.Index) || d.Label != s.Label || !bytes.Equal(d.Pixels, s.Image[:]) || set.Key(i) != int64(s.Index) {
			t.Fatalf("record %d: id %d label %d pixel %d key %d, want %d %d %d", i, d.ID, d.Label, d.Pixels[0], set.Key(i), s.Index, s.Label, s.Image[0])
		}
	}
	if _, err := set.Get(50); !errors.Is(err, source.ErrIndex) {
		t.Errorf("Get(50): %v, want ErrIndex", err)
	}
	for r := range 2 {
		rd := source.ReadIndexed[digit](set, source.ShuffleIndex(3), source.ShardIndex(2, r, source.PadShards))
		if err := sourcetest.TestReader[digit](rd); err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestShardSetBadData: a record that is not a sample of this program is
// an error wrapping tensorfeed.ErrBadData that names the shard's URL and
// the record; an index that does not match its shard is refused when the
// shards are opened.
func TestShardSetBadData(t *testing.T) {
	ctx := context.Background()
	t.Run("record", func(t *testing.T) {
		s3 := storagetest.NewS3(t, "shards")
		var rec, idx bytes.Buffer
		w := recordio.NewWriter(&rec)
		for i, payload := range [][]byte{make([]byte, recordSize), make([]byte, 7)} {
			idx.Write(recordio.AppendIndexLine(nil, int64(i), w.Tell()))
			if err := w.Write(payload); err != nil {
				t.Fatal(err)
			}
		}
		s3.Put("shards", shardName(0, 1, ".rec"), rec.Bytes())
		s3.Put("shards", shardName(0, 1, ".idx"), idx.Bytes())
		set, err := openShards(ctx, "s3://shards/"+shardGlob(1), s3.Options())
		if err != nil {
			t.Fatal(err)
		}
		defer set.Close()
		if _, err := set.Get(0); err != nil {
			t.Error(err)
		}
		_, err = set.Get(1)
		var re *recordError
		if !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &re) || re.FilePath() != "s3://shards/train-00000-of-00001.rec" || re.Record != 1 {
			t.Errorf("Get(1): %v, want a record error at record 1 of the shard", err)
		}
	})
	t.Run("stale index", func(t *testing.T) {
		s3 := storagetest.NewS3(t, "shards")
		putShards(t, s3, testSamples(10), 1)
		recs, _, err := encodeShards(testSamples(9), 1)
		if err != nil {
			t.Fatal(err)
		}
		s3.Put("shards", shardName(0, 1, ".rec"), recs[0]) // a record shorter than its .idx says
		if _, err := openShards(ctx, "s3://shards/"+shardGlob(1), s3.Options()); !errors.Is(err, tensorfeed.ErrBadData) ||
			!strings.Contains(err.Error(), "train-00000-of-00001") {
			t.Errorf("open: %v, want a format error naming the shard", err)
		}
	})
	t.Run("no shards", func(t *testing.T) {
		s3 := storagetest.NewS3(t, "shards")
		if _, err := openShards(ctx, "s3://shards/"+shardGlob(4), s3.Options()); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no file matches") {
			t.Errorf("open: %v", err)
		}
	})
}
