package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/serve"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

var serveCommand = command{
	name:    "serve",
	args:    "[--listen ADDR] [--mnist DIR] [--rec FILE.rec --data-shape C,H,W] [--records SPEC --record-shape D,...]",
	summary: "serve batches to training processes (PyTorch: python/tensorfeed_client) over a socket",
	doc: `Serve serves the batches of one or more feeds over a Unix socket or TCP on a loopback address, to the Python client in the repository's python/ folder (tensorfeed_client) or any client of the protocol described in package serve. Each client names a feed, its rank and world size (each rank gets an exact, disjoint share of every epoch) and, to resume, the state it saved: the pipeline's checkpoint JSON, sent with every batch.

Feeds:
  --mnist DIR      "mnist-train" (the 60,000 training digits, a new global shuffle every epoch) and "mnist-test" (the 10,000 test digits in order): "image" float32[B 784], normalised as --scale says, and "label" int64[B]. The pixels stay bytes in the server: a client that decodes (tensorfeed_client does) receives them with the scale and offset, a quarter of the float32 bytes, and computes the same float32 values bit for bit.
  --rec FILE.rec   "rec": MXNet image records through compat/mxnet's ImageRecordIter (the .idx beside it, if any, gives a shuffle by index and an exact resume): "data" float32[B C H W], "softmax_label" float32[B]. Ranks read MXNet's parts (num_parts, part_index: disjoint byte ranges).
  --records SPEC   "records": fixed-shape records of any format of the registry (dataset/format: "recordio:shards/*.rec", "tfrecord:x.tfrecord", ...), each payload one "data" tensor of --record-shape and --record-dtype (raw, little-endian), in file order; ranks take every world-th record.

The server runs until SIGINT or SIGTERM. It prints one line, "serving FEEDS on ADDR", once it listens.

Examples:
  tensorfeed serve --listen unix:/tmp/tensorfeed.sock --mnist data/mnist
  tensorfeed serve --listen 127.0.0.1:5555 --rec photos_train.rec --data-shape 3,224,224 --rand-crop --rand-mirror
  tensorfeed serve --records 'recordio:mnist-shards/train-*.rec' --record-shape 808 --record-dtype uint8`,
	setup: func(fs *flag.FlagSet) runFunc {
		listen := fs.String("listen", "127.0.0.1:5555", "where to listen: `ADDR` unix:PATH or HOST:PORT (a loopback address unless --public)")
		public := fs.Bool("public", false, "allow a TCP address other than loopback (the batches are neither encrypted nor authenticated)")
		mnistDir := fs.String("mnist", "", "serve the MNIST IDX files of `DIR` as mnist-train and mnist-test")
		rec := fs.String("rec", "", "serve the image records of `FILE.rec` as rec")
		records := fs.String("records", "", "serve the records of the format registry `SPEC` (comma-separated specs) as records")
		batchSize := fs.Int("batch", 128, "`N` samples per batch")
		seed := fs.Uint64("seed", 1, "the `SEED` of the shuffles (and of the image augmentations)")
		last := fs.String("last", "keep", "the last, partial batch of an epoch: `POLICY` keep, drop or pad")
		prefetch := fs.Int("prefetch", -1, "`N` batches assembled ahead of each client, beyond those the socket's buffer (4 MiB) holds already; by default 0 for --mnist (a batch is a copy from memory, and a prefetch goroutine only adds a hand-over per batch), 4 for --rec and --records")
		scale := fs.String("scale", "standard", "MNIST pixels: `SCALE` standard ((x/255-0.1307)/0.3081), unit (x/255), symmetric ([-1, 1]) or raw (0..255)")
		dataShape := fs.String("data-shape", "", "image records: the `C,H,W` of a batch's images (required with --rec)")
		randCrop := fs.Bool("rand-crop", false, "image records: crop at a random place")
		randMirror := fs.Bool("rand-mirror", false, "image records: mirror half of the images at random")
		resize := fs.Int("resize", 0, "image records: resize the shorter side to `N` pixels first (0: no resize)")
		threads := fs.Int("threads", 2, "image records: `N` decoding goroutines per client")
		recordShape := fs.String("record-shape", "", "--records: the `D,...` shape of one record's payload (required with --records)")
		recordDType := fs.String("record-dtype", "uint8", "--records: the `DTYPE` of the payload: uint8, int32, int64 or float32")
		index := fs.Bool("index", false, "MNIST: add an \"index\" int64[B] tensor, each digit's index in its files (to check what a rank received)")
		verbose := fs.Bool("v", false, "log every connection and epoch to stderr")
		return func(ctx context.Context, pos []string, e *env) error {
			if len(pos) != 0 {
				return usagef("serve takes no arguments, got %q: name data with --mnist, --rec or --records", pos)
			}
			if *batchSize < 1 || *prefetch < -1 || *threads < 1 {
				return usagef("need --batch >= 1, --prefetch >= 0 and --threads >= 1")
			}
			policy, err := oneOf("--last", *last, []string{"keep", "drop", "pad"}, batch.Keep, batch.Drop, batch.Pad)
			if err != nil {
				return err
			}
			c := feedConfig{batch: *batchSize, seed: *seed, last: policy, prefetch: *prefetch, index: *index}
			feeds := map[string]serve.Feed{}
			var names []string
			var opts []serve.Option
			if *mnistDir != "" {
				sc, off, err := mnistScale(*scale)
				if err != nil {
					return err
				}
				if err := mnistFeeds(ctx, feeds, *mnistDir, c.prefetchOr(0)); err != nil {
					return err
				}
				names = append(names, "mnist-train", "mnist-test")
				// The pixels stay bytes in the batches; a client gets them
				// normalised, or decodes them itself from a quarter of the bytes.
				opts = append(opts, serve.Affine("mnist-train", "image", sc, off), serve.Affine("mnist-test", "image", sc, off))
			}
			if *rec != "" {
				shape, err := parseDims("--data-shape", *dataShape, ",", "positive integers separated by commas", math.MaxInt)
				if err != nil {
					return err
				}
				if len(shape) != 3 {
					return usagef("--data-shape %q: want C,H,W", *dataShape)
				}
				// MXNet's ImageRecordIter, with the command's flags as its
				// parameters; num_parts and part_index are each client's.
				params := func(world, rank int) mxnet.Params {
					return mxnet.Params{"path_imgrec": *rec, "data_shape": [3]int(shape),
						"batch_size": *batchSize, "round_batch": policy, "shuffle": true, "seed": *seed,
						"preprocess_threads": *threads, "prefetch_buffer": c.prefetchOr(4).prefetch,
						"rand_crop": *randCrop, "rand_mirror": *randMirror, "resize": *resize,
						"fill_value": 0, "num_parts": world, "part_index": rank}
				}
				// The files and parameters, checked now rather than at the first client.
				if _, err := mxnet.ImageRecordIter(ctx, params(1, 0)); err != nil {
					return err
				}
				feeds["rec"] = func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
					return mxnet.ImageRecordIter(context.Background(), params(world, rank))
				}
				names = append(names, "rec")
			}
			if *records != "" {
				shape, err := parseDims("--record-shape", *recordShape, ",", "positive integers separated by commas", math.MaxInt)
				if err != nil {
					return err
				}
				feed, err := recordsFeed(strings.Split(*records, ","), shape, *recordDType, c.prefetchOr(4))
				if err != nil {
					return err
				}
				feeds["records"] = feed
				names = append(names, "records")
			}
			if len(feeds) == 0 {
				return usagef("nothing to serve: name data with --mnist, --rec or --records")
			}
			l, err := listenAddr(*listen, *public)
			if err != nil {
				return err
			}
			log := zap.NewNop()
			if *verbose {
				zc := zap.NewDevelopmentConfig()
				zc.OutputPaths = []string{"stderr"}
				if log, err = zc.Build(); err != nil {
					l.Close()
					return err
				}
			}
			s := serve.New(feeds, append(opts, serve.Logger(log))...)
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
			defer stop()
			done := make(chan error, 1)
			go func() { done <- s.Serve(l) }()
			fmt.Fprintf(e.stdout, "serving %s on %s\n", strings.Join(names, ", "), *listen)
			select {
			case <-ctx.Done():
				s.Close()
				<-done
				return nil
			case err := <-done:
				s.Close()
				return err
			}
		}
	},
}

