package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// config is everything a run depends on; main fills it from flags and the
// tests pass small ones.
type config struct {
	DataDir     string
	Shards      int
	World       int
	Epochs      int
	BatchSize   int
	Even        string // "pad" or "drop"
	Seed        uint64
	Limit       int    // use the first Limit training samples; 0 means all
	S3          string // an S3 endpoint with a bucket (http://host:port/bucket[/prefix]); "" for the in-process server
	ResumeWorld int    // > 0: stop every rank half way through epoch 0 and finish with this many ranks
	Prefetch    int    // batches each rank assembles ahead of its loop
	CacheBytes  int64  // bound of the shard cache shared by the ranks
	IDs         string // file of one line per sample read: epoch, world, rank, id; "" for none

	PipeLog *zap.Logger // the logger of the passes (tensorfeed.WithLogger)
}

func defaultConfig() config {
	return config{
		DataDir:    cli.RepoPath("data/mnist"),
		Shards:     8,
		World:      4,
		Epochs:     2,
		BatchSize:  128,
		Even:       "pad",
		Seed:       1,
		Prefetch:   2,
		CacheBytes: 256 << 20,
	}
}

func (c *config) even() source.Even {
	if c.Even == "drop" {
		return source.DropShards
	}
	return source.PadShards
}

// result is what a run counted.
type result struct {
	Samples    int // in the dataset
	Duplicates int // reads beyond what the epochs' splits call for
	Missing    int // samples the splits call for that no rank read
	Padded     int // repeats that made the ranks' shares even (PadShards)
	Dropped    int // samples of an epoch no rank was given (DropShards)
	Reads      int // samples all ranks received
	Seconds    float64
}

// phase is ranks of one world size reading epochs from start (or from a
// checkpoint) up to a stop.
type phase struct {
	World     int
	From      *pipeline.Checkpoint // nil: from the start of epoch 0
	Position  int                  // with From: the position of From's epoch it resumes at
	StopAfter int                  // > 0: stop every rank after this many batches of its first epoch
}

// rankRun is what one rank of a phase read.
type rankRun struct {
	IDs        map[int][]int32 // epoch -> ids in the order received
	Batches    map[int]int     // epoch -> batches received
	Checkpoint *pipeline.Checkpoint
}

