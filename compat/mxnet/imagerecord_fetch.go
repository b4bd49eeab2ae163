package mxnet

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/storage"
)

// How far a pass through the index reads ahead of its consumer: at most
// aheadRecords records (each one ReadAt, one range request for a remote
// file) and aheadBytes bytes are fetched and not yet consumed, so that the
// latency of a request is hidden behind the decoding of the records
// before it. A record larger than aheadBytes is fetched alone.
const (
	aheadRecords = 16
	aheadBytes   = 16 << 20
)

// indexedFile is one .rec file of a pass through the index, open, with
// the entries of its index in offset order: the pass reads the records
// sorted[lo:hi], each from its offset up to where the next entry begins
// (or the end of the file), and checks that exactly one record is there.
type indexedFile struct {
	path    string // the .rec file
	idxPath string // its .idx file, for errors
	f       storage.File
	size    int64
	sorted  []indexed
	lo, hi  int
}

// indexed is an entry of an index: a record's key and offset.
type indexed struct{ key, off int64 }

// sortedEntries returns the entries of idx in offset order.
func sortedEntries(idx *recordio.Index) []indexed {
	s := make([]indexed, idx.Len())
	for i := range s {
		e := idx.Entry(i)
		s[i] = indexed{e.Key, e.Offset}
	}
	slices.SortStableFunc(s, func(a, b indexed) int { return cmp.Compare(a.off, b.off) })
	return s
}

// checkEntries checks what can be checked of f's index without reading the
// .rec file: every offset inside the file, 4-byte aligned and held by one
// entry only, the first at offset 0. What is in the file at each offset is
// checked as each record is read (cut).
func (f *indexedFile) checkEntries() error {
	if len(f.sorted) == 0 && f.size > 0 {
		return f.indexError(-1, -1, fmt.Sprintf("the index is empty, but %s holds %d bytes", f.path, f.size))
	}
	for k, e := range f.sorted {
		switch {
		case e.off >= f.size:
			return f.indexError(k, e.off, fmt.Sprintf("at or past the end of the file (%d bytes)", f.size))
		case e.off%4 != 0:
			return f.indexError(k, e.off, "not 4-byte aligned: records start at multiples of 4")
		case k > 0 && e.off == f.sorted[k-1].off:
			return f.indexError(k, e.off, fmt.Sprintf("the same offset as key %d: one record would be read twice", f.sorted[k-1].key))
		case k == 0 && e.off > 0:
			return f.indexError(k, e.off, fmt.Sprintf("the first indexed record, but the file holds %d bytes before it that no entry covers", e.off))
		}
	}
	return nil
}

// indexError returns the error about entry k of f's sorted index (-1 for
// none) and the .rec file at byte offset at: a *tensorfeed.Error naming
// the .rec file, wrapping recordio.ErrFormat, whose message names the .idx
// file and the entry's key.
func (f *indexedFile) indexError(k int, at int64, msg string) error {
	if k >= 0 {
		msg = fmt.Sprintf("key %d at offset %d: ", f.sorted[k].key, f.sorted[k].off) + msg
	}
	return &tensorfeed.Error{Path: f.path, Offset: at, Record: -1,
		Err: cause.New(recordio.ErrFormat, nil, fmt.Sprintf("the index %s does not match the file: %s", f.idxPath, msg))}
}

// span returns the offset of entry k and where its record must end.
func (f *indexedFile) span(k int) (off, end int64) {
	end = f.size
	if k+1 < len(f.sorted) {
		end = f.sorted[k+1].off
	}
	return f.sorted[k].off, end
}