// feedConfig is what every feed of the command shares.
type feedConfig struct {
	batch    int
	seed     uint64
	last     batch.Policy
	prefetch int  // < 0: not given (prefetchOr)
	index    bool // MNIST: an "index" tensor
}

// prefetchOr returns c with prefetch def when --prefetch was not given.
func (c feedConfig) prefetchOr(def int) feedConfig {
	if c.prefetch < 0 {
		c.prefetch = def
	}
	return c
}

// buffered adds the prefetch of c to p.
func (c feedConfig) buffered(p *pipeline.Pipe[*tensor.Batch]) *pipeline.Pipe[*tensor.Batch] {
	if c.prefetch > 0 {
		return p.Buffered(c.prefetch)
	}
	return p
}

// oneOf returns the value of the flag's value s among names, or a usage
// error that lists them. Every flag that takes one of a few words uses it.
func oneOf[T any](flagName, s string, names []string, values ...T) (T, error) {
	for i, n := range names {
		if n == s {
			return values[i], nil
		}
	}
	var zero T
	return zero, usagef("%s %q: want %s or %s", flagName, s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// mnistScale returns the scale and offset of the --scale (serve.Affine):
// a pixel byte x is served as float32(x)*scale + offset, each computed in
// float64 and rounded once. "standard" is examples/mnist's normalisation,
// zero mean and unit variance over the training pixels.
func mnistScale(s string) (scale, offset float32, err error) {
	v, err := oneOf("--scale", s, []string{"standard", "unit", "symmetric", "raw"},
		[2]float32{float32(1 / (255 * 0.3081)), float32(-0.1307 / 0.3081)}, [2]float32{1.0 / 255, 0}, [2]float32{2.0 / 255, -1}, [2]float32{1, 0})
	return v[0], v[1], err
}

// mnistFeeds loads the MNIST sets of dir once and adds their feeds: the
// training set shuffled by index every epoch, the test set in order, each
// split exactly between ranks. The "image" tensor is the pixel bytes, for
// serve.Affine to normalise.
func mnistFeeds(ctx context.Context, feeds map[string]serve.Feed, dir string, c feedConfig) error {
	labels := []sink.Field[mnist.Sample]{sink.Int64("label", nil, func(s mnist.Sample, dst []int64) { dst[0] = int64(s.Label) })}
	if c.index {
		labels = append(labels, sink.Int64("index", nil, func(s mnist.Sample, dst []int64) { dst[0] = int64(s.Index) }))
	}
	s := sink.New(c.batch,
		[]sink.Field[mnist.Sample]{sink.Uint8("image", []int{mnist.Pixels}, func(s mnist.Sample, dst []uint8) { copy(dst, s.Image[:]) })}, labels)
	for _, split := range []struct {
		name    string
		set     *mnist.Dataset
		shuffle bool
	}{{"mnist-train", mnist.Train(dir), true}, {"mnist-test", mnist.Test(dir), false}} {
		table, err := split.set.Load(ctx)
		if err != nil {
			return err
		}
		name, shuffle := split.name, split.shuffle
		feeds[name] = func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
			opts := []source.IndexedOption{source.ShardIndex(world, rank, source.PadShards)}
			if shuffle {
				opts = append(opts, source.ShuffleIndex(c.seed))
			}
			p := pipeline.From[mnist.Sample](source.ReadIndexed(table, opts...)).Named(name)
			return c.buffered(pipeline.Tensorize(p, s, c.last)), nil
		}
	}
	return nil
}

// recordsFeed returns the feed of fixed-shape records of the format
// registry: every payload is one sample of shape and dtype, raw and
// little-endian.
func recordsFeed(specs []string, shape []int, dtype string, c feedConfig) (serve.Feed, error) {
	dt, err := oneOf("--record-dtype", dtype, []string{"uint8", "int32", "int64", "float32"}, sample.Uint8, sample.Int32, sample.Int64, sample.Float32)
	if err != nil {
		return nil, err
	}
	want := sample.Elems(shape) * dt.Size()
	check := func(r format.Record) error {
		if len(r.Data) != want {
			return fmt.Errorf("%s: record %d at offset %d: %d bytes, want %d (--record-shape %v of %v)", r.Path, r.Index, r.Offset, len(r.Data), want, shape, dt)
		}
		return nil
	}
	s := sink.New(c.batch, []sink.Field[format.Record]{rawField(dt, shape)}, nil)
	return func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
		p := pipeline.From(format.Open(specs)).Named("records")
		if world > 1 {
			p = p.Shard(world, rank)
		}
		p = pipeline.MapErr(p, func(r format.Record) (format.Record, error) { return r, check(r) })
		return c.buffered(pipeline.Tensorize(p, s, c.last)), nil
	}, nil
}