// run uploads the shards, reads them with the ranks and checks every
// sample id of every epoch; it prints to out.
func run(ctx context.Context, cfg config, out io.Writer) (res result, err error) {
	// The output is checked first: a bad path fails now, not after the
	// run whose samples it would have listed.
	if err := cli.WritableFile("ids", cfg.IDs); err != nil {
		return res, err
	}
	if cfg.PipeLog == nil {
		cfg.PipeLog = zap.NewNop()
	}
	ctx = tensorfeed.WithLogger(ctx, cfg.PipeLog)

	var ep *endpoint
	if cfg.S3 != "" {
		if ep, err = parseS3(cfg.S3); err != nil {
			return res, err
		}
		ep = remote(ep)
	} else if ep, err = startLocal(); err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, ep.Close()) }()

	samples, err := loadSamples(ctx, cfg.DataDir, cfg.Limit)
	if err != nil {
		return res, err
	}
	recs, idxs, err := encodeShards(samples, cfg.Shards)
	if err != nil {
		return res, err
	}
	up, err := ep.uploader()
	if err != nil {
		return res, err
	}
	var size int
	for k := range recs {
		if _, err := up.Put(ctx, shardName(k, cfg.Shards, ".rec"), recs[k]); err != nil {
			return res, err
		}
		if _, err := up.Put(ctx, shardName(k, cfg.Shards, ".idx"), idxs[k]); err != nil {
			return res, err
		}
		size += len(recs[k]) + len(idxs[k])
	}
	where := ep.URL
	if ep.Local {
		where += " (in-process S3 server)"
	}
	fmt.Fprintf(out, "shards: %d of %d samples (%.1f MB) in %s on %s\n",
		cfg.Shards, len(samples), float64(size)/1e6, ep.Name(shardGlob(cfg.Shards)), where)

	cacheDir, err := os.MkdirTemp("", "tensorfeed-distributed-cache")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(cacheDir)
	cache, err := storage.NewCache(cacheDir, cfg.CacheBytes)
	if err != nil {
		return res, err
	}
	// A shard the cache cannot take (larger than -cache-mb) is read from
	// the server by byte ranges instead.
	opts := ep.Options(storage.WithCache(cache), storage.CacheFallback())
	pattern := ep.Name(shardGlob(cfg.Shards))

	// The keys of the dataset as the ranks see it, for the check; this
	// first open fills the cache.
	set, err := openShards(ctx, pattern, opts)
	if err != nil {
		return res, err
	}
	keys := make([]int32, set.Len())
	for i := range keys {
		keys[i] = int32(set.Key(i))
	}
	if err := set.Close(); err != nil {
		return res, err
	}
	n := len(keys)
	res.Samples = n

	var ids *bufio.Writer
	if cfg.IDs != "" {
		f, err := os.Create(cfg.IDs)
		if err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, f.Close()) }()
		ids = bufio.NewWriter(f)
		defer func() { err = errors.Join(err, ids.Flush()) }()
	}

	chk := newCheck(keys, cfg.Seed, cfg.even())
	phases := []phase{{World: cfg.World}}
	if cfg.ResumeWorld > 0 {
		perRank := share(n, 0, cfg.World, cfg.even())
		phases[0].StopAfter = max(1, ceilDiv(perRank, cfg.BatchSize)/2)
	}
	start := time.Now()
	for len(phases) > 0 {
		ph := phases[0]
		phases = phases[1:]
		runs, err := runPhase(ctx, cfg, pattern, opts, ph)
		if err != nil {
			return res, err
		}
		for _, e := range slices.Sorted(maps.Keys(runs[0].Batches)) {
			counts := make([]string, len(runs))
			for r, rr := range runs {
				counts[r] = fmt.Sprint(len(rr.IDs[e]))
				if rr.Batches[e] != runs[0].Batches[e] {
					return res, fmt.Errorf("epoch %d: rank %d received %d batches, rank 0 %d", e, r, rr.Batches[e], runs[0].Batches[e])
				}
				chk.read(e, rr.IDs[e])
				res.Reads += len(rr.IDs[e])
				if ids != nil {
					for _, id := range rr.IDs[e] {
						fmt.Fprintf(ids, "%d\t%d\t%d\t%d\n", e, ph.World, r, id)
					}
				}
			}
			from, to := chk.segment(e, ph, cfg.BatchSize)
			note := ""
			if ph.From != nil && e == ph.From.Epoch {
				note = fmt.Sprintf(", resumed at position %d", from)
			}
			if ph.StopAfter > 0 && to < n {
				note = fmt.Sprintf(", stopped at position %d", to)
			}
			fmt.Fprintf(out, "epoch %d: world %d: samples per rank %s, %d batches each%s\n",
				e, ph.World, strings.Join(counts, " "), runs[0].Batches[e], note)
		}
		if ph.StopAfter > 0 {
			ck := runs[0].Checkpoint
			data, err := ck.Encode()
			if err != nil {
				return res, err
			}
			for r, rr := range runs[1:] {
				other, _ := rr.Checkpoint.Encode()
				if string(other) != string(data) {
					return res, fmt.Errorf("ranks disagree on the checkpoint: rank 0 %s, rank %d %s", data, r+1, other)
				}
			}
			// The new ranks resume from the checkpoint's bytes, as
			// processes started afresh would read it from a file.
			if ck, err = pipeline.ParseCheckpoint(data); err != nil {
				return res, err
			}
			fmt.Fprintf(out, "checkpoint: epoch %d step %d of every rank (%d bytes of JSON), resumed by %d ranks\n",
				ck.Epoch, ck.Step, len(data), cfg.ResumeWorld)
			phases = append(phases, phase{World: cfg.ResumeWorld, From: ck, Position: int(ck.Step) * cfg.BatchSize * ph.World})
		}
	}
	res.Seconds = time.Since(start).Seconds()
	used, err := cache.Used()
	if err != nil {
		return res, err
	}
	fmt.Fprintf(out, "cache: %.1f MiB of at most %.0f MiB, shared by the ranks\n", float64(used)/(1<<20), float64(cfg.CacheBytes)/(1<<20))
	chk.result(&res)
	fmt.Fprintf(out, "duplicates: %d missing: %d padded: %d", res.Duplicates, res.Missing, res.Padded)
	if cfg.even() == source.DropShards {
		fmt.Fprintf(out, " dropped: %d", res.Dropped)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "samples/s: %.0f (%d samples read in %.2f s)\n", float64(res.Reads)/res.Seconds, res.Reads, res.Seconds)
	return res, nil
}

