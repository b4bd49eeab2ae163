package sink

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/samber/lo"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/internal/badrows"
	"github.com/tensorfeed/tensorfeed/internal/scope"
	"github.com/tensorfeed/tensorfeed/internal/sinkrows"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// ErrBatch is wrapped by the error Assemble returns for a batch that does
// not fit the sink: more samples than the batch size, or a Padded count
// outside 0..Len.
var ErrBatch = errors.New("sink: batch does not fit")

// Sink assembles batches of samples of type T into tensors. It is safe for
// concurrent use: Assemble, Batch.Release and any number of Tensorize passes
// may run at once.
type Sink[T any] struct {
	size   int
	fields []Field[T] // data, then label
	nData  int
	offs   []int  // offset of each field in one sample's block of its dtype
	per    [5]int // elements per sample of each dtype, by slot()
	dims   int    // sum of len(Shape) over all tensors, batch dim included
	rec    recycler
	// rows, when not nil, fills the rows of a batch's Fill fields on
	// several goroutines (set by Tensorize through internal/sinkrows).
	rows atomic.Pointer[rowFiller]
}

func init() {
	sinkrows.SetWorkers = func(s any, n int) bool { return s.(rowWorkersSetter).setRowWorkers(n) }
}

// rowWorkersSetter is what every *Sink[T] is to internal/sinkrows.
type rowWorkersSetter interface{ setRowWorkers(n int) bool }

// setRowWorkers makes the sink fill the rows of each batch's Fill fields
// on up to n goroutines at once, over all the batches it assembles
// concurrently; n <= 1 fills them on the assembling goroutine. It reports
// whether the sink has such a field.
func (s *Sink[T]) setRowWorkers(n int) bool {
	if n <= 1 {
		s.rows.Store(nil)
	} else {
		s.rows.Store(&rowFiller{tokens: make(chan struct{}, n)})
	}
	return lo.ContainsBy(s.fields, func(f Field[T]) bool { return f.try != nil })
}

// rowFiller shares the rows of a Fill field among goroutines: each takes
// the next row not yet taken until the batch has none left, so that a
// slow image (a large photograph) holds up one goroutine and not a fixed
// share of the batch, and the sink never fills more rows at once than it
// has tokens, however many batches are being assembled.
type rowFiller struct {
	tokens chan struct{}
}

// fillParts runs try over the rows of samples on up to cap(rf.tokens)
// goroutines, each taking the next row, rowBytes the size of one row of
// dst, and adds the rows that failed to bad, in order. Each row is filled
// by try as it would be in the whole batch, so the rows are the same as on
// one goroutine. A panic of the fill is raised again on the calling
// goroutine (as a *tensorfeed.PanicError with the stack where it
// happened), where the step's own recovery sees it; the other goroutines
// take no new row after it.
func fillParts[T any](rf *rowFiller, try tryFunc[T], samples []T, dst unsafe.Pointer, rowBytes int, clearRows bool, bad *badrows.Error) *badrows.Error {
	n := len(samples)
	parts := min(cap(rf.tokens), n)
	if parts <= 1 {
		return try(samples, dst, clearRows, bad)
	}
	bads := make([]*badrows.Error, parts)
	panics := make([]*tensorfeed.PanicError, parts)
	var next atomic.Int64
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rf.tokens <- struct{}{}
			defer func() {
				<-rf.tokens
				if v := recover(); v != nil {
					panics[p] = scope.Recovered(v)
					next.Store(int64(n))
				}
			}()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				b := try(samples[i:i+1:i+1], unsafe.Add(dst, i*rowBytes), clearRows, nil)
				if b != nil {
					if bads[p] == nil {
						bads[p] = &badrows.Error{}
					}
					bads[p].Add(b.Field[0], i, b.Errs[0])
				}
			}
		}()
	}
	wg.Wait()
	for _, pe := range panics {
		if pe != nil {
			panic(pe)
		}
	}
	for _, b := range bads {
		if b == nil {
			continue
		}
		if bad == nil {
			bad = &badrows.Error{}
		}
		for k, row := range b.Rows {
			bad.Add(b.Field[k], row, b.Errs[k])
		}
	}
	return bad
}

// recycler is a sink's free list of released arenas, all of full size.
type recycler struct {
	mu   sync.Mutex
	size int // the sink's batch size: only arenas of this many rows are kept
	free []*arena
}

