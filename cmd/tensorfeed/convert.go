package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

var convertCommand = command{
	name:    "convert",
	args:    "[flags] INPUT...",
	summary: "convert a dataset into RecordIO, TFRecord, WebDataset or Parquet shards",
	doc: `Convert reads a dataset and writes its records as shards of another format: RecordIO (NAME-00000.rec with its .idx), TFRecord (NAME-00000.tfrecord, each record a tf.train.Example), WebDataset (NAME-00000.tar, each sample KEY.EXT members) or Parquet (NAME-00000.parquet, one row per record).

The input, by --from:
  (default)  files the format registry reads: [tag:]glob specs (recordio:a-*.rec, tfrecord:x/*.tfrecord,
             csv:rows.csv, shards/*.tar) or URLs (s3://bucket/train-*.rec, recordio:s3://bucket/x.rec,
             https://host/a.tfrecord; S3 through the AWS_* environment variables, AWS_ENDPOINT_URL
             for MinIO); untagged files are recognised from their first bytes
  mnist      DIR holding MNIST's IDX files (--split train or t10k), a folder or a URL prefix
             (s3://bucket/mnist): each image's bytes paired with its label
  images     a .lst file (paths relative to --root, by default the .lst's folder; both may be URLs)
             or a local folder of images with one sub-folder per class, as "im2rec list" makes it:
             each image's file bytes and labels; every image is decoded first, as "im2rec pack"
             decodes it, and one that does not decode ends the conversion

How records are written: an image with labels (mnist, images) becomes an image record (MXNet's header with the id and labels, then the bytes) in RecordIO, a tf.train.Example with the features "image" (bytes), "label" (int64, or float when a label is not an integer) and "key" in TFRecord, and the members KEY.bin (MNIST's raw pixels) or KEY.jpg/.png (the file as stored) and KEY.cls (or KEY.json for several or fractional labels) in WebDataset, and the columns "key", "image" and "label" (int64: one integer label per image) in Parquet. A record of the registry is written as its payload in RecordIO, as the features "data" and "key" in TFRecord, as KEY.bin in WebDataset and as the columns "key" and "data" in Parquet; a WebDataset sample keeps its fields, as features of those names in TFRecord (RecordIO and Parquet cannot hold one).

What is written reads back: a record that a target's readers (and "check" and "ls") would refuse ends the conversion before it is written, with the limit it passes: a RecordIO payload over 512 MiB, a tf.train.Example over 256 MiB (tfrecord.MaxRecordBytes), a WebDataset member over 64 MiB or sample over 256 MiB (webdataset.MaxMemberBytes, MaxSampleBytes), a Parquet value that with the rest of its page would pass 256 MiB (parquet.MaxPageBytes). Parquet row groups end every 64 MiB of rows, so that neither the writer nor a reader holds more than that of one. RecordIO's framing does not say what its payloads are: "check" decodes the records as images when the first one is an image record holding a JPEG or PNG, and otherwise checks the framing only (MNIST's raw pixels, other formats' payloads).

A shard ends when it holds --shard-records records or --shard-bytes bytes, whichever comes first (0: no limit), as WebDataset's ShardWriter does: a shard exceeds --shard-bytes by at most its last record (Parquet counts the rows' bytes before encoding). Every shard is written under a temporary name and all are renamed when the conversion succeeds: a failed conversion leaves no shard, partial or whole. A progress bar is drawn on stderr when stdout and stderr are terminals; the last line says how many records, shards and bytes were written, and how many bad records --skip-bad skipped (each is logged on stderr with its position).

Example:
  tensorfeed convert --from mnist --to wds --out shards --prefix mnist --shard-records 10000 data/mnist`,
	setup: convertSetup,
}

// convertOptions are the flags of "convert".
type convertOptions struct {
	from, to, out, prefix, split, root string
	shardRecords, shardBytes           int64
	workers                            int
	skipBad                            float64
}

// outFormats are the formats convert writes, with their shard extension.
var outFormats = map[string]string{"recordio": ".rec", "tfrecord": ".tfrecord", "wds": ".tar", "parquet": ".parquet"}