// runPhase runs the ranks of a phase, each a goroutine with its own
// listing, files and pipeline, as a process of its own would have; they
// share the cache directory.
func runPhase(ctx context.Context, cfg config, pattern string, opts []storage.Option, ph phase) ([]rankRun, error) {
	runs := make([]rankRun, ph.World)
	g, ctx := scope.New(ctx)
	for r := range ph.World {
		g.Go(func() error {
			var err error
			if runs[r], err = runRank(ctx, cfg, pattern, opts, ph, r); err != nil {
				return fmt.Errorf("rank %d of %d: %w", r, ph.World, err)
			}
			return nil
		})
	}
	return runs, g.Wait()
}

// newSink describes the tensors of a step: "image" float32[B 784] in
// [0, 1], "label" and "id" int32[B].
func newSink(size int) *sink.Sink[digit] {
	return sink.New(size,
		[]sink.Field[digit]{sink.Float32("image", []int{mnist.Pixels}, func(d digit, dst []float32) {
			for i, p := range d.Pixels {
				dst[i] = float32(p) / 255
			}
		})},
		[]sink.Field[digit]{
			sink.Int32("label", nil, func(d digit, dst []int32) { dst[0] = int32(d.Label) }),
			sink.Int32("id", nil, func(d digit, dst []int32) { dst[0] = d.ID }),
		})
}

// rankPipe is the pipeline of rank r of world: the shards as one
// random-access set, a global shuffle by index split over the ranks, batch,
// tensors, prefetch.
func rankPipe(set *shardSet, cfg config, world, r int) *pipeline.Pipe[*tensor.Batch] {
	src := source.ReadIndexed[digit](set, source.ShuffleIndex(cfg.Seed), source.ShardIndex(world, r, cfg.even()))
	feed := pipeline.Tensorize(pipeline.From[digit](src), newSink(cfg.BatchSize), batch.Keep)
	if cfg.Prefetch > 0 {
		feed = feed.Buffered(cfg.Prefetch)
	}
	return feed
}

// runRank is one rank: it lists and opens the shards, builds its pipeline
// and reads the phase's epochs, keeping the id of every sample.
func runRank(ctx context.Context, cfg config, pattern string, opts []storage.Option, ph phase, r int) (res rankRun, err error) {
	set, err := openShards(ctx, pattern, opts)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, set.Close()) }()
	feed := rankPipe(set, cfg, ph.World, r)

	var epochs iter.Seq2[int, iter.Seq2[*tensor.Batch, error]]
	switch {
	case ph.From != nil:
		if epochs, err = feed.EpochsFrom(ctx, ph.From, cfg.Epochs); err != nil {
			return res, err
		}
	case ph.StopAfter > 0:
		epochs = feed.Epochs(ctx, 1)
	default:
		epochs = feed.Epochs(ctx, cfg.Epochs)
	}
	res = rankRun{IDs: map[int][]int32{}, Batches: map[int]int{}}
	for e, pass := range epochs {
		step := 0
		for t, err := range pass {
			if err != nil {
				return res, err
			}
			id, _ := t.Get("id")
			res.IDs[e] = append(res.IDs[e], id.I32...)
			t.Release() // a training step would run here
			step++
			if step == ph.StopAfter {
				break
			}
		}
		res.Batches[e] = step
		if ph.StopAfter > 0 {
			res.Checkpoint, err = feed.Checkpoint(ctx) // at (e, step): the feed keeps its position
			return res, err
		}
	}
	return res, nil
}