// New returns a sink for batches of at most batchSize samples that fills
// one data tensor per field of data and one label tensor per field of
// label, in that order. label may be empty (inference, a GAN's generator
// input).
//
// A batch of Of(r, 0, ...) holds a whole pass: give such a sink a batchSize
// at least as large as the pass.
//
// New panics when batchSize < 1, when there is no field at all, when a field
// was not made by Float32, Int32, Int64, Uint8, Fill or Slice, or when two fields
// share a name. Of builds a sink from the struct tags of T instead.
func New[T any](batchSize int, data []Field[T], label []Field[T]) *Sink[T] {
	if batchSize < 1 {
		panic(fmt.Sprintf("sink: New: batch size %d", batchSize))
	}
	s := &Sink[T]{size: batchSize, nData: len(data), rec: recycler{size: batchSize}}
	s.fields = append(append(make([]Field[T], 0, len(data)+len(label)), data...), label...)
	if len(s.fields) == 0 {
		panic("sink: New: no fields")
	}
	s.offs = make([]int, len(s.fields))
	for i, f := range s.fields {
		if f.dtype == 0 {
			panic(fmt.Sprintf("sink: New: field %d is not made by Float32, Int32, Int64, Uint8, Fill or Slice", i))
		}
		s.offs[i] = s.per[slot(f.dtype)]
		s.per[slot(f.dtype)] += f.elems
		s.dims += 1 + len(f.shape)
	}
	if dup := lo.FindDuplicatesBy(s.fields, func(f Field[T]) string { return f.name }); len(dup) > 0 {
		panic(fmt.Sprintf("sink: New: two fields named %q", dup[0].name))
	}
	return s
}

// slot numbers the dtypes a sink holds.
func slot(d sample.DType) int {
	switch d {
	case sample.Float32:
		return 0
	case sample.Int32:
		return 1
	case sample.Int64:
		return 2
	case sample.Int8:
		return 4
	}
	return 3 // sample.Uint8
}

// ProvideData describes the data tensors of a full batch, in order (MXNet's
// provide_data). The result is new on every call.
func (s *Sink[T]) ProvideData() []tensor.Desc { return s.descs(s.fields[:s.nData]) }

// ProvideLabel describes the label tensors of a full batch, in order
// (MXNet's provide_label). The result is new on every call.
func (s *Sink[T]) ProvideLabel() []tensor.Desc { return s.descs(s.fields[s.nData:]) }

func (s *Sink[T]) descs(fs []Field[T]) []tensor.Desc {
	return lo.Map(fs, func(f Field[T], _ int) tensor.Desc {
		return tensor.Desc{Name: f.name, Shape: append([]int{s.size}, f.shape...), DType: f.dtype}
	})
}

// BatchSize returns the largest batch the sink accepts.
func (s *Sink[T]) BatchSize() int { return s.size }

// Assemble writes the samples of b, padding included, into tensors: row i of
// every tensor holds b.Samples[i], and the result's Padded is b.Padded. A
// batch shorter than the batch size gives tensors with a smaller batch
// dimension.
//
// The tensors are owned by the caller: new memory, or memory handed back
// with tensor.Batch.Release. The sink never writes into them again unless
// the caller releases them.
//
// A batch with more samples than the batch size, or whose Padded is outside
// 0..Len, is an error wrapping ErrBatch. A sample that does not fit a field
// made by Slice is an error wrapping ErrSampleShape (and so
// tensorfeed.ErrBadData). A sample whose fill (a field made by Fill)
// fails is an error naming the field and the row that wraps the fill's
// error. On error no tensors are returned.
func (s *Sink[T]) Assemble(b batch.Batch[T]) (*tensor.Batch, error) {
	return s.assemble(b, nop)
}

var nop = zap.NewNop()

// arena is the memory of one batch's tensors. It is the tensor.Recycler of
// the batch it holds: Release hands it back to the sink's free list.
type arena struct {
	b     *tensor.Batch
	all   []tensor.Tensor // Data then Label
	f32   []float32
	i32   []int32
	i64   []int64
	u8    []uint8
	i8    []int8
	rows  int       // the most samples it holds
	owner *recycler // the sink that made it
	free  bool      // released and not yet taken again
}

// newArena allocates tensors for up to rows samples.
func (s *Sink[T]) newArena(rows int) *arena {
	a := &arena{
		rows:  rows,
		owner: &s.rec,
		f32:   make([]float32, rows*s.per[0]),
		i32:   make([]int32, rows*s.per[1]),
		i64:   make([]int64, rows*s.per[2]),
		u8:    make([]uint8, rows*s.per[3]),
		i8:    make([]int8, rows*s.per[4]),
		all:   make([]tensor.Tensor, len(s.fields)),
	}
	shapes := make([]int, s.dims)
	for i, f := range s.fields {
		n := 1 + len(f.shape)
		sh := shapes[:n:n]
		shapes = shapes[n:]
		copy(sh[1:], f.shape)
		a.all[i] = tensor.Tensor{Name: f.name, Shape: sh, DType: f.dtype}
	}
	a.b = &tensor.Batch{Data: a.all[:s.nData:s.nData], Label: a.all[s.nData:]}
	return a
}

// Recycle takes the arena's batch back: the consumer called Release, so
// the sink may write a later batch into its memory. The sink keeps the
// memory in a free list that Assemble and every pass of Tensorize draw
// from, so it holds as many batches as were in flight at once and, in
// steady state, assembles without allocating. A short batch has the
// memory of a full one, so it is kept too.
//
// Only the consumer releases, never the sink on its own: a prefetching
// stage (pipeline's Buffered) may still hold batches the consumer has not read.
// Recycle panics when b is not the batch the arena handed out (a copy of
// *b that kept its owner).
func (a *arena) Recycle(b *tensor.Batch) {
	if b != a.b {
		panic("sink: Release of a copy of a batch that this sink assembled")
	}
	r := a.owner
	r.mu.Lock()
	defer r.mu.Unlock()
	if a.free {
		return
	}
	a.free = true
	if a.rows == r.size {
		r.free = append(r.free, a)
	}
}