func convertSetup(fs *flag.FlagSet) runFunc {
	var o convertOptions
	fs.StringVar(&o.from, "from", "", "what the inputs are: empty for files the format registry reads, mnist (a folder of IDX files) or images (a .lst or a folder of class folders)")
	fs.StringVar(&o.to, "to", "", "the shards' `format`: recordio, tfrecord, wds or parquet (required)")
	fs.StringVar(&o.out, "out", ".", "the `folder` the shards are written to, made if missing")
	fs.StringVar(&o.prefix, "prefix", "data", "the shards' `name`: NAME-00000.rec, NAME-00001.rec, ...")
	fs.Int64Var(&o.shardRecords, "shard-records", 0, "start a new shard after `N` records (0: no limit)")
	fs.Int64Var(&o.shardBytes, "shard-bytes", 0, "start a new shard once one holds `M` bytes (0: no limit)")
	fs.StringVar(&o.split, "split", "train", "--from mnist: the `split`, train or t10k")
	fs.StringVar(&o.root, "root", "", "--from images with a .lst: the `folder` (or URL prefix) its paths are relative to (default the .lst's folder)")
	fs.IntVar(&o.workers, "workers", 1, "registry inputs: `N` files read at once (more than 1 interleaves their records); --from images: N images read and decoded at once (their order kept)")
	fs.Float64Var(&o.skipBad, "skip-bad", 0, "registry inputs: skip bad records (a TFRecord checksum, a csv line over 1 MiB, ...) while they are at most this `fraction` of a file")
	return func(ctx context.Context, pos []string, e *env) error {
		if len(pos) == 0 {
			return usagef("convert takes at least one input")
		}
		if _, ok := outFormats[o.to]; !ok {
			return usagef("--to must be recordio, tfrecord, wds or parquet, not %q", o.to)
		}
		switch {
		case o.shardRecords < 0 || o.shardBytes < 0:
			return usagef("--shard-records and --shard-bytes must be >= 0")
		case o.workers < 1:
			return usagef("--workers must be >= 1")
		case !(o.skipBad >= 0 && o.skipBad <= 1):
			return usagef("--skip-bad must be a fraction in [0, 1]")
		case o.prefix == "" || strings.ContainsAny(o.prefix, `/\`) || strings.HasPrefix(o.prefix, "."):
			return usagef("--prefix %q: want a file name without a folder, not starting with a dot", o.prefix)
		}
		var in *convInput
		var err error
		switch o.from {
		case "", "registry":
			in = registryInput(pos, o, e)
		case "mnist":
			if len(pos) != 1 {
				return usagef("--from mnist takes one folder, got %d arguments", len(pos))
			}
			if o.split != "train" && o.split != "t10k" {
				return usagef("--split must be train or t10k, not %q", o.split)
			}
			in, err = mnistInput(ctx, pos[0], o.split, e.storage)
		case "images":
			if len(pos) != 1 {
				return usagef("--from images takes one .lst file or folder, got %d arguments", len(pos))
			}
			in, err = imagesInput(ctx, pos[0], o.root, o.workers, e.storage)
		default:
			return usagef("--from must be empty, mnist or images, not %q", o.from)
		}
		if err != nil {
			return convertErr(err)
		}
		return convertErr(runConvert(ctx, in, o, e))
	}
}

// convertErr formats a bad-data error as check does, "PATH: POSITION:
// why".
func convertErr(err error) error {
	var e *tensorfeed.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	return errors.New(positioned(e.Path, err))
}

// convItem is one record on its way to a shard: what is written (Index
// its id: the record number, the .lst index; Key the WebDataset key, else
// the record number) and where it was read, for errors.
type convItem struct {
	rec  format.Record
	from format.Record // as it was read: its Offset is -1 for an image file
}

// where names the input record it came from as a *tensorfeed.Error
// does: "FILE: record N at byte O", or the image file.
func (it *convItem) where() string {
	if it.from.Offset < 0 {
		return it.from.Path
	}
	return fmt.Sprintf("%s: record %d at byte %d", it.from.Path, it.from.Index, it.from.Offset)
}

// convInput is what convert reads: its records and, when known, how many.
type convInput struct {
	total int64              // 0 when unknown
	skip  *source.SkipPolicy // the bad-record policy, or nil
	items func(ctx context.Context) iter.Seq2[convItem, error]
}

// registryInput reads the files that specs name (paths or URLs) through
// dataset/format. Each record skipped under --skip-bad is reported on
// stderr.
func registryInput(specs []string, o convertOptions, e *env) *convInput {
	stderr := e.stderr
	opts := []format.Option{format.Workers(o.workers), format.Storage(e.storage...)}
	var skip *source.SkipPolicy
	if o.skipBad > 0 {
		var mu sync.Mutex // several workers may skip at once
		skip = source.SkipBad(o.skipBad, source.OnSkip(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stderr, "convert: skipped %v\n", convertErr(err))
		}))
		opts = append(opts, format.OnBad(skip))
	}
	r := format.Open(specs, opts...)
	return &convInput{skip: skip, items: func(ctx context.Context) iter.Seq2[convItem, error] {
		return func(yield func(convItem, error) bool) {
			n := 0
			for rec, err := range r.All(ctx) {
				if err != nil {
					yield(convItem{}, err)
					return
				}
				it := convItem{rec: rec, from: rec}
				it.rec.Index = int64(n)
				if it.rec.Key == "" {
					it.rec.Key = recordKey(n)
				}
				if !yield(it, nil) {
					return
				}
				n++
			}
		}
	}}
}

// recordKey is the key of the n-th record of an input without keys.
func recordKey(n int) string { return fmt.Sprintf("%08d", n) }

// joinInput joins a folder and a name: with a slash for a URL, with the
// system's separator for a local path.
func joinInput(dir, name string) string {
	if storage.IsRemote(dir) {
		return strings.TrimSuffix(dir, "/") + "/" + name
	}
	return filepath.Join(dir, name)
}

// inputDir returns the folder of a path or URL.
func inputDir(name string) string {
	if storage.IsRemote(name) {
		if i := strings.LastIndex(name, "/"); i > strings.Index(name, "://")+2 {
			return name[:i]
		}
		return name
	}
	return filepath.Dir(name)
}

// findIDX returns the path of the IDX file name in dir (a local folder or
// a URL prefix), plain or gzip.
func findIDX(ctx context.Context, dir, name string, opts []storage.Option) (string, error) {
	for _, p := range []string{joinInput(dir, name), joinInput(dir, name+".gz")} {
		if checkstat.Exists(ctx, p, opts) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no %s or %s.gz", dir, name, name)
}

// mnistInput pairs the images and labels of an MNIST split in dir, a
// local folder or a URL prefix, read by the registry's idx format through
// package storage with opts.
func mnistInput(ctx context.Context, dir, split string, opts []storage.Option) (*convInput, error) {
	images, err := findIDX(ctx, dir, split+"-images-idx3-ubyte", opts)
	if err != nil {
		return nil, err
	}
	labels, err := findIDX(ctx, dir, split+"-labels-idx1-ubyte", opts)
	if err != nil {
		return nil, err
	}
	return &convInput{items: func(ctx context.Context) iter.Seq2[convItem, error] {
		return func(yield func(convItem, error) bool) {
			label, stop := iter.Pull2(openAs(ctx, "idx", labels, opts))
			defer stop()
			n := 0
			for img, err := range openAs(ctx, "idx", images, opts) {
				l, lerr, ok := label()
				switch {
				case err != nil:
				case lerr != nil:
					err = lerr
				case !ok || len(l.Data) != 1:
					err = fmt.Errorf("%s: %s holds more images than labels of one byte: they do not pair", images, labels)
				}
				if err != nil {
					yield(convItem{}, err)
					return
				}
				img.Labels, img.Key = []float32{float32(l.Data[0])}, recordKey(n)
				if !yield(convItem{rec: img, from: img}, nil) {
					return
				}
				n++
			}
			if _, _, more := label(); more {
				yield(convItem{}, fmt.Errorf("%s: %s holds more labels than images: they do not pair", images, labels))
			}
		}
	}}, nil
}

// imageExts are the images a folder given to --from images holds.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true}

// imagesInput lists the images of a .lst file or a folder of class
// folders; a pass reads and decodes workers images at once. The .lst and the root may be URLs, read through package storage
// with opts; a folder is local.
func imagesInput(ctx context.Context, path, root string, workers int, opts []storage.Option) (*convInput, error) {
	dir := false
	if !storage.IsRemote(path) {
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		dir = st.IsDir()
	}
	var entries []imagerec.ListEntry
	if dir {
		if root != "" {
			return nil, usagef("--root is for a .lst; the folder %s is the root", path)
		}
		root = path
		var err error
		if entries, _, err = listImages(ctx, path, true, imageExts); err != nil {
			return nil, err
		}
	} else {
		if root == "" {
			root = inputDir(path)
		}
		var err error
		if entries, err = readList(ctx, path, opts); err != nil {
			return nil, err
		}
	}
	return &convInput{total: int64(len(entries)), items: func(ctx context.Context) iter.Seq2[convItem, error] {
		// Each image is read and decoded on up to workers goroutines, in
		// the list's order.
		load := func(e imagerec.ListEntry) (convItem, error) {
			// readList has checked that the path stays inside root.
			name := joinInput(root, strings.ReplaceAll(e.Path, `\`, "/"))
			for rec, err := range openAs(ctx, "image", name, opts) {
				// Decoded as "im2rec pack" decodes it (the bounds of "check"
				// too), so that convert refuses what pack refuses instead of
				// storing bytes that no reader can decode.
				if err == nil {
					if _, err = decode.Default().Decode(rec.Data, decode.Options{}); err != nil {
						err = fmt.Errorf("%s: %w", name, err)
					}
				}
				rec.Index, rec.Offset, rec.Key, rec.Labels = int64(e.Index), -1, recordKey(int(e.Index)), e.Labels
				return convItem{rec: rec, from: rec}, err
			}
			return convItem{}, fmt.Errorf("%s: no image", name)
		}
		return stage.ParallelMap(source.Slice(entries), workers, load).All(ctx)
	}}, nil
}

// runConvert writes the records of in as shards and prints the summary.
func runConvert(ctx context.Context, in *convInput, o convertOptions, e *env) error {
	f, _ := format.Default().Lookup(o.to)
	name := func(i int) string { return fmt.Sprintf("%s-%05d%s", o.prefix, i, outFormats[o.to]) }
	set, err := newShardSet(o.out, f, name, o.shardRecords, o.shardBytes)
	if err != nil {
		return err
	}
	defer set.abort()
	bar := progress.New(e.stderr, "convert", in.total, "records", progress.Terminal(e.progress), progress.Quiet())
	defer bar.Finish()
	var n int64
	for it, err := range in.items(ctx) {
		if err != nil {
			return err
		}
		if err := set.write(it.rec, it.where); err != nil {
			return err
		}
		n++
		bar.Add(1)
	}
	if err := set.commit(); err != nil {
		return err
	}
	bar.Finish() // before the summary
	shards := "shards"
	if len(set.done) == 1 {
		shards = "shard"
	}
	fmt.Fprintf(e.stdout, "convert: %d records, %d %s, %d bytes", n, len(set.done), shards, set.bytes)
	if len(set.done) > 0 {
		fmt.Fprintf(e.stdout, ": %s", filepath.Join(o.out, set.done[0]))
		if len(set.done) > 1 {
			fmt.Fprintf(e.stdout, " ... %s", set.done[len(set.done)-1])
		}
	}
	if n := in.skip.Skipped(); n > 0 {
		fmt.Fprintf(e.stdout, "; %d bad records skipped", n)
	}
	fmt.Fprintln(e.stdout)
	return nil
}
