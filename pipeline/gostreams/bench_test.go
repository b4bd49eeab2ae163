package gostreams_test

import (
	"testing"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/flow"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/pipeline/gostreams"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

type payload = batch.Batch[float32]

// batches returns a reader of n batches of 64 samples, as pointers.
func batches(n int) source.Reader[*payload] {
	bs := make([]*payload, n)
	for i := range bs {
		bs[i] = &payload{Samples: make([]float32, 64)}
	}
	return source.Slice(bs)
}

// BenchmarkStreamsHop is the cost per batch of the go-streams bridge: a
// direct pass, one go-streams PassThrough operator through Via, and a Tee to
// a no-op second consumer. Batches
// travel as pointers.
func BenchmarkStreamsHop(b *testing.B) {
	const n = 1024
	b.Run("direct", func(b *testing.B) { drainPassBatches(b, pipeline.From(batches(n)), n) })
	b.Run("buffered", func(b *testing.B) { drainPassBatches(b, pipeline.From(batches(n)).Buffered(1), n) })
	b.Run("via-passthrough", func(b *testing.B) {
		drainPassBatches(b, gostreams.Via[*payload, *payload](pipeline.From(batches(n)), func(s streams.Source) streams.Outlet {
			return s.Via(flow.NewPassThrough())
		}), n)
	})
	b.Run("via-guarded-map", func(b *testing.B) {
		drainPassBatches(b, gostreams.Via[*payload, *payload](pipeline.From(batches(n)), func(s streams.Source) streams.Outlet {
			return s.Via(flow.NewMap(gostreams.Guard(func(p *payload) (*payload, error) { return p, nil }), 1))
		}), n)
	})
	b.Run("tee", func(b *testing.B) {
		drainPassBatches(b, gostreams.Tee(pipeline.From(batches(n)), func(*payload) error { return nil }), n)
	})
}

// drainPassBatches runs b.N passes of r, whose elements are batches of 64
// samples, and reports the cost per batch and per sample.
func drainPassBatches(b *testing.B, r source.Reader[*payload], perPass int) {
	b.Helper()
	sourcetest.Passes(b, r, perPass)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass), "ns/batch")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perPass*64), "ns/sample")
}