// take returns an arena for n samples: a recycled one, or a new one that
// is still zero (fresh).
func (s *Sink[T]) take(n int) (a *arena, fresh bool) {
	s.rec.mu.Lock()
	if k := len(s.rec.free); k > 0 {
		a = s.rec.free[k-1]
		s.rec.free[k-1] = nil
		s.rec.free = s.rec.free[:k-1]
		a.free = false
		s.rec.mu.Unlock()
		return a, false
	}
	s.rec.mu.Unlock()
	// A short batch gets the memory of a full one, so that its Release
	// hands back memory every later batch fits: a pass that ends short
	// while the consumer holds the full batches allocates nothing the
	// next time.
	return s.newArena(max(n, s.size)), true
}

// putBack returns an arena that assemble took but could not fill to the
// free list, so that a bad sample costs no memory. Its rows hold part of
// the failed batch, which is why a recycled arena clears rows (or is
// written whole) before a fill.
func (s *Sink[T]) putBack(a *arena) {
	if a.rows != s.size {
		return
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	a.free = true
	s.rec.free = append(s.rec.free, a)
}

// assemble is Assemble; logger receives the debug entry of a short or
// padded batch.
func (s *Sink[T]) assemble(b batch.Batch[T], logger *zap.Logger) (*tensor.Batch, error) {
	n := len(b.Samples)
	if n > s.size {
		return nil, fmt.Errorf("%w: %d samples, batch size %d", ErrBatch, n, s.size)
	}
	if b.Padded < 0 || b.Padded > n {
		return nil, fmt.Errorf("%w: %d padding samples in a batch of %d", ErrBatch, b.Padded, n)
	}
	a, fresh := s.take(n)
	var bad *badrows.Error // rows whose Fill failed
	if n < s.size || b.Padded > 0 {
		if ce := logger.Check(zap.DebugLevel, "sink: short or padded batch"); ce != nil {
			ce.Write(zap.Int("samples", n), zap.Int("padded", b.Padded), zap.Int("batch_size", s.size))
		}
	}
	for i, f := range s.fields {
		t := &a.all[i]
		t.Shape[0] = n
		lo, hi := n*s.offs[i], n*(s.offs[i]+f.elems)
		clearRows := !fresh && !f.writesAll
		var dst unsafe.Pointer
		switch f.dtype {
		case sample.Float32:
			t.F32, dst = span(a.f32, lo, hi)
		case sample.Int32:
			t.I32, dst = span(a.i32, lo, hi)
		case sample.Int64:
			t.I64, dst = span(a.i64, lo, hi)
		case sample.Uint8:
			t.U8, dst = span(a.u8, lo, hi)
		case sample.Int8:
			t.I8, dst = span(a.i8, lo, hi)
		}
		if f.try != nil {
			if rf := s.rows.Load(); rf != nil {
				bad = fillParts(rf, f.try, b.Samples, dst, f.elems*f.dtype.Size(), clearRows, bad)
			} else {
				bad = f.try(b.Samples, dst, clearRows, bad)
			}
			continue
		}
		row, got := f.write(b.Samples, dst, clearRows)
		if row >= 0 {
			s.putBack(a)
			if got < 0 {
				return nil, fmt.Errorf("%w: field %q, row %d of the batch: nil pointer, want %d elements (shape %v)",
					ErrSampleShape, f.name, row, f.elems, f.shape)
			}
			return nil, fmt.Errorf("%w: field %q, row %d of the batch: %d elements, want %d (shape %v)",
				ErrSampleShape, f.name, row, got, f.elems, f.shape)
		}
	}
	a.b.Padded = b.Padded
	a.b.SetOwner(a)
	if bad != nil {
		// The batch goes with the error: Tensorize closes up its rows
		// under a bad-record policy; other callers leave it to the
		// garbage collector.
		bad.Batch = a.b
		return nil, bad
	}
	return a.b, nil
}

// span returns the elements lo to hi of an arena's memory, with no spare
// capacity, and a pointer to the first for the field's writer.
func span[E any](all []E, lo, hi int) ([]E, unsafe.Pointer) {
	s := all[lo:hi:hi]
	return s, unsafe.Pointer(unsafe.SliceData(s))
}

// fillRows writes sample i into row i of dst, e elements per row. With
// clearRows (recycled memory, a fill that may leave
// elements unwritten) every row is cleared first so that the fill sees a
// zeroed row.
func fillRows[T, E any](dst []E, e int, samples []T, fill func(T, []E), clearRows bool) {
	if !clearRows {
		for i, s := range samples {
			fill(s, dst[i*e:(i+1)*e:(i+1)*e])
		}
		return
	}
	for i, s := range samples {
		row := dst[i*e : (i+1)*e : (i+1)*e]
		clear(row) // row by row, so the fill finds the row in cache
		fill(s, row)
	}
}
