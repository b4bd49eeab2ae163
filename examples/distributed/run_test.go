package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

// TestCheckFindsDuplicatesAndMissing feeds the check reads that differ
// from an epoch's split: a repeated id, an id read in place of another
// and an id that is not in the dataset are all caught.
func TestCheckFindsDuplicatesAndMissing(t *testing.T) {
	keys := []int32{10, 11, 12, 13, 14}
	ph := phase{World: 2}
	order := func(e int) (ids []int32) { // the split of world 2, PadShards
		p := source.NewPermutation(len(keys), 7, e)
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
