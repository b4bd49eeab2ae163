package sink_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/sink"
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

// BenchmarkAssemble assembles a [128, 784] float32 image tensor and [128]
// int64 labels per batch, with fresh memory and with Reuse.
func BenchmarkAssemble(b *testing.B) {
	const size = 128
	bt := mnistBatch(size)
	data := []sink.Field[mnist]{sink.Float32("image", []int{784}, func(s mnist, dst []float32) { copy(dst, s.Pix) })}
	label := []sink.Field[mnist]{sink.Int64("label", nil, func(s mnist, dst []int64) { dst[0] = s.Label })}
	for _, c := range []struct {
		name string
		opts []sink.Option
	}{{"fresh", nil}, {"reuse", []sink.Option{sink.Reuse()}}} {
		b.Run(c.name, func(b *testing.B) {
			s := sink.New(size, data, label, c.opts...)
			b.ReportAllocs()
			b.SetBytes(size * (784*4 + 8))
			for b.Loop() {
				if _, err := s.Assemble(bt); err != nil {
					b.Fatal(err)
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
