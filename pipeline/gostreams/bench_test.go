package gostreams_test

import (
	"testing"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/flow"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/pipeline/gostreams"
)

type payload = batch.Batch[float32]

// BenchmarkStreamsHop is the cost per batch of the go-streams bridge: a
// direct pass, one go-streams PassThrough operator through Via, and a Tee to
// a no-op second consumer. Batches
// travel as pointers.
func BenchmarkStreamsHop(b *testing.B) {
	const n = 1024
	b.Run("direct", func(b *testing.B) { fixture.BatchPasses(b, pipeline.From(fixture.Batches(n)), n) })
	b.Run("buffered", func(b *testing.B) { fixture.BatchPasses(b, pipeline.From(fixture.Batches(n)).Buffered(1), n) })
	b.Run("via-passthrough", func(b *testing.B) {
		fixture.BatchPasses(b, gostreams.Via[*payload, *payload](pipeline.From(fixture.Batches(n)), func(s streams.Source) streams.Outlet {
			return s.Via(flow.NewPassThrough())
		}), n)
	})
	b.Run("via-guarded-map", func(b *testing.B) {
		fixture.BatchPasses(b, gostreams.Via[*payload, *payload](pipeline.From(fixture.Batches(n)), func(s streams.Source) streams.Outlet {
			return s.Via(flow.NewMap(gostreams.Guard(func(p *payload) (*payload, error) { return p, nil }), 1))
		}), n)
	})
	b.Run("tee", func(b *testing.B) {
		fixture.BatchPasses(b, gostreams.Tee(pipeline.From(fixture.Batches(n)), func(*payload) error { return nil }), n)
	})
}