// cut returns the payload of the one record that raw, the bytes of entry
// k's span, must hold, its parts joined in place: a record start at the
// entry's offset, whose parts end exactly where the next entry begins (or
// the file ends). Any other content means a stale or damaged index, which
// would drop or repeat records: an error naming the file and the offset.
func (f *indexedFile) cut(raw []byte, k int) ([]byte, error) {
	off, _ := f.span(k)
	const header = 8
	var payload []byte
	w, pos := 0, 0
	for first := true; ; first = false {
		at := off + int64(pos)
		if len(raw)-pos < header {
			return nil, f.indexError(k, at, fmt.Sprintf("the record's part at offset %d runs past offset %d, where the next indexed record begins or the file ends", at, off+int64(len(raw))))
		}
		if m := binary.LittleEndian.Uint32(raw[pos:]); m != recordio.Magic {
			return nil, f.indexError(k, at, fmt.Sprintf("the part at offset %d has a bad magic 0x%08x", at, m))
		}
		lrec := binary.LittleEndian.Uint32(raw[pos+4:])
		cflag, n := lrec>>29, int(lrec&(1<<29-1))
		// 0: a whole record, 1: its first part, 2: a middle part, 3: the last.
		if start := cflag <= 1; start != first || cflag > 3 {
			return nil, f.indexError(k, at, fmt.Sprintf("the part at offset %d has continuation flag %d, which does not belong there", at, cflag))
		}
		next := pos + header + (n+3)&^3
		if next > len(raw) {
			return nil, f.indexError(k, at, fmt.Sprintf("the record's part at offset %d runs past offset %d, where the next indexed record begins or the file ends", at, off+int64(len(raw))))
		}
		if cflag == 0 {
			payload = raw[pos+header : pos+header+n]
		} else {
			w += copy(raw[w:], raw[pos+header:pos+header+n])
			if cflag != 3 {
				w += copy(raw[w:], binary.LittleEndian.AppendUint32(nil, recordio.Magic))
			}
		}
		pos = next
		if cflag == 0 || cflag == 3 {
			break
		}
	}
	if pos != len(raw) {
		return nil, f.indexError(k, off+int64(pos), fmt.Sprintf("the record ends at offset %d, but the next indexed record begins at %d: the %d bytes between are not indexed",
			off+int64(pos), off+int64(len(raw)), len(raw)-pos))
	}
	if payload == nil {
		payload = raw[:w]
	}
	return payload, nil
}

// fetch is one record read ahead: the bytes of its span, then its payload
// or the error; done is closed when it is ready.
type fetch struct {
	k    int // the pass's record index
	file *indexedFile
	ent  int // the entry in file.sorted
	raw  []byte
	data []byte
	err  error
	done chan struct{}
}

// readAhead reads the records of a pass through the index ahead of its
// consumer, in order, at most aheadRecords and aheadBytes at a time, each
// on a goroutine of its own; the buffers of consumed records are reused.
type readAhead struct {
	mu   sync.Mutex
	used int64    // bytes of records fetched and not yet released
	free [][]byte // released buffers
	wake chan struct{}
	wg   sync.WaitGroup
}

// start fetches the records of the pass in order (next returns the file
// and entry of the n-th, ok false after the last) and sends each to out,
// which is closed when all are sent or ctx is done. The caller waits for
// the goroutines with r.wg after ctx is cancelled.
func (r *readAhead) start(ctx context.Context, count int, next func(n int) (*indexedFile, int), out chan<- *fetch) {
	r.wake = make(chan struct{}, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(out)
		for n := range count {
			file, ent := next(n)
			off, end := file.span(ent)
			raw, ok := r.acquire(ctx, end-off)
			if !ok {
				return
			}
			ft := &fetch{k: n, file: file, ent: ent, raw: raw, done: make(chan struct{})}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer close(ft.done)
				m, err := file.f.ReadAt(ft.raw, off)
				if m < len(ft.raw) {
					if err == nil {
						err = fmt.Errorf("mxnet: ImageRecordIter: %s: %d of %d bytes at offset %d", file.path, m, len(ft.raw), off)
					}
					ft.err = err
					return
				}
				ft.data, ft.err = file.cut(ft.raw, ent)
			}()
			select {
			case out <- ft:
			case <-ctx.Done():
				return
			}
		}
	}()
}

// acquire waits until n more bytes fit the bound (or nothing is held) and
// returns a buffer of n bytes; false when ctx is done first.
func (r *readAhead) acquire(ctx context.Context, n int64) ([]byte, bool) {
	for {
		r.mu.Lock()
		if r.used == 0 || r.used+n <= aheadBytes {
			r.used += n
			var b []byte
			if k := len(r.free); k > 0 {
				b, r.free = r.free[k-1], r.free[:k-1]
			}
			r.mu.Unlock()
			return slices.Grow(b[:0], int(n))[:n], true
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// release gives back the buffer of a consumed record.
func (r *readAhead) release(raw []byte) {
	r.mu.Lock()
	r.used -= int64(len(raw))
	r.free = append(r.free, raw)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}
