package serve

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// BenchmarkEpoch serves epochs of MNIST's shape (60,000 rows of 784
// float32 and an int64 label, batch 128, shuffled by index) over a Unix
// socket to a client that reads every frame whole: the cost of the
// transport and of a checkpoint per batch, with a fill as cheap as a copy.
func BenchmarkEpoch(b *testing.B) { benchEpoch(b, false) }

// BenchmarkEpochDecode is BenchmarkEpoch with the images as bytes declared
// with Affine, to a client that decodes them: a quarter of the bytes.
func BenchmarkEpochDecode(b *testing.B) { benchEpoch(b, true) }

func benchEpoch(b *testing.B, bytes bool) {
	const n, dim = 60000, 784
	rows := make([]int64, n)
	for i := range rows {
		rows[i] = int64(i)
	}
	table := source.IndexSlice(rows)
	image := sink.Float32("image", []int{dim}, func(v int64, dst []float32) { dst[0] = float32(v) }).WritesAll()
	var opts []Option
	if bytes {
		image = sink.Uint8("image", []int{dim}, func(v int64, dst []uint8) { dst[0] = uint8(v) }).WritesAll()
		opts = append(opts, Affine("mnist", "image", 1/255.0, 0))
	}
	s := sink.New(128, []sink.Field[int64]{image},
		[]sink.Field[int64]{sink.Int64("label", nil, func(v int64, dst []int64) { dst[0] = v % 10 })})
	feed := func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
		src := source.ReadIndexed(table, source.ShuffleIndex(1), source.ShardIndex(world, rank, source.PadShards))
		return pipeline.Tensorize(pipeline.From[int64](src), s, batch.Keep).Buffered(4), nil
	}
	path := filepath.Join(b.TempDir(), "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	srv := New(map[string]Feed{"mnist": feed}, opts...)
	go srv.Serve(l)
	defer srv.Close()
	if bytes {
		b.SetBytes(n * (dim + 8))
	} else {
		b.SetBytes(n * (dim*4 + 8))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := dial(b, "unix", path, hello{Feed: "mnist", World: 1, EndEpoch: 1, Decode: bytes})
		for {
			m, err := c.next()
			if err != nil {
				b.Fatal(err)
			}
			if m.Type == "end" {
				break
			}
		}
		c.conn.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64((n+127)/128), "ns/batch")
}
