package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// feat is the sample of the stage rows: a row of 16 float32 features, as a
// tabular data set has (64 bytes).
type feat [16]float32

const featBytes = 64

// The per-sample work of the stage rows. Each is a small function of the
// kind users put in a Map; the plain loops call the very same functions.
var featMean, featInv = func() (m, s feat) {
	for i := range m {
		m[i], s[i] = float32(i)*0.1, 1/(1+float32(i)*0.05)
	}
	return
}()

// standardise maps every feature to (x - mean) / std.
func standardise(v feat) feat {
	for i := range v {
		v[i] = (v[i] - featMean[i]) * featInv[i]
	}
	return v
}

// clip limits every feature to [-3, 3].
func clip(v feat) feat {
	for i := range v {
		v[i] = min(max(v[i], -3), 3)
	}
	return v
}

// square squares every feature.
func square(v feat) feat {
	for i := range v {
		v[i] *= v[i]
	}
	return v
}

// positive keeps about half of the samples.
func positive(v feat) bool { return v[0] > 0 }

// heavy is the expensive per-sample function of the ParallelMap rows: about
// a microsecond of arithmetic, as a small decode or augmentation costs.
func heavy(v feat) (feat, error) {
	for range 64 {
		for i := range v {
			v[i] = v[i]*0.999 + 0.001
		}
	}
	return v, nil
}

// consumeFeat is the consumer of the stage rows.
func consumeFeat(sum float32, v feat) float32 { return sum + v[0] + v[15] }