// rawField is the field of a payload of little-endian numbers, copied
// into the tensor's memory: the wire and the record are both
// little-endian. check has made the payload's length the tensor's.
func rawField(dt sample.DType, shape []int) sink.Field[format.Record] {
	switch dt {
	case sample.Uint8:
		return sink.Uint8("data", shape, func(r format.Record, dst []uint8) { copy(dst, r.Data) })
	case sample.Int32:
		return sink.Int32("data", shape, decodeLE[int32])
	case sample.Int64:
		return sink.Int64("data", shape, decodeLE[int64])
	default: // Float32
		return sink.Float32("data", shape, decodeLE[float32])
	}
}

// decodeLE fills dst with the little-endian numbers of r's payload.
func decodeLE[E int32 | int64 | float32](r format.Record, dst []E) {
	binary.Decode(r.Data, binary.LittleEndian, dst)
}

// parseDims parses the flag's value s, numbers from 1 to most separated
// by sep ("3,224,224", "28x28"); want says what the flag takes, for its
// error.
func parseDims(flagName, s, sep, want string, most int) ([]int, error) {
	if s == "" {
		return nil, usagef("%s is required", flagName)
	}
	var dims []int
	for _, f := range strings.Split(s, sep) {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 || d > most {
			return nil, usagef("%s %q: want %s", flagName, s, want)
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// listenAddr listens on addr: loopback only unless public.
func listenAddr(addr string, public bool) (net.Listener, error) {
	if public && !strings.HasPrefix(addr, "unix:") {
		return net.Listen("tcp", addr)
	}
	l, err := serve.Listen(addr)
	if err != nil && !errors.Is(err, syscall.EADDRINUSE) && !strings.HasPrefix(addr, "unix:") && strings.Contains(err.Error(), "loopback") {
		return nil, usagef("%v (--public to allow it)", err)
	}
	return l, err
}
