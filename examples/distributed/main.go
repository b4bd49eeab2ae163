// Command distributed reads MNIST from RecordIO shards in S3 with several
// data-parallel ranks, and checks that every epoch gives every sample to
// exactly one rank.
//
// Run it from anywhere in the repository:
//
//	go run ./examples/distributed
//
// It starts an S3 server in the process (gofakes3 on a free port of
// 127.0.0.1), writes the 60,000 MNIST training digits of data/mnist as
// -shards RecordIO shards (a .rec and its .idx each; a record holds the
// sample's id, its label and its 784 pixels) and uploads them. Then -world
// ranks, each a goroutine with what a process of its own would have, read
// -epochs epochs: each rank lists the shards (storage.List), opens them by
// URL through a cache shared by all ranks (storage.WithCache, in a
// temporary folder, at most -cache-mb; a shard the cache cannot take is
// read from the server by byte ranges, record by record), reads them as
// one random-access set over the concatenated indexes (every .idx checked
// against its .rec first), shuffled by index and split over the
// ranks (source.ReadIndexed with ShuffleIndex and ShardIndex), and batches
// and tensorizes it. The split depends only on the seed, the epoch and the
// world size; with -even pad every rank gets ceil(n/world) samples (the
// ranks that are one short repeat samples from the start of the epoch's
// order), with -even drop floor(n/world) (the last n mod world samples of
// the order are read by no rank), so every rank runs the same number of
// steps.
//
// It prints the samples each rank received in each epoch, what the cache
// holds, then the check of every sample id against the epoch's split, and
// the throughput of the ranks together:
//
//	duplicates: 0 missing: 0 padded: 0
//	samples/s: ...
//
// and exits with status 1 when a sample was read twice or not at all.
// Repeats that make the ranks' shares even are counted apart (padded: K),
// and so are the samples -even drop leaves out (dropped: K).
//
// -resume-world N stops every rank half way through epoch 0, takes each
// rank's pipeline checkpoint (they are the same: a position in the epoch's
// order) and finishes the run with N ranks resumed from it
// (pipeline.Pipe.EpochsFrom); the check covers both parts.
//
// -s3 http://host:port/bucket[/prefix] uses that S3-compatible endpoint
// instead of the in-process server, with credentials from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or ~/.aws/credentials):
//
//	go run ./examples/distributed -s3 http://127.0.0.1:9000/mnist -world 8
//
// -ids FILE writes a line per sample read (epoch, world size, rank, id).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func main() {
	cfg := defaultConfig()
	cacheMB := int(cfg.CacheBytes >> 20)
	flag.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory of the MNIST IDX files (gzipped or not)")
	flag.IntVar(&cfg.Shards, "shards", cfg.Shards, "RecordIO shards to write")
	flag.IntVar(&cfg.World, "world", cfg.World, "ranks (goroutines, each with its own pipeline)")
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "epochs")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "batch size")
	flag.StringVar(&cfg.Even, "even", cfg.Even, "how the ranks' shares are made even: pad (repeat samples) or drop (leave the rest out)")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the shuffle")
	flag.IntVar(&cfg.Limit, "limit", 0, "use only the first N training samples (0: all)")
	flag.StringVar(&cfg.S3, "s3", "", "S3 endpoint and bucket to use instead of the in-process server, such as http://127.0.0.1:9000/bucket")
	flag.IntVar(&cfg.ResumeWorld, "resume-world", 0, "stop every rank half way through epoch 0 and finish from its checkpoint with N ranks (0: no stop)")
	flag.IntVar(&cfg.Prefetch, "prefetch", cfg.Prefetch, "batches each rank assembles ahead of its loop (0: none)")
	flag.IntVar(&cacheMB, "cache-mb", cacheMB, "size bound of the shard cache the ranks share, in MiB")
	flag.StringVar(&cfg.IDs, "ids", "", "write a line per sample read (epoch, world, rank, id) to this file")
	var logging cli.Logging
	logging.Register(flag.CommandLine)
	flag.Parse()
	var s3Err error
	if cfg.S3 != "" {
		_, s3Err = parseS3(cfg.S3)
	}
	var limitErr error
	if cfg.Limit > 0 && cfg.Shards > cfg.Limit {
		limitErr = fmt.Errorf("invalid value %d for -shards: more shards than the %d samples of -limit", cfg.Shards, cfg.Limit)
	}
	cli.CheckFlags(
		cli.AtLeast("shards", cfg.Shards, 1),
		cli.AtLeast("world", cfg.World, 1),
		cli.AtLeast("epochs", cfg.Epochs, 1),
		cli.AtLeast("batch", cfg.BatchSize, 1),
		cli.OneOf("even", cfg.Even, "pad", "drop"),
		cli.AtLeast("limit", cfg.Limit, 0),
		limitErr,
		s3Err,
		cli.AtLeast("resume-world", cfg.ResumeWorld, 0),
		cli.AtLeast("prefetch", cfg.Prefetch, 0),
		cli.AtLeast("cache-mb", cacheMB, 1),
	)
	cfg.CacheBytes = int64(cacheMB) << 20

	log := logging.Logger()
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	cfg.PipeLog = logging.PipelineLogger(log)

	ctx, stop := tensorfeed.NotifyStop(context.Background())
	defer stop()
	res, err := run(ctx, cfg, os.Stdout)
	stop() // a second signal kills at once
	if err == nil && (res.Duplicates > 0 || res.Missing > 0) {
		err = fmt.Errorf("the ranks did not read every sample of every epoch exactly once: %d duplicates, %d missing", res.Duplicates, res.Missing)
	}
	cli.Exit(ctx, err)
}
