package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// The parameters of the GAN row.
const (
	ganNoise = 100
	ganSeed  = 11
	// ganOut is the output of one sample: the image, the noise and two
	// float32 labels.
	ganOut = mnist.Pixels*4 + ganNoise*4 + 2*4
)

// ganSample is one composed sample: an image, its noise vector (N is
// []float32 or [100]float32) and the discriminator's constant true and
// false labels.
type ganSample[N any] = stage.Tuple4[mnist.Sample, N, bool, bool]

// ganPipeline builds: Zip4(images, noise, Constant(true), Constant(false),
// Shortest) -> Tensorize(sink of 128, Keep) with the image, noise, real and
// fake tensors; the consumer releases every batch. The images come from
// the table in memory (Dataset.Load: the files decoded once per process),
// by reference. Every fill writes its whole row (WritesAll), so recycled
// rows are not cleared first.
func ganPipeline[N any](tab *mnist.Table, noise source.Reader[N], fillNoise func(N, []float32)) source.Reader[*tensor.Batch] {
	z := stage.Zip4[mnist.Sample, N, bool, bool](source.ReadIndexed(tab), noise, source.Constant(true, -1), source.Constant(false, -1),
		stage.Shortest())
	boolF32 := func(v bool) float32 {
		if v {
			return 1
		}
		return 0
	}
	s := sink.New(mnistBatch,
		[]sink.Field[ganSample[N]]{
			sink.Float32("image", []int{mnist.Pixels}, func(s ganSample[N], dst []float32) {
				for i, x := range s.A.Image {
					dst[i] = bestLUT[x]
				}
			}).WritesAll(),
			sink.Float32("noise", []int{ganNoise}, func(s ganSample[N], dst []float32) { fillNoise(s.B, dst) }).WritesAll(),
		},
		[]sink.Field[ganSample[N]]{
			sink.Float32("real", nil, func(s ganSample[N], dst []float32) { dst[0] = boolF32(s.C) }).WritesAll(),
			sink.Float32("fake", nil, func(s ganSample[N], dst []float32) { dst[0] = boolF32(s.D) }).WritesAll(),
		})
	return pipeline.Tensorize(pipeline.From[ganSample[N]](z), s, batch.Keep)
}

// ganCompose measures PaddlePaddle's GAN input: MNIST images zipped with
// 100-float uniform noise and constant true / false labels, batches of 128,
// no shuffle. The first row draws the noise with source.Uniform (slices
// cut from shared slabs); the second with source.Generate returning a
// [100]float32 array.
func ganCompose(cfg config, f *mnistFiles) ([]Row, error) {
	outBytes, floor := f.outBytes, f.floor
	tab, err := mnist.New(f.images, f.labels).Load(context.Background())
	if err != nil {
		return nil, err
	}
	noiseArray := source.Generate(-1, ganSeed, func(r *rand.Rand, _ int) (v [ganNoise]float32) {
		for i := range v {
			v[i] = -1 + 2*r.Float32() // as source.Uniform(ganNoise, -1, 1, ganSeed)
		}
		return v
	})
	type variant struct {
		name, note string
		r          source.Reader[*tensor.Batch]
	}
	uniform := variant{name: "uniform", note: "Zip4(images by reference, source.Uniform(100), Constant(true), Constant(false), Shortest) -> Tensorize(sink of 128, Keep), the consumer releasing tensors; plain: one loop reading the files"}
	uniform.r = ganPipeline(tab, source.Uniform(ganNoise, -1, 1, ganSeed), func(v []float32, dst []float32) { copy(dst, v) })
	array := variant{name: "noise-array", note: "as uniform, with source.Generate of [100]float32 values instead of Uniform's slices"}
	array.r = ganPipeline(tab, noiseArray, func(v [ganNoise]float32, dst []float32) { copy(dst, v[:]) })
	variants := []variant{uniform, array}

	var rows []Row
	for _, v := range variants {
		var got, want uint64
		rs, err := measureEach(cfg.cheapReps(), func() error {
			got = 0
			ctx := source.WithEpoch(context.Background(), 0)
			for b, err := range v.r.All(ctx) {
				if err != nil {
					return err
				}
				got = consumeGAN(got, b.Data[0].F32, b.Data[1].F32, b.Label[0].F32, b.Label[1].F32)
				b.Release()
			}
			return nil
		}, func() (err error) { want, err = ganPlain(f); return err })
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, fmt.Errorf("gan-compose %s: pipeline and plain loop differ (checksums %x, %x)", v.name, got, want)
		}
		row := newRow("gan-compose", 1, f.n, outBytes, rs[0], rs[1], floor)
		row.Variant, row.Note = v.name, v.note
		rows = append(rows, row)
	}
	return rows, nil
}

// consumeGAN folds a batch into a checksum, as consumeBatch does.
func consumeGAN(sum uint64, img, noise, real, fake []float32) uint64 {
	for i := range real {
		sum = sum*31 + uint64(real[i]*2+fake[i])
	}
	for i := 0; i < len(img); i += 61 {
		if img[i] > 0 {
			sum++
		}
	}
	for i := 0; i < len(noise); i += 7 {
		if noise[i] > 0 {
			sum += 3
		}
	}
	return sum
}

// ganPlain is the hand loop: read the files, normalise each image into its
// batch row (through a table, as the pipeline does), draw the noise into its row (from the generator
// source.Uniform uses, so the checksums agree), set the labels, consume.
func ganPlain(f *mnistFiles) (uint64, error) {
	imgF, err := os.Open(f.images)
	if err != nil {
		return 0, err
	}
	defer imgF.Close()
	labF, err := os.Open(f.labels)
	if err != nil {
		return 0, err
	}
	defer labF.Close()
	img := bufio.NewReaderSize(imgF, 64<<10)
	lab := bufio.NewReaderSize(labF, 64<<10)
	var hdr [16]byte
	if _, err := io.ReadFull(img, hdr[:16]); err != nil {
		return 0, err
	}
	n := int(binary.BigEndian.Uint32(hdr[4:]))
	if _, err := io.ReadFull(lab, hdr[:8]); err != nil {
		return 0, err
	}
	rng := source.NewRand(ganSeed, 0, -1)
	images := make([]float32, mnistBatch*mnist.Pixels)
	noise := make([]float32, mnistBatch*ganNoise)
	real := make([]float32, mnistBatch)
	fake := make([]float32, mnistBatch)
	var pix [mnist.Pixels]byte
	var sum uint64
	k := 0
	for i := range n {
		if _, err := io.ReadFull(img, pix[:]); err != nil {
			return 0, err
		}
		if _, err := lab.ReadByte(); err != nil {
			return 0, err
		}
		for j, x := range pix {
			images[k*mnist.Pixels+j] = bestLUT[x]
		}
		for j := range ganNoise {
			noise[k*ganNoise+j] = -1 + 2*rng.Float32()
		}
		real[k], fake[k] = 1, 0
		k++
		if k == mnistBatch || i == n-1 {
			sum = consumeGAN(sum, images[:k*mnist.Pixels], noise[:k*ganNoise], real[:k], fake[:k])
			k = 0
		}
	}
	return sum, nil
}
