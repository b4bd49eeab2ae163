package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/seeded"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// The parameters of the MNIST rows.
const (
	mnistBatch   = 128
	mnistShuffle = 10000
	mnistSeed    = 7
	// mnistOut is the output of one sample: 784 float32 pixels and an
	// int64 label.
	mnistOut = mnist.Pixels*4 + 8
)

// The magic numbers of MNIST's image and label files.
const (
	imagesMagic = 0x00000803
	labelsMagic = 0x00000801
)

// mnistFiles is the MNIST training set, decompressed into a temporary
// directory (outside the timing).
type mnistFiles struct {
	dir, images, labels string
	n                   int
	// outBytes is what a pass writes (n samples of the row's output), and
	// floor the time of copying that many bytes, a batch at a time.
	outBytes int64
	floor    run
}

func (f *mnistFiles) remove() { os.RemoveAll(f.dir) }

// onMNIST runs measure over the MNIST files prepared for samples of
// sampleOut bytes (prepareMNIST), and removes them afterwards.
func onMNIST(sampleOut int64, measure func(cfg config, f *mnistFiles) ([]Row, error)) func(config) ([]Row, error) {
	return func(cfg config) ([]Row, error) {
		f, err := prepareMNIST(cfg, sampleOut)
		if err != nil {
			return nil, err
		}
		defer f.remove()
		return measure(cfg, f)
	}
}

// prepareMNIST decompresses the training images and labels of data/mnist
// into a new temporary directory, keeping only the first 1000 samples for a
// tiny run, and measures the floor of a pass writing sampleOut bytes a
// sample.
func prepareMNIST(cfg config, sampleOut int64) (*mnistFiles, error) {
	n := 0 // the whole set
	if cfg.tiny {
		n = 1000
	}
	src := filepath.Join(cfg.repo, "data", "mnist")
	img, err := idx.ReadFile(filepath.Join(src, "train-images-idx3-ubyte.gz"))
	if err != nil {
		return nil, err
	}
	lab, err := idx.ReadFile(filepath.Join(src, "train-labels-idx1-ubyte.gz"))
	if err != nil {
		return nil, err
	}
	if n <= 0 || n > img.Dims[0] {
		n = img.Dims[0]
	}
	dir, err := os.MkdirTemp("", "tensorfeed-bench-mnist-")
	if err != nil {
		return nil, err
	}
	f := &mnistFiles{dir: dir, n: n,
		images: filepath.Join(dir, "train-images-idx3-ubyte"),
		labels: filepath.Join(dir, "train-labels-idx1-ubyte")}
	if err := writeIDX(f.images, imagesMagic, []int{n, mnist.Rows, mnist.Cols}, img.Raw[:n*mnist.Pixels]); err != nil {
		f.remove()
		return nil, err
	}
	if err := writeIDX(f.labels, labelsMagic, []int{n}, lab.Raw[:n]); err != nil {
		f.remove()
		return nil, err
	}
	f.outBytes = int64(n) * sampleOut
	if f.floor, err = measureFloor(cfg.cheapReps(), f.outBytes, mnistBatch*int(sampleOut)); err != nil {
		f.remove()
		return nil, err
	}
	return f, nil
}

// writeIDX writes an uncompressed IDX file of unsigned bytes.
func writeIDX(path string, magic uint32, dims []int, raw []byte) error {
	hdr := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(d))
	}
	return os.WriteFile(path, append(hdr, raw...), 0o644)
}

