package mxnet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/sample"
)

// reportImages reports the throughput of n images: wall-clock images/s and
// ns/image, and the CPU time per image (all goroutines) since cpu0 =
// processCPU() at the start, which says what the work costs when other
// processes compete for the cores.
func reportImages(b *testing.B, n int, cpu0 time.Duration) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "images/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/image")
	if cpu := processCPU() - cpu0; cpu0 > 0 && cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/image")
	}
}

// BenchmarkDecode decodes the benchmark photos (about 256 x 300 JPEGs) to
// RGB, with each decoder this build holds.
func BenchmarkDecode(b *testing.B) {
	imgs := recimages.ImageBytes(b, recimages.Photos(b))
	for _, dec := range recimages.Decoders() {
		b.Run(dec.Name(), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				if _, err := dec.Decode(imgs[i%len(imgs)], decode.Options{Channels: 3}); err != nil {
					b.Fatal(err)
				}
			}
			reportImages(b, b.N, cpu0)
		})
	}
}

// BenchmarkDecodeCrop decodes only a centred 224 x 224 crop: the Go decoder
// then converts only those pixels from YCbCr.
func BenchmarkDecodeCrop(b *testing.B) {
	imgs := recimages.ImageBytes(b, recimages.Photos(b))
	opts := decode.Options{Channels: 3, Crop: augment.CenterRect(224, 224)}
	for _, dec := range recimages.Decoders() {
		b.Run(dec.Name(), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				if _, err := dec.Decode(imgs[i%len(imgs)], opts); err != nil {
					b.Fatal(err)
				}
			}
			reportImages(b, b.N, cpu0)
		})
	}
}

// BenchmarkDecodeRecords compares decoding records in a plain loop over
// payloads already in memory with the same work through the reader stack
// (recordio.Open, then Decode), one goroutine each.
func BenchmarkDecodeRecords(b *testing.B) {
	path := recimages.Photos(b)
	recs := recimages.Records(b, path)
	b.Run("loop", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := processCPU()
		for i := 0; i < b.N; i++ {
			if _, err := imagerec.DecodeRecord(recs[i%len(recs)], nil, decode.Options{Channels: 3}); err != nil {
				b.Fatal(err)
			}
		}
		reportImages(b, b.N, cpu0)
	})
	b.Run("reader", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := processCPU()
		r := imagerec.Decode(recordio.Open(path), nil, decode.Options{Channels: 3}, nil)
		n := 0
		for n < b.N {
			for _, err := range r.All(context.Background()) {
				if err != nil {
					b.Fatal(err)
				}
				if n++; n == b.N {
					break
				}
			}
		}
		reportImages(b, n, cpu0)
	})
}

// BenchmarkPipeline is the full ImageRecordIter work on the photos: decode,
// random 224 x 224 crop, random mirror, mean/std normalisation, float32
// CHW, batches of 128, for 1 and 2 threads. One iteration is one epoch
// of 1536 images; batches are recycled as a training loop would.
func BenchmarkPipeline(b *testing.B) {
	path := recimages.Photos(b)
	for _, dec := range recimages.Decoders() {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", dec.Name(), threads), func(b *testing.B) {
				it, err := newRec(path, oDataShape(3, 224, 224), oSeed(1),
					oBatch(128), oLastBatch(batch.Pad),
					oRandCrop(), oRandMirror(),
					oNormalize(augment.Normalize{Mean: [4]float32{123.68, 116.28, 103.53},
						Std: [4]float32{58.395, 57.12, 57.375}}),
					oThreads(threads), oDecoder(dec), oDType(sample.Float32))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := processCPU()
				n := 0
				for i := 0; i < b.N; i++ {
					for t, err := range it.All(context.Background()) {
						if err != nil {
							b.Fatal(err)
						}
						n += t.Data[0].Shape[0] - t.Padded
						t.Release()
					}
				}
				reportImages(b, n, cpu0)
			})
		}
	}
}

// BenchmarkNormalize converts one 224 x 224 RGB image to normalised
// float32 CHW, mirrored or not.
func BenchmarkNormalize(b *testing.B) {
	img := sample.NewImage(224, 224, 3)
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	n := augment.Normalize{Mean: [4]float32{123.68, 116.28, 103.53}, Std: [4]float32{58.395, 57.12, 57.375}}
	for _, mirror := range []bool{false, true} {
		b.Run(fmt.Sprintf("mirror=%v", mirror), func(b *testing.B) {
			dst := make([]float32, 3*224*224)
			b.ReportAllocs()
			b.SetBytes(int64(len(dst) * 4))
			for i := 0; i < b.N; i++ {
				n.Into(dst, img, mirror, nil)
			}
		})
	}
}