// share is how many samples each of world ranks reads of the positions
// [from, n) of an epoch's order (source.ShardIndex).
func share(n, from, world int, even source.Even) int {
	rest := max(n-from, 0)
	if even == source.DropShards {
		return rest / world
	}
	return ceilDiv(rest, world)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// check counts, for every epoch, how often each sample id was read
// against how often the epoch's split calls for it: once for each
// position of the epoch's order a rank is given (source.ShardIndex: rank r
// of world reads positions from+r, from+r+world, ...; a position past the
// end is a pad repeat of the one at its remainder), worked out from
// (seed, epoch, world) alone.
type check struct {
	keys    []int32 // dataset index -> sample id
	pos     map[int32]int
	seed    uint64
	even    source.Even
	got     map[int][]int32 // epoch -> reads per dataset index
	want    map[int][]int32
	covered map[int]int // epoch -> positions < n given to a rank
	padded  int
	unknown int // ids read that are not in the dataset
}

func newCheck(keys []int32, seed uint64, even source.Even) *check {
	pos := make(map[int32]int, len(keys))
	for i, k := range keys {
		pos[k] = i
	}
	return &check{keys: keys, pos: pos, seed: seed, even: even,
		got: map[int][]int32{}, want: map[int][]int32{}, covered: map[int]int{}}
}

func (c *check) counts(m map[int][]int32, e int) []int32 {
	if m[e] == nil {
		m[e] = make([]int32, len(c.keys))
	}
	return m[e]
}

// read counts the ids a rank received in epoch e. An id that is not in
// the dataset counts as a duplicate.
func (c *check) read(e int, ids []int32) {
	got := c.counts(c.got, e)
	for _, id := range ids {
		if i, ok := c.pos[id]; ok {
			got[i]++
		} else {
			c.unknown++
		}
	}
}

// segment adds what the ranks of ph are given in epoch e and returns the
// positions [from, to) of the epoch's order they covered.
func (c *check) segment(e int, ph phase, size int) (from, to int) {
	n := len(c.keys)
	if ph.From != nil && e == ph.From.Epoch {
		from = ph.Position
	}
	per := share(n, from, ph.World, c.even)
	if ph.StopAfter > 0 {
		per = min(per, ph.StopAfter*size)
	}
	perm := seeded.NewPermutation(n, c.seed, e)
	want := c.counts(c.want, e)
	for r := range ph.World {
		for j := range per {
			p := from + r + j*ph.World
			if p >= n {
				p %= n
				c.padded++
			} else {
				c.covered[e]++
			}
			want[perm.At(p)]++
		}
	}
	return from, from + per*ph.World
}

// result sets the counts of res: reads beyond what the splits call for
// (and ids not in the dataset) are duplicates, shares not read are
// missing.
func (c *check) result(res *result) {
	res.Duplicates, res.Missing, res.Padded, res.Dropped = c.unknown, 0, c.padded, 0
	for e, want := range c.want {
		got := c.counts(c.got, e)
		for i, w := range want {
			res.Duplicates += int(max(got[i]-w, 0))
			res.Missing += int(max(w-got[i], 0))
		}
		res.Dropped += len(c.keys) - c.covered[e]
	}
	for e := range c.got {
		if c.want[e] == nil { // an epoch no split called for
			for _, g := range c.got[e] {
				res.Duplicates += int(g)
			}
		}
	}
}