// mnistEpoch measures one shuffled, normalised, batched epoch of the MNIST
// training set, for every thread count of cfg: with one goroutine, and
// with more (batches assembled by as many workers, consumed in order by
// the caller), against the best plain loop with as many goroutines and,
// for the pipeline with a shuffle stage (two threads), against the plain
// loop that streams the files through a shuffle buffer alike.
func mnistEpoch(cfg config, f *mnistFiles) ([]Row, error) {
	outBytes, floor := f.outBytes, f.floor
	// Memory first, each variant's first epoch alone, as a training run
	// starts it: a new pipeline, an empty decoded-file cache (package
	// mnist's), none of the plain loops' data. The memory floor is the
	// decoded data set, 785 bytes a sample.
	variants := mnistVariants(cfg.threadCounts())
	mems := make([]memory, len(variants))
	for i, v := range variants {
		idx.SetCacheBytes(idx.SetCacheBytes(0)) // empties the cache
		var err error
		mems[i], err = measureMemory(int64(f.n)*(mnist.Pixels+1), func() error {
			_, err := newMNISTPipeline(f, v).epoch()
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	pipes := make([]*mnistPipeline, len(variants))
	for i, v := range variants {
		pipes[i] = newMNISTPipeline(f, v)
	}
	data, err := loadMNIST(f)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for i, v := range variants {
		plain := func() (uint64, error) { return mnistBest(data, v.threads) }
		if v.naive {
			plain = func() (uint64, error) { return mnistPlain(f, v.threads) }
		}
		var got, want uint64
		rs, err := measureEach(cfg.cheapReps(),
			func() (err error) { got, err = pipes[i].epoch(); return err },
			func() (err error) { want, err = plain(); return err })
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, fmt.Errorf("mnist-epoch %s: pipeline and plain loop differ (checksums %x, %x)", v.name, got, want)
		}
		row := newRow("mnist-epoch", v.threads, f.n, outBytes, rs[0], rs[1], floor)
		row.Variant, row.Note = v.name, v.note
		row.setMemory(mems[i])
		rows = append(rows, row)
	}
	return rows, nil
}

// mnistVariant is one way to run the MNIST epoch.
type mnistVariant struct {
	name, note string
	threads    int
	naive      bool // a shuffle stage, against the plain loop that streams the files
}

// mnistVariants lists the rows of mnist-epoch for the thread counts
// threads: the shuffle stage's with 2, then the README pipeline's with every
// count above 1 in the order given, then its one-goroutine form with 1 (the
// table of 1 and 2 threads keeps its order). With t threads the README
// pipeline assembles batches with Workers(t), against the plain loop whose
// t goroutines each fill whole batches.
func mnistVariants(threads []int) []mnistVariant {
	var vs []mnistVariant
	if slices.Contains(threads, 2) {
		vs = append(vs, mnistVariant{"shuffle-stage", "From(IDX) -> Shuffle(10000) stage -> Tensorize(128, Keep) -> Buffered(4), " +
			"against the plain loop that streams the files through bufio and a shuffle buffer of 10000 samples " +
			"(producer and consumer goroutines)", 2, true})
	}
	for _, t := range threads {
		if t > 1 {
			vs = append(vs, mnistVariant{"", fmt.Sprintf("README: Load(IDX) -> ReadIndexed(ShuffleIndex(seed)) -> "+
				"Tensorize(sink.Of[mnist.Sample](128), Keep, Workers(%d)), against the best plain loop: data in memory, "+
				"a shuffled index, %d goroutines each gathering, normalising (a 256-entry table) and labelling one batch in %d "+
				"straight into its reused buffers, consumed in order by the caller", t, t, t), t, false})
		}
	}
	if slices.Contains(threads, 1) {
		vs = append(vs, mnistVariant{"", "the same without Buffered, against the best plain loop in one goroutine", 1, false})
	}
	return vs
}

// mnistPipeline is the pipeline a user builds for a training epoch.
type mnistPipeline struct {
	ds    *mnist.Dataset
	s     *sink.Sink[mnist.Sample] // built once, as a training run does: its memory is reused across epochs
	v     mnistVariant
	naive source.Reader[*tensor.Batch] // the shuffle stage's, built once
}

// mnistImageScale is the rows' pixel range, a tanh model's.
func mnistSink() *sink.Sink[mnist.Sample] {
	return sink.Of[mnist.Sample](mnistBatch, sink.Scale("image", -1, 1))
}

// newMNISTPipeline builds the variant's pipeline: the README's, the
// training set loaded into memory (from the decoded-file cache after the
// first time) and read shuffled by index -> Tensorize(sink.Of(128), Keep,
// Workers(threads)) with the image in [-1, 1] and an int32 label; or the
// files streamed in their order through a shuffle stage. Nothing is allocated per batch: batches are recycled
// (Tensorize hands them back) and tensors are released by the consumer
// (Batch.Release); sink.Of writes whole rows, so recycled rows are not
// cleared first.
func newMNISTPipeline(f *mnistFiles, v mnistVariant) *mnistPipeline {
	p := &mnistPipeline{ds: mnist.New(f.images, f.labels), s: mnistSink(), v: v}
	if v.naive {
		t := pipeline.Tensorize(pipeline.From[mnist.Sample](p.ds).Shuffle(mnistShuffle, mnistSeed), p.s, batch.Keep)
		p.naive = t.Buffered(4)
	}
	return p
}

// feed loads the table (the epoch of a training run: Load takes it from
// the decoded-file cache after the first time) and builds the variant's
// pipeline over it.
func (p *mnistPipeline) feed(ctx context.Context) (source.Reader[*tensor.Batch], error) {
	if p.naive != nil {
		return p.naive, nil
	}
	tab, err := p.ds.Load(ctx)
	if err != nil {
		return nil, err
	}
	samples := pipeline.From(source.ReadIndexed(tab, source.ShuffleIndex(mnistSeed)))
	return pipeline.Tensorize(samples, p.s, batch.Keep, pipeline.Workers(p.v.threads)), nil
}

// epoch runs one pass (always epoch 0, so every run shuffles alike) and
// returns the checksum of what the consumer saw.
func (p *mnistPipeline) epoch() (uint64, error) {
	ctx := source.WithEpoch(context.Background(), 0)
	r, err := p.feed(ctx)
	if err != nil {
		return 0, err
	}
	var sum uint64
	for t, err := range r.All(ctx) {
		if err != nil {
			return 0, err
		}
		sum = consumeBatch(sum, t.Data[0].F32, t.Label[0].I32)
		t.Release() // the next batches are written into this memory
	}
	return sum, nil
}

// consumeBatch stands for the training step: it reads every label and a
// sample of the pixels, so that nothing can be optimised away, and folds
// them into an order-sensitive checksum.
func consumeBatch[L int32 | int64](sum uint64, img []float32, lab []L) uint64 {
	for _, l := range lab {
		sum = sum*31 + uint64(l)
	}
	for i := 0; i < len(img); i += 61 {
		if img[i] > 0 {
			sum++
		}
	}
	return sum
}

// mnistRecord is one sample in the plain loop's shuffle buffer.
type mnistRecord struct {
	img [mnist.Pixels]byte
	lab byte
}

// mnistBatchBuf is one batch of the plain loop.
type mnistBatchBuf struct {
	img []float32
	lab []int64
	n   int
}

func newMNISTBatchBuf() *mnistBatchBuf {
	return &mnistBatchBuf{img: make([]float32, mnistBatch*mnist.Pixels), lab: make([]int64, mnistBatch)}
}

// add normalises sample j of d through the lookup table into the next row
// of b, and its label.
func (b *mnistBatchBuf) add(d *mnistData, j int) {
	src := d.img[j*mnist.Pixels : (j+1)*mnist.Pixels]
	dst := b.img[b.n*mnist.Pixels : (b.n+1)*mnist.Pixels]
	for k, x := range src {
		dst[k] = bestLUT[x]
	}
	b.lab[b.n] = int64(d.lab[j])
	b.n++
}

// mnistData is the training set as the best plain loop holds it: both
// files read into memory once per process (outside the timing, as the
// pipeline's decoded-file cache is filled by the untimed warm-up).
type mnistData struct {
	img, lab []byte
	n        int
}

// loadMNIST reads the uncompressed files of f, checking their headers.
func loadMNIST(f *mnistFiles) (*mnistData, error) {
	img, err := os.ReadFile(f.images)
	if err != nil {
		return nil, err
	}
	lab, err := os.ReadFile(f.labels)
	if err != nil {
		return nil, err
	}
	if len(img) < 16 || binary.BigEndian.Uint32(img) != imagesMagic || len(lab) < 8 || binary.BigEndian.Uint32(lab) != labelsMagic {
		return nil, fmt.Errorf("%s: not MNIST", f.dir)
	}
	n := int(binary.BigEndian.Uint32(img[4:]))
	if len(img) != 16+n*mnist.Pixels || len(lab) != 8+n {
		return nil, fmt.Errorf("%s: sizes do not match the headers", f.dir)
	}
	return &mnistData{img: img[16:], lab: lab[8:], n: n}, nil
}

// bestLUT is the best plain loop's table: x/255*2 - 1 for every byte.
var bestLUT = func() (t [256]float32) {
	for x := range t {
		t[x] = float32(float64(x)/255*2 - 1)
	}
	return t
}()

// shuffleIndex returns the order of epoch 0 of n samples under
// source.ShuffleIndex(mnistSeed), so that the checksums agree.
func shuffleIndex(n int) []int {
	p := seeded.NewPermutation(n, mnistSeed, 0)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = p.At(i)
	}
	return perm
}

// mnistBest is the best plain loop a skilled Go programmer writes for the
// epoch: the data set in memory, a shuffled index (the same permutation
// as source.ShuffleIndex's, so that the checksums agree), each image
// gathered by index and normalised through a 256-entry table straight
// into a reused [128, 784] batch. With more than one thread, as many
// goroutines fill whole batches round-robin and the caller consumes them
// in order (mnistBestParallel).
func mnistBest(d *mnistData, threads int) (uint64, error) {
	if threads > 1 {
		return mnistBestParallel(d, threads), nil
	}
	var sum uint64
	b := newMNISTBatchBuf()
	for _, j := range shuffleIndex(d.n) {
		b.add(d, j)
		if b.n == mnistBatch {
			sum = consumeBatch(sum, b.img, b.lab)
			b.n = 0
		}
	}
	if b.n > 0 {
		sum = consumeBatch(sum, b.img[:b.n*mnist.Pixels], b.lab[:b.n])
	}
	return sum, nil
}

// mnistBestParallel is mnistBest with workers goroutines producing the
// batches: worker w fills batches w, w+workers, w+2*workers... of the
// shuffled index into its own three recycled buffers and hands them over
// on its own channel, so the caller, taking batch k from worker k%workers,
// consumes them in order with no lock and no reordering buffer.
func mnistBestParallel(d *mnistData, workers int) uint64 {
	perm := shuffleIndex(d.n)
	nb := (d.n + mnistBatch - 1) / mnistBatch
	const nbuf = 3
	free := make([]chan *mnistBatchBuf, workers)
	full := make([]chan *mnistBatchBuf, workers)
	var wg sync.WaitGroup
	for w := range workers {
		free[w] = make(chan *mnistBatchBuf, nbuf)
		full[w] = make(chan *mnistBatchBuf, nbuf)
		for range nbuf {
			free[w] <- newMNISTBatchBuf()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(full[w])
			for k := w; k < nb; k += workers {
				b := <-free[w]
				for _, j := range perm[k*mnistBatch : min((k+1)*mnistBatch, d.n)] {
					b.add(d, j)
				}
				full[w] <- b
			}
		}()
	}
	var sum uint64
	for k := range nb {
		w := k % workers
		b := <-full[w]
		sum = consumeBatch(sum, b.img[:b.n*mnist.Pixels], b.lab[:b.n])
		b.n = 0
		free[w] <- b
	}
	wg.Wait()
	return sum
}

// mnistPlain is the loop a user writes without the library: read both
// files through bufio, shuffle with a sliding buffer of 10,000 samples
// drawn from the same generator as stage.Shuffle, normalise into a
// [128, 784] float32 batch and int64 labels, consume. It normalises with
// a lookup table, as the pipeline's sink does (faster than
// float32(p)*(2.0/255)-1 written out), so that the ratio is the
// pipeline's own cost. With two threads one
// goroutine prepares the batches and the caller consumes them, handed over
// by a channel, with three batch buffers recycled through a second one.
func mnistPlain(f *mnistFiles, threads int) (uint64, error) {
	if threads == 1 {
		b := newMNISTBatchBuf()
		var sum uint64
		err := mnistPlainProduce(f, func() *mnistBatchBuf { return b }, func(b *mnistBatchBuf) bool {
			sum = consumeBatch(sum, b.img[:b.n*mnist.Pixels], b.lab[:b.n])
			b.n = 0
			return true
		})
		return sum, err
	}
	const nbuf = 3
	free := make(chan *mnistBatchBuf, nbuf)
	full := make(chan *mnistBatchBuf, nbuf)
	for range nbuf {
		free <- newMNISTBatchBuf()
	}
	errc := make(chan error, 1)
	go func() {
		defer close(full)
		errc <- mnistPlainProduce(f, func() *mnistBatchBuf { return <-free }, func(b *mnistBatchBuf) bool {
			full <- b
			return true
		})
	}()
	var sum uint64
	for b := range full {
		sum = consumeBatch(sum, b.img[:b.n*mnist.Pixels], b.lab[:b.n])
		b.n = 0
		free <- b
	}
	return sum, <-errc
}

// mnistPlainProduce reads, shuffles and normalises; get returns an empty
// batch buffer, put takes a full (or the last, partial) one.
func mnistPlainProduce(f *mnistFiles, get func() *mnistBatchBuf, put func(*mnistBatchBuf) bool) error {
	imgF, err := os.Open(f.images)
	if err != nil {
		return err
	}
	defer imgF.Close()
	labF, err := os.Open(f.labels)
	if err != nil {
		return err
	}
	defer labF.Close()
	img := bufio.NewReaderSize(imgF, 64<<10)
	lab := bufio.NewReaderSize(labF, 64<<10)
	var hdr [16]byte
	if _, err := io.ReadFull(img, hdr[:16]); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(hdr[:]) != imagesMagic {
		return fmt.Errorf("%s: not MNIST images", f.images)
	}
	n := int(binary.BigEndian.Uint32(hdr[4:]))
	if _, err := io.ReadFull(lab, hdr[:8]); err != nil {
		return err
	}

	rng := source.NewRand(mnistSeed, 0, -1)
	buf := make([]mnistRecord, 0, mnistShuffle)
	b := get()
	emit := func(r *mnistRecord) {
		dst := b.img[b.n*mnist.Pixels : (b.n+1)*mnist.Pixels]
		for k, x := range r.img {
			dst[k] = bestLUT[x]
		}
		b.lab[b.n] = int64(r.lab)
		b.n++
		if b.n == mnistBatch {
			put(b)
			b = get()
		}
	}
	var r mnistRecord
	for range n {
		if _, err := io.ReadFull(img, r.img[:]); err != nil {
			return err
		}
		if r.lab, err = lab.ReadByte(); err != nil {
			return err
		}
		if len(buf) < mnistShuffle {
			buf = append(buf, r)
			continue
		}
		j := rng.IntN(mnistShuffle)
		emit(&buf[j])
		buf[j] = r
	}
	for len(buf) > 0 {
		last := len(buf) - 1
		j := rng.IntN(len(buf))
		emit(&buf[j])
		buf[j] = buf[last]
		buf = buf[:last]
	}
	if b.n > 0 {
		put(b)
	}
	return nil
}
