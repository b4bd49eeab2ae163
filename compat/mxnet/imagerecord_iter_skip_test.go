package mxnet

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// mixedRec writes n records of the MNIST test file with the records at the
// bad positions broken (a truncated JPEG, or a header whose flag runs past
// the record). It returns the .rec path, its .idx path, the path of a .rec
// holding only the good records, and the offsets of all records.
func mixedRec(t *testing.T, n int, bad ...int) (rec, idx, good string, offs []int64) {
	t.Helper()
	all, goodOnly := recimages.Mixed(recimages.Records(t, tdPath(mnistJPG, ".rec")), n, bad...)
	rec, offs = recimages.WriteRec(t, all...)
	var ib []byte
	for i, o := range offs {
		ib = recordio.AppendIndexLine(ib, int64(i), o)
	}
	idx = strings.TrimSuffix(rec, ".rec") + ".idx"
	if err := os.WriteFile(idx, ib, 0o644); err != nil {
		t.Fatal(err)
	}
	good, _ = recimages.WriteRec(t, goodOnly...)
	return rec, idx, good, offs
}

// tensorsOf flattens batches for comparison: rows, padding, data, labels.
func tensorsOf(bs []*tensor.Batch) string {
	var b bytes.Buffer
	for _, t := range bs {
		fmt.Fprintf(&b, "%v/%d/%x/%v;", t.Data[0].Shape, t.Padded, t.Data[0].U8, t.Label[0].F32)
	}
	return b.String()
}

// With SkipBad, bad records are skipped, counted and reported, and the
// batches are exactly those of a file that holds only the good records,
// for 1, 2 or 4 threads and every last-batch policy.
func TestIterSkipBad(t *testing.T) {
	bad := []int{3, 4, 11, 18}
	rec, _, good, offs := mixedRec(t, 22, bad...)
	for _, last := range []batch.Policy{batch.Keep, batch.Pad, batch.Drop} {
		cfg := mnistConfig()
		cfg.Batch = batchOptions{Size: 4, Last: last}
		cfg.Backend.DType = sample.Uint8
		cfg.Data.RecPath = good
		want := tensorsOf(pass(t, newIter(t, cfg)))
		for _, threads := range []int{1, 2, 4} {
			var mu sync.Mutex
			var skipped []error
			cfg.Data.RecPath = rec
			cfg.Backend.Threads = threads
			cfg.Data.SkipBad = source.SkipBad(0.5, source.OnSkip(func(err error) {
				mu.Lock()
				skipped = append(skipped, err)
				mu.Unlock()
			}))
			it := newIter(t, cfg)
			got := tensorsOf(pass(t, it))
			if got != want {
				t.Errorf("last=%v threads=%d: batches differ from the good records' own", last, threads)
			}
			if it.Skipped() != int64(len(bad)) || len(skipped) != len(bad) {
				t.Fatalf("last=%v threads=%d: Skipped() = %d, %d reported; want %d", last, threads, it.Skipped(), len(skipped), len(bad))
			}
			for k, err := range skipped {
				var re *tensorfeed.Error
				if !errors.As(err, &re) || re.Record != int64(bad[k]) || re.Offset != offs[bad[k]] || re.Path != rec {
					t.Errorf("skip %d: %v, want record %d at offset %d of %s", k, err, bad[k], offs[bad[k]], rec)
				}
			}
			var sc source.SkipCounted = it
			_ = sc
		}
	}
}

// Skipping more than the allowed fraction ends the pass with
// source.ErrTooManyBad, and with an .idx the bound holds from the start.
func TestIterSkipBadBound(t *testing.T) {
	rec, idx, _, _ := mixedRec(t, 20, 1, 2, 3, 4, 5)
	for _, withIdx := range []bool{false, true} {
		cfg := mnistConfig()
		cfg.Batch.Size = 4
		cfg.Data.RecPath = rec
		if withIdx {
			cfg.Data.IdxPath = idx
		}
		cfg.Data.SkipBad = source.SkipBad(0.1)
		err := passErr(newIter(t, cfg))
		if !errors.Is(err, source.ErrTooManyBad) || !errors.Is(err, tensorfeed.ErrBadData) {
			t.Errorf("idx=%v: %v, want ErrTooManyBad", withIdx, err)
		}
	}
}

// A pass whose index lists records but that yields none is an error, even
// when the policy allows every record to be skipped.
func TestIterEmptyPass(t *testing.T) {
	rec, idx, _, _ := mixedRec(t, 3, 0, 1, 2)
	for _, shuffle := range []bool{false, true} {
		cfg := mnistConfig()
		cfg.Data.RecPath, cfg.Data.IdxPath, cfg.Data.Shuffle = rec, idx, shuffle
		cfg.Data.SkipBad = source.SkipBad(1)
		err := passErr(newIter(t, cfg))
		if !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), "none could be read") {
			t.Errorf("shuffle=%v: %v, want an error for an empty pass", shuffle, err)
		}
	}
}

// The error of a bad record reads the same whatever the number of threads.
func TestIterErrorTextThreads(t *testing.T) {
	rec, idx, _, _ := mixedRec(t, 12, 6)
	for _, idxPath := range []string{"", idx} {
		var texts []string
		for _, threads := range []int{1, 4} {
			cfg := mnistConfig()
			cfg.Batch.Size = 4
			cfg.Data.RecPath, cfg.Data.IdxPath = rec, idxPath
			cfg.Backend.Threads = threads
			err := passErr(newIter(t, cfg))
			if err == nil {
				t.Fatal("no error for a bad record")
			}
			texts = append(texts, err.Error())
		}
		if texts[0] != texts[1] {
			t.Errorf("1 thread: %q\n4 threads: %q", texts[0], texts[1])
		}
	}
}

// An Iter that skips bad records keeps the reader contract, resume
// included: its states replay the pass up to their batch. The batches are
// compared by what they hold (padding and tensors), not by the sink's
// memory behind them, which a pass recycles as its timing allows.
func TestIterSkipBadContract(t *testing.T) {
	rec, _, _, _ := mixedRec(t, 22, 3, 4, 11, 18)
	cfg := mnistConfig()
	cfg.Batch = batchOptions{Size: 4, Last: batch.Keep}
	cfg.Backend.DType = sample.Uint8
	cfg.Data.RecPath = rec
	cfg.Data.SkipBad = source.SkipBad(0.5)
	held := pipeline.Map(pipeline.From[*tensor.Batch](newIter(t, cfg)), func(b *tensor.Batch) string {
		return fmt.Sprint(b.Padded, b.Data, b.Label)
	})
	if err := sourcetest.TestReader(source.Reader[string](held)); err != nil {
		t.Fatal(err)
	}
}
