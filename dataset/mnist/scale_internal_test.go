package mnist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPixelsSameBits checks that the fast Pixels writes the bits of the
// element-by-element table for every scale, length and offset, on random
// bytes and on the real digits' runs of zeros.
func TestPixelsSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 2*Pixels+13)
	for i := range src {
		if r.IntN(3) > 0 {
			src[i] = byte(r.IntN(256))
		}
	}
	for s := range numScales {
		for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, Pixels, 2*Pixels + 13} {
			for _, off := range []int{0, 1, 3} {
				if off+n > len(src) {
					continue
				}
				in := src[off : off+n]
				got := make([]float32, n+off)[off:]
				want := make([]float32, n)
				s.Pixels(in, got)
				s.pixelsScalar(in, want)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v, n %d, offset %d: element %d = %v, want %v", s, n, off, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkPixels normalises the first 1,000 test digits, one image per
// iteration, through the fast path and element by element.
func BenchmarkPixels(b *testing.B) {
	x, err := ReadIDX("../../data/mnist/t10k-images-idx3-ubyte.gz")
	if err != nil {
		b.Fatal(err)
	}
	imgs := x.Raw[:1000*Pixels]
	dst := make([]float32, Pixels)
	for _, k := range []struct {
		name string
		f    func(Scale, []uint8, []float32)
	}{{"fast", Scale.Pixels}, {"scalar", Scale.pixelsScalar}} {
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(Pixels)
			i := 0
			for b.Loop() {
				k.f(ScaleSymmetric, imgs[i*Pixels:(i+1)*Pixels], dst)
				i = (i + 1) % 1000
			}
		})
	}
}

// FuzzPixels checks the fast Pixels against the element-by-element table
// on arbitrary bytes, lengths and alignments.
func FuzzPixels(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint8(0))
	f.Add(make([]byte, 100), uint8(2), uint8(1))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(1), uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, scale, off uint8) {
		s := Scale(scale % uint8(numScales))
		o := int(off % 4)
		got := make([]float32, len(src)+o)[o:]
		want := make([]float32, len(src))
		s.Pixels(src, got)
		s.pixelsScalar(src, want)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: element %d of %d = %v, want %v", s, i, len(src), got[i], want[i])
			}
		}
	})
}
