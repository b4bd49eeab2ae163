package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
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

// mnistFiles is the MNIST training set, decompressed into a temporary
// directory (outside the timing).
type mnistFiles struct {
	dir, images, labels string
	n                   int
}

func (f *mnistFiles) remove() { os.RemoveAll(f.dir) }

// prepareMNIST decompresses the training images and labels of data/mnist
// into a new temporary directory, keeping only the first n samples when n
// is positive (tiny runs).
func prepareMNIST(cfg config, n int) (*mnistFiles, error) {
	src := filepath.Join(cfg.repo, "data", "mnist")
	img, err := mnist.ReadIDX(filepath.Join(src, "train-images-idx3-ubyte.gz"))
	if err != nil {
		return nil, err
	}
	lab, err := mnist.ReadIDX(filepath.Join(src, "train-labels-idx1-ubyte.gz"))
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
	if err := writeIDX(f.images, mnist.ImagesMagic, []int{n, mnist.Rows, mnist.Cols}, img.Raw[:n*mnist.Pixels]); err != nil {
		f.remove()
		return nil, err
	}
	if err := writeIDX(f.labels, mnist.LabelsMagic, []int{n}, lab.Raw[:n]); err != nil {
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
// training set, with one goroutine and with two (batches prepared in one,
// consumed in the other).
func mnistEpoch(cfg config) ([]Row, error) {
	n := 0
	if cfg.tiny {
		n = 1000
	}
	f, err := prepareMNIST(cfg, n)
	if err != nil {
		return nil, err
	}
	defer f.remove()
	outBytes := int64(f.n) * mnistOut

	floor, err := measureFloor(cfg.cheapReps(), outBytes, mnistBatch*mnistOut)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, v := range mnistVariants {
		p := newMNISTPipeline(f, v)
		mem, err := measureMemory(int64(f.n)*(mnist.Pixels+1), func() error { _, err := p.epoch(); return err })
		if err != nil {
			return nil, err
		}
		var got, want uint64
		rs, err := measureEach(cfg.cheapReps(),
			func() (err error) { got, err = p.epoch(); return err },
			func() (err error) { want, err = mnistPlain(f, v.threads); return err })
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, fmt.Errorf("mnist-epoch %s: pipeline and plain loop differ (checksums %x, %x)", v.name, got, want)
		}
		row := newRow("mnist-epoch", v.threads, f.n, outBytes, rs[0], rs[1], floor)
		row.Variant, row.Note = v.name, v.note
		row.setMemory(mem)
		rows = append(rows, row)
	}
	return rows, nil
}

// mnistVariant is one way to run the MNIST epoch.
type mnistVariant struct {
	name, note string
	threads    int
}

// mnistVariants lists the rows of mnist-epoch. The two-thread plain
// reference is the same for both variants: a producer goroutine that does
// everything, a channel of full batches and three recycled batch buffers.
var mnistVariants = []mnistVariant{
	{"", "pipeline: From(IDX) -> Shuffle(10000) -> Tensorize(sink of 128, Keep), the consumer releasing tensors", 1},
	{"prefetch-tensors", "... -> Tensorize -> Buffered(2): batches assembled in a goroutine, " +
		"the consumer hands each back with Release", 2},
	{"prefetch-batches", "... -> Batch(128, Recycling) -> Buffered(2) -> Tensorize: " +
		"samples batched in a goroutine, normalised by the consumer", 2},
}

// mnistPipeline is the pipeline a user builds for a training epoch.
type mnistPipeline struct {
	r source.Reader[*tensor.Batch]
}

// newMNISTPipeline builds: IDX files -> Shuffle(10000) -> Batch(128, Keep)
// -> Tensorize (image float32 [784] in [-1, 1], label int64), with the
// hand-over between goroutines where the variant puts it. Nothing is
// allocated per batch: batches are recycled (Tensorize hands them back),
// tensors are released by the consumer (Batch.Release), and both fields
// write their whole row (WritesAll), so recycled rows are not cleared
// first.
func newMNISTPipeline(f *mnistFiles, v mnistVariant) *mnistPipeline {
	ds := mnist.New(f.images, f.labels, mnist.Flat(), mnist.Scaling(mnist.ScaleSymmetric))
	s := sink.New(mnistBatch,
		[]sink.Field[mnist.Sample]{sink.Float32("image", []int{mnist.Pixels}, ds.FillImage).WritesAll()},
		[]sink.Field[mnist.Sample]{sink.Int64("label", nil, func(s mnist.Sample, dst []int64) { dst[0] = int64(s.Label) }).WritesAll()})
	p := pipeline.From[mnist.Sample](ds).Shuffle(mnistShuffle, mnistSeed)
	switch v.name {
	case "prefetch-tensors":
		return &mnistPipeline{r: pipeline.Tensorize(p, s, batch.Keep).Buffered(2)}
	case "prefetch-batches":
		// Batches made apart from the sink, to put the goroutine between them.
		b := pipeline.Batch(p, mnistBatch, batch.Keep, batch.Recycling()).Buffered(2)
		return &mnistPipeline{r: pipeline.TensorizeBatches(b, s)}
	}
	return &mnistPipeline{r: pipeline.Tensorize(p, s, batch.Keep)}
}

// epoch runs one pass (always epoch 0, so every run shuffles alike) and
// returns the checksum of what the consumer saw.
func (p *mnistPipeline) epoch() (uint64, error) {
	ctx := source.WithEpoch(context.Background(), 0)
	var sum uint64
	for t, err := range p.r.All(ctx) {
		if err != nil {
			return 0, err
		}
		sum = consumeBatch(sum, t.Data[0].F32, t.Label[0].I64)
		t.Release() // the next batches are written into this memory
	}
	return sum, nil
}

// consumeBatch stands for the training step: it reads every label and a
// sample of the pixels, so that nothing can be optimised away, and folds
// them into an order-sensitive checksum.
func consumeBatch(sum uint64, img []float32, lab []int64) uint64 {
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

// mnistPlain is the loop a user writes without the library: read both
// files through bufio, shuffle with a sliding buffer of 10,000 samples
// drawn from the same generator as stage.Shuffle, normalise into a
// [128, 784] float32 batch and int64 labels, consume. It normalises with
// the same kernel as the pipeline (mnist.Scale.Pixels, a lookup table,
// faster than float32(p)*(2.0/255)-1 written out), so that the ratio is the
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
	if binary.BigEndian.Uint32(hdr[:]) != mnist.ImagesMagic {
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
		mnist.ScaleSymmetric.Pixels(r.img[:], b.img[b.n*mnist.Pixels:(b.n+1)*mnist.Pixels])
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
