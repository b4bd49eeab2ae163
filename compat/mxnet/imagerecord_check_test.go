package mxnet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// askedSince returns the bytes of .rec objects that w's range requests
// have asked for since they had asked for from.
func (w *watchedS3) askedSince(from int64) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked - from
}

// A pass in file order with the .idx of remote .rec files (and of a local
// one beside them) reads each remote object once, not once more to check
// the index first, and gives the local pass's batches, every epoch.
func TestRemoteInOrderReadsOnce(t *testing.T) {
	w := newWatchedS3(t, &http.Transport{})
	names := []string{mnistJPG, "mnist_t10k_1000_png_gray"}
	var recs, idxs, local, localIdx []string
	var size int64
	for i, n := range names {
		b := readTestFile(t, tdPath(n, ".rec"))
		size += int64(len(b))
		recs = append(recs, w.put(t, fmt.Sprintf("f%d.rec", i), b))
		idxs = append(idxs, w.put(t, fmt.Sprintf("f%d.idx", i), readTestFile(t, tdPath(n, ".idx"))))
		local, localIdx = append(local, tdPath(n, ".rec")), append(localIdx, tdPath(n, ".idx"))
	}
	opts := []recOpt{oDataShape(3, 28, 28), oBatch(64), oSeed(4), oRandMirror(), oThreads(2)}
	with := func(more ...recOpt) []recOpt { return append(append([]recOpt(nil), opts...), more...) }
	localIt, err := newRec(strings.Join(local, ";"), with(oIndex(strings.Join(localIdx, ";")))...)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]*tensor.Batch{pass(t, localIt), pass(t, localIt)}
	cases := []struct {
		name      string
		rec, idx  string
		remoteLen int64
	}{
		{"two remote files", strings.Join(recs, ";"), strings.Join(idxs, ";"), size},
		{"a local and a remote file", local[0] + ";" + recs[1], localIdx[0] + ";" + idxs[1], size - int64(len(readTestFile(t, local[0])))},
	}
	for _, c := range cases {
		it, err := newRec(c.rec, with(oIndex(c.idx), oStorage(w.opts...))...)
		if err != nil {
			t.Fatal(err)
		}
		for epoch := range 2 {
			from := w.askedSince(0)
			if got := pass(t, it); !sameBatches(got, want[epoch]) {
				t.Errorf("%s, epoch %d: batches differ from the local ones", c.name, epoch)
			}
			if n := w.askedSince(from); n > c.remoteLen {
				t.Errorf("%s, epoch %d: the pass asked for %d bytes of %d bytes of remote .rec objects", c.name, epoch, n, c.remoteLen)
			}
		}
	}
}

// A list that names the same remote file twice reads it twice, each copy
// checked against its index from its first entry, as the local list does.
func TestRemoteInOrderSameFileTwice(t *testing.T) {
	w := newWatchedS3(t, &http.Transport{})
	rec := w.put(t, "f.rec", readTestFile(t, tdPath(mnistJPG, ".rec")))
	idx := w.put(t, "f.idx", readTestFile(t, tdPath(mnistJPG, ".idx")))
	opts := []recOpt{oDataShape(3, 28, 28), oBatch(64), oSeed(4), oThreads(2)}
	local, err := newRec(tdPath(mnistJPG, ".rec")+";"+tdPath(mnistJPG, ".rec"),
		append(opts, oIndex(tdPath(mnistJPG, ".idx")+";"+tdPath(mnistJPG, ".idx")))...)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := newRec(rec+";"+rec, append(opts, oIndex(idx+";"+idx), oStorage(w.opts...))...)
	if err != nil {
		t.Fatal(err)
	}
	want := pass(t, local)
	var got []*tensor.Batch
	for b, err := range remote.All(context.Background()) {
		if err != nil {
			t.Fatalf("after %d batches: %v", len(got), err)
		}
		got = append(got, b)
	}
	if !sameBatches(got, want) {
		t.Errorf("%d batches, differing from the local list's %d", len(got), len(want))
	}

	// Resumed inside the second copy: its records are checked against
	// the second copy's entries, and the pass ends without an error.
	const skip = 20 // batches of 64: record 1280 is in the second copy
	pass(t, local)
	want = pass(t, local) // epoch 1
	st := stateAfter(t, remote, 1, skip)
	again, err := newRec(rec+";"+rec, append(opts, oIndex(idx+";"+idx), oStorage(w.opts...))...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := again.Resume(st)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for b, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatalf("resumed after %d batches, then %d more: %v", skip, len(got), err)
		}
		got = append(got, b)
	}
	if !sameBatches(got, want[skip:]) {
		t.Errorf("resumed after %d batches: %d batches, not the local pass's last %d", skip, len(got), len(want)-skip)
	}
}

