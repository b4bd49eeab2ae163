package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// FuzzShardRecord reads arbitrary .rec and .idx bytes as a shard: every
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
		idx, err := recordio.ParseIndex(bytes.NewReader(idxText), "x.idx")
		if err != nil || idx.Len() > 64 {
			return
		}
		rr := recordio.NewRandomReader(bytes.NewReader(rec), int64(len(rec)), idx)
		rr.Name = "x.rec"
		set := &shardSet{readers: []*recordio.RandomReader{rr}, starts: []int{0, idx.Len()}}
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
