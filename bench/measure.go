package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tensorfeed/tensorfeed/source"
)

// run is one timed execution of a workload: how long it took, the CPU time
// the process spent meanwhile (user and system, all threads), how many heap
// allocations it made and the most heap it held at once.
type run struct {
	elapsed time.Duration
	cpu     time.Duration
	mallocs uint64
	peak    uint64
}

// heapSampler records the peak of live heap objects while a workload runs.
// runtime/metrics is read instead of runtime.ReadMemStats because it does not
// stop the world, so sampling every millisecond does not disturb the timing.
type heapSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func startHeapSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		s := []metrics.Sample{{Name: heapMetric}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			h.peak = max(h.peak, s[0].Value.Uint64())
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) finish() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak
}

// measure runs fn reps times after one untimed warm-up and returns the
// fastest run (the least disturbed by other work on a shared machine).
func measure(reps int, fn func() error) (run, error) {
	rs, err := measureEach(reps, fn)
	if err != nil {
		return run{}, err
	}
	return rs[0], nil
}

// measureEach measures several functions in rounds: one untimed warm-up of
// each, then reps rounds in which each runs once. Interleaving puts the
// pipeline and its references under the same load when other processes
// come and go. For each function it returns its fastest run, with the
// least CPU time of its runs (CPU time is less disturbed by other processes
// than wall time, as long as the machine does not swap).
func measureEach(reps int, fns ...func() error) ([]run, error) {
	for _, fn := range fns {
		if err := fn(); err != nil {
			return nil, err
		}
	}
	best := make([]run, len(fns))
	for i := range best {
		best[i].elapsed = -1
	}
	for range max(reps, 1) {
		for i, fn := range fns {
			r, err := once(fn)
			if err != nil {
				return nil, err
			}
			cpu := r.cpu
			if best[i].elapsed < 0 {
				best[i] = r
			}
			if r.elapsed < best[i].elapsed {
				cpu = min(cpu, best[i].cpu)
				best[i] = r
			}
			best[i].cpu = min(best[i].cpu, cpu)
		}
	}
	return best, nil
}

// once runs fn once and measures it.
func once(fn func() error) (run, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := startHeapSampler()
	cpu0 := cpuTime()
	start := time.Now()
	err := fn()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	peak := h.finish()
	runtime.ReadMemStats(&after)
	if err != nil {
		return run{}, err
	}
	return run{elapsed: elapsed, cpu: cpu, mallocs: after.Mallocs - before.Mallocs, peak: peak}, nil
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// copyFloor copies n bytes from one buffer into another in chunks of chunk
// bytes: the least any loader must do to hand n bytes of output to a
// trainer. It is the memory floor every row is compared with.
func copyFloor(dst, src []byte, n int) {
	for off := 0; off < n; off += len(src) {
		m := min(len(src), n-off)
		copy(dst[:m], src[:m])
	}
}

// measureFloor times the memory floor of a row: copying outBytes bytes in
// chunks of chunk bytes (one batch's output, say).
func measureFloor(reps int, outBytes int64, chunk int) (run, error) {
	chunk = max(1, min(chunk, int(outBytes)))
	src, dst := make([]byte, chunk), make([]byte, chunk)
	for i := range src {
		src[i] = byte(i)
	}
	return measure(reps, func() error {
		copyFloor(dst, src, int(outBytes))
		return nil
	})
}

// memory is the peak resident set of one run of a row's pipeline and the
// row's memory floor, in bytes.
type memory struct {
	peak  uint64
	floor int64
}

// measureMemory runs fn once and returns its peak resident set (see
// peakRSS) with floorBytes, the least memory the row's work needs. Call it
// before the timed runs, from a workload run alone in its process (main
// does that), so that the peak is the workload's own.
func measureMemory(floorBytes int64, fn func() error) (memory, error) {
	peak, err := peakRSS(fn)
	return memory{peak: peak, floor: floorBytes}, err
}

// setMemory fills the row's memory columns.
func (r *Row) setMemory(m memory) {
	r.PeakRSSMB = float64(m.peak) / 1e6
	r.MemFloorMB = float64(m.floor) / 1e6
	if m.floor > 0 && m.peak > 0 {
		r.MemRatio = float64(m.peak) / float64(m.floor)
	}
}

// peakRSS returns the most memory the process held resident while fn ran:
// the heap is collected and returned to the system first, the kernel's
// high-water mark (VmHWM) is reset by writing 5 to /proc/self/clear_refs,
// and read again when fn returns. Where that file cannot be written the
// mark covers the whole process so far; where /proc is missing (not
// Linux) it is 0 and the columns stay empty.
func peakRSS(fn func() error) (uint64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	if err := fn(); err != nil {
		return 0, err
	}
	return vmHWM(), nil
}

// vmHWM reads the process's peak resident set from /proc/self/status, or
// returns 0.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		v, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// readPass returns a pass over r for measureEach: it folds every element
// into *sum with fold (which may reject one) and counts them into *n, both
// set afresh for each pass.
func readPass[T, S any](r source.Reader[T], fold func(S, T) (S, error), sum *S, n *int) func() error {
	return func() error {
		var zero S
		*sum, *n = zero, 0
		for v, err := range r.All(context.Background()) {
			if err != nil {
				return err
			}
			if *sum, err = fold(*sum, v); err != nil {
				return err
			}
			*n++
		}
		return nil
	}
}