// stateAfter reads n batches of it's next pass, epoch, releasing them, and
// returns the state after them.
func stateAfter(t *testing.T, it *recIter, epoch, n int) source.State {
	t.Helper()
	k := 0
	for b, err := range it.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		if k++; k == n {
			break
		}
	}
	st, err := it.StateAt(epoch, int64(n))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A remote pass in file order over a shard, or resumed from a checkpoint
// in the middle of the file, gives the local batches and asks for the
// bytes of its part only (within the read-ahead's blocks): the index is
// checked from the shard's or the checkpoint's entry on, as the records
// arrive.
func TestRemoteInOrderShardsAndResume(t *testing.T) {
	w := newWatchedS3(t, &http.Transport{})
	const block = 64 << 10
	recBytes := readTestFile(t, tdPath(mnistJPG, ".rec"))
	rec := w.put(t, "s.rec", recBytes)
	idx := w.put(t, "s.idx", readTestFile(t, tdPath(mnistJPG, ".idx")))
	ix, err := recordio.ReadIndex(t.Context(), tdPath(mnistJPG, ".idx"))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(recBytes))
	const batchSize, skip = 40, 2 // a resumed pass starts after skip batches
	for _, shard := range [][2]int{{1, 0}, {3, 0}, {3, 1}, {3, 2}} {
		opts := []recOpt{oDataShape(3, 28, 28), oBatch(batchSize), oSeed(6), oRandCrop(), oThreads(2), oShard(shard[0], shard[1])}
		want := passOf(t, tdPath(mnistJPG, ".rec"), append(opts, oIndex(tdPath(mnistJPG, ".idx")))...)
		it, err := newRec(rec, append(opts, oIndex(idx), oStorage(append(w.opts, storage.ReadAhead(2, block))...))...)
		if err != nil {
			t.Fatal(err)
		}
		begin, end := inputsplit.ShardRange(size, shard[0], shard[1])
		// The part's bytes, a block read ahead past it and the small reads
		// that find the part's first record.
		limit := end - begin + 3*block
		asked := w.askedSince(0)
		if got := pass(t, it); !sameBatches(got, want) {
			t.Errorf("shard %v: batches differ from the local ones", shard)
		}
		if n := w.askedSince(asked); n > limit {
			t.Errorf("shard %v: the pass asked for %d bytes of the %d-byte .rec for a part of %d bytes, want at most %d", shard, n, size, end-begin, limit)
		}

		// A checkpoint after skip batches of the next pass (epoch 1),
		// resumed by a new Iter.
		localIt, err := newRec(tdPath(mnistJPG, ".rec"), append(opts, oIndex(tdPath(mnistJPG, ".idx")))...)
		if err != nil {
			t.Fatal(err)
		}
		pass(t, localIt)
		want = pass(t, localIt)
		st := stateAfter(t, it, 1, skip)
		if s := fmt.Sprint(st); strings.Contains(s, "replay") {
			t.Fatalf("shard %v: state %s: want an offset state", shard, s)
		}
		again, err := newRec(rec, append(opts, oIndex(idx), oStorage(append(w.opts, storage.ReadAhead(2, block))...))...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := again.Resume(st)
		if err != nil {
			t.Fatal(err)
		}
		// The resumed pass starts at the record after skip batches of the
		// part: the offset of its entry.
		first := skip * batchSize
		for k := range ix.Len() {
			if ix.Entry(k).Offset >= begin {
				first += k
				break
			}
		}
		from := ix.Entry(first).Offset
		asked = w.askedSince(0)
		var got []*tensor.Batch
		for b, err := range r.All(t.Context()) {
			if err != nil {
				t.Fatalf("shard %v resumed: %v", shard, err)
			}
			got = append(got, b)
		}
		if len(want) < skip || !sameBatches(got, want[skip:]) {
			t.Errorf("shard %v resumed after %d batches: %d batches, not the local pass's last %d", shard, skip, len(got), len(want)-skip)
		}
		if n, limit := w.askedSince(asked), end-from+3*block; n > limit {
			t.Errorf("shard %v resumed at offset %d: the pass asked for %d bytes, want at most %d", shard, from, n, limit)
		}

		// Resumed with an index that has lost the entry of the record the
		// pass resumes at: the check starts at the checkpoint's entry, and
		// the record is refused before any batch.
		lines := strings.SplitAfter(string(readTestFile(t, tdPath(mnistJPG, ".idx"))), "\n")
		stale := w.put(t, "stale.idx", []byte(strings.Join(append(lines[:first:first], lines[first+1:]...), "")))
		staleIt, err := newRec(rec, append(opts, oIndex(stale), oStorage(w.opts...))...)
		if err != nil {
			t.Fatal(err)
		}
		if r, err = staleIt.Resume(st); err != nil {
			t.Fatal(err)
		}
		for _, err := range r.All(t.Context()) {
			var pe *tensorfeed.Error
			if !errors.Is(err, recordio.ErrFormat) || !errors.As(err, &pe) || pe.Path != rec || pe.Offset != from ||
				!strings.Contains(err.Error(), stale) || !strings.Contains(err.Error(), "is not indexed") {
				t.Errorf("shard %v resumed at offset %d with an entry missing there: %v", shard, from, err)
			}
			break
		}
	}
}

