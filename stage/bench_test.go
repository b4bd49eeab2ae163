package stage_test

import (
	"context"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/stage"
)

// vec is a small fixed-size sample, such as a row of tabular features.
type vec [16]float32

const benchSamples = 4096

func benchData() []vec {
	data := make([]vec, benchSamples)
	for i := range data {
		for j := range data[i] {
			data[i][j] = float32(i*16+j) / 7
		}
	}
	return data
}

// The three steps of the per-sample work: centre, scale, clip.
func centre(v vec) vec {
	for i := range v {
		v[i] -= 100
	}
	return v
}

func scale(v vec) vec {
	for i := range v {
		v[i] *= 0.01
	}
	return v
}

func clip(v vec) vec {
	for i := range v {
		v[i] = min(max(v[i], -1), 1)
	}
	return v
}

var benchSink float32

func perSample(b *testing.B, samples int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(samples), "ns/sample")
}

// BenchmarkPlainLoop is the loop a user would write by hand.
func BenchmarkPlainLoop(b *testing.B) {
	data := benchData()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		var acc float32
		for _, v := range data {
			v = clip(scale(centre(v)))
			acc += v[0] + v[15]
		}
		benchSink = acc
		n += len(data)
	}
	perSample(b, n)
}

// BenchmarkMapChain does the same work as three Map stages over a Slice.
func BenchmarkMapChain(b *testing.B) {
	data := benchData()
	r := stage.Map(stage.Map(stage.Map(source.Slice(data), centre), scale), clip)
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		var acc float32
		for v, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			acc += v[0] + v[15]
		}
		benchSink = acc
		n += len(data)
	}
	perSample(b, n)
}

// BenchmarkSliceOnly is the cost of the source alone, for reference.
func BenchmarkSliceOnly(b *testing.B) {
	data := benchData()
	r := source.Slice(data)
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		var acc float32
		for v, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			acc += v[0] + v[15]
		}
		benchSink = acc
		n += len(data)
	}
	perSample(b, n)
}
