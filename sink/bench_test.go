package sink_test

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// mnist is an MNIST-like sample: 784 pixels already scaled, and a class.
type mnist struct {
	Pix   []float32
	Label int64
}

func mnistBatch(n int) batch.Batch[mnist] {
	s := make([]mnist, n)
	for i := range s {
		p := make([]float32, 784)
		for j := range p {
			p[j] = float32((i+j)%256) / 255
		}
		s[i] = mnist{p, int64(i % 10)}
	}
	return batch.Batch[mnist]{Samples: s}
}

// mnistFields are an image and a label field, marked WritesAll or not.
func mnistFields(writesAll bool) (data, label []sink.Field[mnist]) {
	img := sink.Float32("image", []int{784}, func(s mnist, dst []float32) { copy(dst, s.Pix) })
	lbl := sink.Int64("label", nil, func(s mnist, dst []int64) { dst[0] = s.Label })
	if writesAll {
		img, lbl = img.WritesAll(), lbl.WritesAll()
	}
	return []sink.Field[mnist]{img}, []sink.Field[mnist]{lbl}
}

// BenchmarkAssemble assembles a [128, 784] float32 image tensor and [128]
// int64 labels per batch: with new memory, with Release, and with the
// fields marked WritesAll (no clearing of recycled rows).
func BenchmarkAssemble(b *testing.B) {
	const size = 128
	bt := mnistBatch(size)
	data, label := mnistFields(false)
	dataAll, labelAll := mnistFields(true)
	for _, c := range []struct {
		name      string
		writesAll bool
		recycle   bool
	}{
		{"fresh", false, false},
		{"recycle", false, true},
		{"recycle-writesall", true, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := sink.New(size, data, label)
			if c.writesAll {
				s = sink.New(size, dataAll, labelAll)
			}
			b.ReportAllocs()
			b.SetBytes(size * (784*4 + 8))
			for b.Loop() {
				ts, err := s.Assemble(bt)
				if err != nil {
					b.Fatal(err)
				}
				if c.recycle {
					ts.Release()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/sample")
		})
	}
	// The copy loop a user would write into buffers of their own.
	b.Run("plaincopy", func(b *testing.B) {
		img := make([]float32, size*784)
		lbl := make([]int64, size)
		b.ReportAllocs()
		b.SetBytes(size * (784*4 + 8))
		for b.Loop() {
			for i, s := range bt.Samples {
				copy(img[i*784:(i+1)*784], s.Pix)
				lbl[i] = s.Label
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/sample")
	})
}

// BenchmarkTensorizeBuffered runs Tensorize in a prefetching goroutine
// (stage.Buffered(2)) over 100 ready batches of 128 MNIST-like samples,
// with new tensors per batch and with tensors the consumer recycles. One
// op is one batch.
func BenchmarkTensorizeBuffered(b *testing.B) {
	const size, batches = 128, 100
	one := mnistBatch(size)
	ready := make([]batch.Batch[mnist], batches)
	for i := range ready {
		ready[i] = one
	}
	data, label := mnistFields(true)
	for _, recycle := range []bool{false, true} {
		name := "fresh"
		if recycle {
			name = "recycle"
		}
		b.Run(name, func(b *testing.B) {
			s := sink.New(size, data, label)
			r := stage.Buffered(pipeline.TensorizeBatches(pipeline.From(source.Slice(ready)), s), 2)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(size * (784*4 + 8))
			n := 0
			for n < b.N {
				for ts, err := range r.All(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					if recycle {
						ts.Release()
					}
					if n++; n == b.N {
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/sample")
		})
	}
}

// digitRef is an MNIST sample as the dataset gives it: the pixels by
// reference, the label by value.
type digitRef struct {
	Image *[784]uint8 `tensor:"image,float32"`
	Label uint8       `tensor:"label,label,int32"`
	Index int
}

// BenchmarkOf assembles [128, 784] float32 pixels scaled to [-1, 1] and
// [128] int32 labels per batch of recycled memory, from struct tags and
// from fill functions written by hand with the same lookup table: the
// tags should cost nothing over the hand-written fill.
func BenchmarkOf(b *testing.B) {
	const size = 128
	samples := make([]digitRef, size)
	for i := range samples {
		var img [784]uint8
		for j := range img {
			img[j] = uint8(i + j)
		}
		samples[i] = digitRef{Image: &img, Label: uint8(i % 10)}
	}
	var table [256]float32
	for v := range table {
		table[v] = -1 + 2*float32(v)/255
	}
	byHand := sink.New(size,
		[]sink.Field[digitRef]{sink.Float32("image", []int{784}, func(s digitRef, dst []float32) {
			for i, v := range s.Image {
				dst[i] = table[v]
			}
		}).WritesAll()},
		[]sink.Field[digitRef]{sink.Int32("label", nil, func(s digitRef, dst []int32) { dst[0] = int32(s.Label) }).WritesAll()})
	for _, c := range []struct {
		name string
		s    *sink.Sink[digitRef]
	}{{"tags", sink.Of[digitRef](size, sink.Scale("image", -1, 1))}, {"hand-written", byHand}} {
		b.Run(c.name, func(b *testing.B) {
			bt := batch.Batch[digitRef]{Samples: samples}
			b.ReportAllocs()
			b.SetBytes(size * 784 * 4)
			for b.Loop() {
				t, err := c.s.Assemble(bt)
				if err != nil {
					b.Fatal(err)
				}
				t.Release()
			}
		})
	}
}