// A remote .idx that does not match its .rec fails a pass in file order
// with an error wrapping recordio.ErrFormat that names the .rec object,
// the offset at fault, the .idx and the key: an entry past the end before
// the first batch, the others as the record at fault arrives, so the
// batches delivered before the error are the local pass's and hold no
// record the index does not describe.
func TestRemoteInOrderIndexMismatch(t *testing.T) {
	w := newWatchedS3(t, &http.Transport{DisableKeepAlives: true})
	recBytes := readTestFile(t, tdPath(mnistJPG, ".rec"))
	lines := strings.SplitAfter(strings.TrimSuffix(string(readTestFile(t, tdPath(mnistJPG, ".idx"))), "\n"), "\n")
	lines[len(lines)-1] += "\n"
	ix, err := recordio.ReadIndex(t.Context(), tdPath(mnistJPG, ".idx"))
	if err != nil {
		t.Fatal(err)
	}
	off := func(i int) int64 { return ix.Entry(i).Offset }
	edit := func(f func(l []string) []string) string {
		return strings.Join(f(append([]string(nil), lines...)), "")
	}
	const bad = 55 // the record at fault, in batch 5 of 10 records
	size := int64(len(recBytes))
	cases := []struct {
		name  string
		idx   string
		shard [2]int
		at    int64 // the offset the error names
		key   int64 // the key it names
		msg   string
		first int // the index of the first record the index does not describe, or does not reach
	}{
		{"an offset moved", edit(func(l []string) []string { l[bad] = fmt.Sprintf("%d\t%d\n", ix.Entry(bad).Key, off(bad)+8); return l }), [2]int{1, 0},
			off(bad), ix.Entry(bad - 1).Key, "the 8 bytes between are not indexed", bad},
		{"an entry missing", edit(func(l []string) []string { return append(l[:bad], l[bad+1:]...) }), [2]int{1, 0},
			off(bad), ix.Entry(bad - 1).Key, "bytes between are not indexed", bad},
		{"the last entry missing", edit(func(l []string) []string { return l[:len(l)-1] }), [2]int{1, 0},
			off(ix.Len() - 1), ix.Entry(ix.Len() - 2).Key, fmt.Sprintf("the next indexed record begins at %d", size), ix.Len() - 1},
		{"an extra entry", edit(func(l []string) []string { return append(l, fmt.Sprintf("9999\t%d\n", off(bad)+8)) }), [2]int{1, 0},
			off(bad) + 8, 9999, fmt.Sprintf("inside the record at offset %d, which runs to offset %d", off(bad), off(bad+1)), bad + 1},
		{"an extra entry in a shard", edit(func(l []string) []string { return append(l, fmt.Sprintf("9999\t%d\n", off(bad)+8)) }), [2]int{2, 0},
			off(bad) + 8, 9999, "inside the record at offset", bad + 1},
		{"an entry past the end", edit(func(l []string) []string { l[bad] = fmt.Sprintf("%d\t%d\n", ix.Entry(bad).Key, size+4); return l }), [2]int{1, 0},
			size + 4, ix.Entry(bad).Key, "at or past the end of the file", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := w.put(t, "m.rec", recBytes)
			idx := w.put(t, "m.idx", []byte(c.idx))
			opts := []recOpt{oDataShape(3, 28, 28), oBatch(10), oThreads(2), oShard(c.shard[0], c.shard[1])}
			want := passOf(t, tdPath(mnistJPG, ".rec"), append(opts, oIndex(tdPath(mnistJPG, ".idx")))...)
			it, err := newRec(rec, append(opts, oIndex(idx), oStorage(w.opts...))...)
			if err != nil {
				t.Fatal(err)
			}
			var got []*tensor.Batch
			for b, e := range it.All(t.Context()) {
				if e != nil {
					err = e
					break
				}
				got = append(got, b)
			}
			var pe *tensorfeed.Error
			if !errors.Is(err, recordio.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &pe) {
				t.Fatalf("after %d batches: %v; want an index error", len(got), err)
			}
			if pe.Path != rec || pe.Offset != c.at || !strings.Contains(err.Error(), idx) ||
				!strings.Contains(err.Error(), fmt.Sprintf("key %d ", c.key)) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q: want it at offset %d of %s, naming %s and key %d and saying %q", err, c.at, rec, idx, c.key, c.msg)
			}
			if len(got)*10 > c.first || len(got) > len(want) || !sameBatches(got, want[:len(got)]) {
				t.Errorf("%d batches of 10 before the error, want the local pass's first ones and no record from %d on", len(got), c.first)
			}
		})
	}
}