// stageOverheads measures the cost per sample of each stage against the
// hand loop doing the same per-sample work on the same in-memory slice.
func stageOverheads(cfg config) ([]Row, error) {
	n := cfg.size(1<<20, 1<<22, 5000)
	data := make([]feat, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		for j := range data[i] {
			data[i][j] = rng.Float32()*4 - 1
		}
	}
	src := source.Slice(data)
	outBytes := int64(n) * featBytes
	floor, err := measureFloor(cfg.cheapReps(), outBytes, 64<<10)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()

	// passFeat runs one pass of r into a checksum.
	passFeat := func(r source.Reader[feat], sum *float32) func() error {
		return func() error {
			s := float32(0)
			for v, err := range r.All(ctx) {
				if err != nil {
					return err
				}
				s = consumeFeat(s, v)
			}
			*sum = s
			return nil
		}
	}

	type bench struct {
		name, note string
		threads    int
		in         int   // samples read (0: all of data)
		out        int64 // samples of output (Filter yields fewer)
		pipe       func(sum *float32) func() error
		plain      func(sum *float32) func() error
	}
	kept := 0
	for _, v := range data {
		if positive(v) {
			kept++
		}
	}
	// The ParallelMap rows read an eighth of the data: heavy is slow.
	hn := max(n/8, 1)
	hdata, hsrc := data[:hn], source.Slice(data[:hn])
	const shuffleBuf = 4096
	const batchSize = 128
	benches := []bench{
		{name: "stage-map", threads: 1, out: int64(n),
			note: "Map(standardise) -> Map(clip) -> Map(square) over source.Slice; plain: the three calls in a range loop",
			pipe: func(sum *float32) func() error {
				return passFeat(stage.Map(stage.Map(stage.Map(src, standardise), clip), square), sum)
			},
			plain: func(sum *float32) func() error {
				return func() error {
					s := float32(0)
					for _, v := range data {
						s = consumeFeat(s, square(clip(standardise(v))))
					}
					*sum = s
					return nil
				}
			}},
		{name: "stage-filter", threads: 1, out: int64(kept),
			note: "Filter(v[0] > 0), about half kept; plain: if in a range loop",
			pipe: func(sum *float32) func() error { return passFeat(stage.Filter(src, positive), sum) },
			plain: func(sum *float32) func() error {
				return func() error {
					s := float32(0)
					for _, v := range data {
						if positive(v) {
							s = consumeFeat(s, v)
						}
					}
					*sum = s
					return nil
				}
			}},
		{name: "stage-shuffle", threads: 1, out: int64(n),
			note: fmt.Sprintf("Shuffle(buffer %d); plain: the same sliding buffer by hand", shuffleBuf),
			pipe: func(sum *float32) func() error {
				r := stage.Shuffle(src, shuffleBuf, 3)
				return func() error {
					return passFeat(r, sum)()
				}
			},
			plain: func(sum *float32) func() error {
				return func() error {
					*sum = plainShuffle(data, shuffleBuf, 3)
					return nil
				}
			}},
		{name: "stage-buffered", threads: 2, out: int64(n),
			note: "Buffered(256) per sample; plain: producer goroutine and a channel of 256 samples",
			pipe: func(sum *float32) func() error { return passFeat(stage.Buffered(src, 256), sum) },
			plain: func(sum *float32) func() error {
				return func() error {
					ch := make(chan feat, 256)
					go func() {
						defer close(ch)
						for _, v := range data {
							ch <- v
						}
					}()
					s := float32(0)
					for v := range ch {
						s = consumeFeat(s, v)
					}
					*sum = s
					return nil
				}
			}},
		{name: "stage-parallelmap", threads: 1, in: hn, out: int64(hn),
			note: "ParallelMap(1, heavy ~1us); plain: heavy in a range loop",
			pipe: func(sum *float32) func() error { return passFeat(stage.ParallelMap(hsrc, 1, heavy), sum) },
			plain: func(sum *float32) func() error {
				return func() error {
					s := float32(0)
					for _, v := range hdata {
						v, _ = heavy(v)
						s = consumeFeat(s, v)
					}
					*sum = s
					return nil
				}
			}},
		{name: "stage-parallelmap", threads: 2, in: hn, out: int64(hn),
			note: "ParallelMap(2, heavy ~1us), ordered; plain: 2 goroutines over chunks of 256 into a result slice, then consumed in order",
			pipe: func(sum *float32) func() error { return passFeat(stage.ParallelMap(hsrc, 2, heavy), sum) },
			plain: func(sum *float32) func() error {
				out := make([]feat, hn)
				return func() error {
					*sum = plainParallel(hdata, out, 2)
					return nil
				}
			}},
		{name: "stage-batch", threads: 1, out: int64(n),
			note: fmt.Sprintf("batch.Of(%d, Keep); plain: append into one reused slice", batchSize),
			pipe: func(sum *float32) func() error {
				r := batch.Of(src, batchSize, batch.Keep)
				return func() error {
					s := float32(0)
					for b, err := range r.All(ctx) {
						if err != nil {
							return err
						}
						for _, v := range b.Samples {
							s = consumeFeat(s, v)
						}
					}
					*sum = s
					return nil
				}
			},
			plain: func(sum *float32) func() error {
				return func() error {
					s := float32(0)
					buf := make([]feat, 0, batchSize)
					flush := func() {
						for _, v := range buf {
							s = consumeFeat(s, v)
						}
						buf = buf[:0]
					}
					for _, v := range data {
						buf = append(buf, v)
						if len(buf) == batchSize {
							flush()
						}
					}
					flush()
					*sum = s
					return nil
				}
			}},
		{name: "stage-zip", threads: 1, out: int64(n),
			note: "Zip2 of two slices; plain: one index over both",
			pipe: func(sum *float32) func() error {
				r := stage.Zip2(src, src)
				return func() error {
					s := float32(0)
					for t, err := range r.All(ctx) {
						if err != nil {
							return err
						}
						s = consumeFeat(s, t.A) + t.B[1]
					}
					*sum = s
					return nil
				}
			},
			plain: func(sum *float32) func() error {
				return func() error {
					s := float32(0)
					for i := range data {
						s = consumeFeat(s, data[i]) + data[i][1]
					}
					*sum = s
					return nil
				}
			}},
	}
	var rows []Row
	for _, b := range benches {
		var got, want float32
		rs, err := measureEach(cfg.cheapReps(), b.pipe(&got), b.plain(&want))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		pipe, plain := rs[0], rs[1]
		if got != want && b.name != "stage-shuffle" { // float sums in another order
			return nil, fmt.Errorf("%s: pipeline and plain loop differ (%v, %v)", b.name, got, want)
		}
		in := n
		if b.in > 0 {
			in = b.in
		}
		f := floor
		if in != n { // the floor scales with the output
			f.elapsed = floor.elapsed * time.Duration(in) / time.Duration(n)
		}
		row := newRow(b.name, b.threads, in, b.out*featBytes, pipe, plain, f)
		row.Note = fmt.Sprintf("%s; overhead %+.1f ns/sample", b.note,
			float64(pipe.elapsed.Nanoseconds()-plain.elapsed.Nanoseconds())/float64(in))
		rows = append(rows, row)
	}
	return rows, nil
}

// plainShuffle is stage.Shuffle's algorithm written out over a slice, with
// the consumer inlined.
func plainShuffle(data []feat, buffer int, seed uint64) float32 {
	rng := source.NewRand(seed, 0, -1)
	buf := make([]feat, 0, buffer)
	s := float32(0)
	for _, v := range data {
		if len(buf) < buffer {
			buf = append(buf, v)
			continue
		}
		j := rng.IntN(buffer)
		s = consumeFeat(s, buf[j])
		buf[j] = v
	}
	for len(buf) > 0 {
		last := len(buf) - 1
		j := rng.IntN(len(buf))
		s = consumeFeat(s, buf[j])
		buf[j] = buf[last]
		buf = buf[:last]
	}
	return s
}

// plainParallel applies heavy to data with workers goroutines that take
// chunks of 256 samples, then consumes the results in order.
func plainParallel(data, out []feat, workers int) float32 {
	const chunk = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(data) {
					return
				}
				for i := lo; i < min(lo+chunk, len(data)); i++ {
					out[i], _ = heavy(data[i])
				}
			}
		}()
	}
	wg.Wait()
	s := float32(0)
	for _, v := range out {
		s = consumeFeat(s, v)
	}
	return s
}
