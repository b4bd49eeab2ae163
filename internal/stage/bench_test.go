package stage_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
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
	sumPasses(b, stage.Map(stage.Map(stage.Map(source.Slice(data), centre), scale), clip), len(data))
}

// BenchmarkSliceOnly is the cost of the source alone, for reference.
func BenchmarkSliceOnly(b *testing.B) {
	data := benchData()
	sumPasses(b, source.Slice(data), len(data))
}

// sumPasses runs passes of r, perPass samples each, adding up two elements
// of every sample so that the work cannot be optimised away, and reports
// the cost per sample.
func sumPasses(b *testing.B, r source.Reader[vec], perPass int) {
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
		n += perPass
	}
	perSample(b, n)
}

// BenchmarkMapOverhead measures what Map layers cost on their own: a
// trivial function over ints through 0, 1 and 3 Maps over a Slice, against
// the hand-written loop, with interleaved passes as in
// BenchmarkMapChainVsLoop.
func BenchmarkMapOverhead(b *testing.B) {
	data := make([]int, benchSamples)
	inc := func(x int) int { return x + 1 }
	ctx := context.Background()
	var sink int
	pass := func(r source.Reader[int]) func() {
		return func() {
			for v, err := range r.All(ctx) {
				if err != nil {
					b.Fatal(err)
				}
				sink += v
			}
		}
	}
	src := source.Slice(data)
	bestOf(b, len(data), []timedPass{
		{"loop", func() {
			for _, v := range data {
				sink += inc(inc(inc(v)))
			}
		}},
		{"slice", pass(src)},
		{"map1", pass(stage.Map(src, inc))},
		{"map3", pass(stage.Map(stage.Map(stage.Map(src, inc), inc), inc))},
	})
	benchSink = float32(sink)
}

// timedPass is one pass of a comparison benchmark.
type timedPass struct {
	name string
	run  func()
}

// bestOf runs the passes in turn on every iteration and reports the fastest
// run of each, per sample.
func bestOf(b *testing.B, perPass int, passes []timedPass) {
	best := make([]time.Duration, len(passes))
	for i := range best {
		best[i] = math.MaxInt64
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, p := range passes {
			t0 := time.Now()
			p.run()
			best[i] = min(best[i], time.Since(t0))
		}
	}
	for i, p := range passes {
		b.ReportMetric(float64(best[i].Nanoseconds())/float64(perPass), p.name+"-ns/sample")
	}
}

// benchPasses runs passes of r, perPass samples each, and reports the
// fastest pass per sample (best-ns/sample, steady on a shared machine) and
// the mean (ns/sample).
func benchPasses[T any](b *testing.B, r source.Reader[T], perPass int) {
	ctx := context.Background()
	best := time.Duration(math.MaxInt64)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		t0 := time.Now()
		for _, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
		}
		best = min(best, time.Since(t0))
		n += perPass
	}
	perSample(b, n)
	b.ReportMetric(float64(best.Nanoseconds())/float64(perPass), "best-ns/sample")
}

// BenchmarkStages reports the per-sample cost of each stage over a Slice of
// vec samples; compare with BenchmarkSliceOnly.
func BenchmarkStages(b *testing.B) {
	data := benchData()
	src := source.Slice(data)
	n := len(data)
	cached := stage.Cache(src)
	benches := []struct {
		name    string
		r       source.Reader[vec]
		perPass int
	}{
		{"Filter", stage.Filter(src, func(v vec) bool { return v[0] >= 0 }), n},
		{"Take", stage.Take(src, n), n},
		{"Skip", stage.Skip(src, 16), n - 16},
		{"Chain", stage.Chain(src, src), 2 * n},
		{"Shard", stage.Shard(src, 4, 1), n / 4},
		{"Repeat", stage.Repeat(src, 4), 4 * n},
		{"Cache", cached, n},
		{"Shuffle/buffer=256", stage.Shuffle(src, 256, 1), n},
		{"Shuffle/buffer=all", stage.Shuffle(src, n, 1), n},
	}
	b.Run("Slice", func(b *testing.B) { benchPasses(b, src, n) })
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) { benchPasses(b, bb.r, bb.perPass) })
	}
	b.Run("Enumerate", func(b *testing.B) { benchPasses(b, stage.Enumerate(src), n) })
	labels := source.Slice(make([]int32, n))
	b.Run("Zip2", func(b *testing.B) { benchPasses(b, stage.Zip2(src, labels), n) })
	b.Run("Zip3", func(b *testing.B) { benchPasses(b, stage.Zip3(src, labels, labels), n) })
}

// BenchmarkMapChainVsLoop runs a pass of the hand-written loop and a pass of
// the three-Map chain in turn and reports the fastest pass of each, per
// sample, and their ratio. On a shared machine the fastest of many short
// interleaved passes is a steadier measure than two separate benchmarks.
func BenchmarkMapChainVsLoop(b *testing.B) {
	data := benchData()
	r := stage.Map(stage.Map(stage.Map(source.Slice(data), centre), scale), clip)
	ctx := context.Background()
	loopBest, mapBest := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		var acc float32
		for _, v := range data {
			v = clip(scale(centre(v)))
			acc += v[0] + v[15]
		}
		t1 := time.Now()
		for v, err := range r.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			acc += v[0] + v[15]
		}
		t2 := time.Now()
		benchSink = acc
		loopBest, mapBest = min(loopBest, t1.Sub(t0)), min(mapBest, t2.Sub(t1))
	}
	n := float64(len(data))
	b.ReportMetric(float64(loopBest.Nanoseconds())/n, "loop-ns/sample")
	b.ReportMetric(float64(mapBest.Nanoseconds())/n, "map3-ns/sample")
	b.ReportMetric(float64(mapBest)/float64(loopBest), "map3/loop")
}
