package recordio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// wantRecords reads the files one by one with the pull reader.
func wantRecords(t testing.TB, paths []string) []recordio.Record {
	t.Helper()
	var recs []recordio.Record
	for _, p := range paths {
		payloads, offsets := readAll(t, p, mustRead(t, p))
		for i := range payloads {
			recs = append(recs, recordio.Record{File: p, Offset: offsets[i], Index: len(recs), Data: payloads[i]})
		}
	}
	return recs
}

func sameRecords(t *testing.T, what string, got, want []recordio.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.File != w.File || g.Offset != w.Offset || g.Index != w.Index || !bytes.Equal(g.Data, w.Data) {
			t.Fatalf("%s: record %d = {%s %d %d %d bytes}, want {%s %d %d %d bytes}",
				what, i, g.File, g.Offset, g.Index, len(g.Data), w.File, w.Offset, w.Index, len(w.Data))
		}
	}
}

func TestOpen(t *testing.T) {
	path := recPath("multipart_edge_cases")
	r := recordio.Open(path)
	want := wantRecords(t, []string{path})
	for pass := range 2 { // re-iterable: every pass reads the file again
		got, err := source.Collect(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, fmt.Sprint("pass ", pass), got, want)
	}
}

// The readers keep the contract of every source.Reader: re-iterable,
// deterministic, closed on break, cancel and error.
func TestRecordsContract(t *testing.T) {
	paths := []string{recPath("multipart_edge_cases"), recPath("mnist_t10k_1000_png_gray")}
	for name, r := range map[string]source.Reader[recordio.Record]{
		"open":    recordio.Open(paths[0]),
		"records": records(paths),
		"shard":   records(paths, recordio.Shard(3, 1)),
	} {
		if err := sourcetest.TestReader(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRecordsSeveralFiles(t *testing.T) {
	paths := []string{recPath("multipart_edge_cases"), recPath("mnist_t10k_1000_png_gray"), recPath("multipart_edge_cases")}
	got, err := source.Collect(context.Background(), records(paths))
	if err != nil {
		t.Fatal(err)
	}
	want := wantRecords(t, paths)
	sameRecords(t, "records", got, want)
	if got[len(got)-1].Index != 1023 {
		t.Errorf("last Index %d, want 1023", got[len(got)-1].Index)
	}
}

func TestRecordsReuseBuffer(t *testing.T) {
	path := recPath("mnist_t10k_1000_jpg")
	want := wantRecords(t, []string{path})
	var prev *byte
	n, shared := 0, 0
	for rec, err := range recordio.Open(path, recordio.ReuseBuffer()).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rec.Data, want[n].Data) {
			t.Fatalf("record %d differs", n)
		}
		p := &rec.Data[:1][0]
		if p == prev {
			shared++
		}
		prev = p
		n++
	}
	if shared < n*9/10 {
		t.Errorf("ReuseBuffer: only %d of %d records share the previous record's buffer", shared, n)
	}
	if n != len(want) {
		t.Fatalf("%d records, want %d", n, len(want))
	}
}

// Buffers reads each whole record into the buffer its get returns, with
// the record's length, and every record of the edge cases (split ones
// too) reads as without it; a header that claims more than 1 MiB asks
// get for nothing before the bytes are there.
func TestRecordsBuffers(t *testing.T) {
	for _, name := range []string{"mnist_t10k_1000_jpg", "multipart_edge_cases"} {
		path := recPath(name)
		want := wantRecords(t, []string{path})
		var asked []int
		var given [][]byte
		get := func(n int) []byte {
			asked = append(asked, n)
			b := make([]byte, n, n+8) // a spare capacity, as a recycled buffer has
			given = append(given, b)
			return b
		}
		r := recordio.Open(path, recordio.Buffers(get), recordio.ReuseBuffer())
		got, err := source.Collect(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, name, got, want)
		if len(asked) != len(want) {
			t.Fatalf("%s: get asked %d times for %d records", name, len(asked), len(want))
		}
		for i, rec := range got {
			whole := len(rec.Data) == asked[i] // not split
			if whole && len(rec.Data) > 0 && &rec.Data[0] != &given[i][:1][0] {
				t.Errorf("%s: record %d (%d bytes) is not in the buffer get returned", name, i, len(rec.Data))
			}
			if name == "mnist_t10k_1000_jpg" && !whole {
				t.Errorf("%s: record %d: get asked for %d bytes, the record holds %d", name, i, asked[i], len(rec.Data))
			}
		}
	}
	huge := frame(rawPart{cflag: 0, data: []byte("abcd"), length: 100 << 20})
	path := filepath.Join(t.TempDir(), "huge.rec")
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	asked := 0
	_, err := source.Collect(context.Background(), recordio.Open(path, recordio.Buffers(func(n int) []byte { asked = n; return make([]byte, n) })))
	if !errors.Is(err, recordio.ErrFormat) || asked != 0 {
		t.Errorf("a header claiming 100 MiB: get asked for %d bytes, error %v", asked, err)
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// Breaking out of a pass closes the file.
func TestRecordsEarlyBreak(t *testing.T) {
	before := openFiles(t)
	n := 0
	for _, err := range recordio.Open(recPath("mnist_t10k_1000_jpg")).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			if openFiles(t) != before+1 {
				t.Error("the file is not open during the pass")
			}
			break
		}
	}
	if after := openFiles(t); after != before {
		t.Errorf("%d files open after break, %d before", after, before)
	}
}

func TestRecordsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n, errs int
	var last error
	for _, err := range recordio.Open(recPath("mnist_t10k_1000_jpg")).All(ctx) {
		if err != nil {
			errs++
			last = err
			continue
		}
		if n++; n == 5 {
			cancel()
		}
	}
	if n != 5 || errs != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("%d records, %d errors (%v); want 5 and one context.Canceled", n, errs, last)
	}
}

// A damaged file ends the pass with one error that names it and the offset,
// after the good records before the damage.
func TestRecordsBadFile(t *testing.T) {
	dir := t.TempDir()
	file := mustRead(t, recPath("mnist_t10k_1000_png_gray"))
	bad := filepath.Join(dir, "bad.rec")
	if err := os.WriteFile(bad, file[:612+100], 0o644); err != nil { // record 2 starts at 612
		t.Fatal(err)
	}
	var n, errs int
	var last error
	for _, err := range records([]string{bad, recPath("multipart_edge_cases")}).All(context.Background()) {
		if err != nil {
			errs++
			last = err
			continue
		}
		n++
	}
	var fe *tensorfeed.Error
	if n != 2 || errs != 1 || !errors.As(last, &fe) || fe.Path != bad || fe.Offset != 612 || fe.Record != 2 {
		t.Errorf("%d records, %d errors, last %v; want 2 records and one error at %s offset 612", n, errs, last, bad)
	}

	_, err := source.Collect(context.Background(), recordio.Open(filepath.Join(dir, "missing.rec")))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
	_, err = source.Collect(context.Background(), recordio.Open(filepath.Join(dir, "missing.rec"), recordio.Shard(2, 1)))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file, sharded: %v, want os.ErrNotExist", err)
	}
}

func TestRecordsPanics(t *testing.T) {
	// An empty list is an error of the pass, which names the list.
	if _, err := source.Collect(context.Background(), recordio.Open("")); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty list: %v", err)
	}
	for name, f := range map[string]func(){
		"zero shards":   func() { recordio.Shard(0, 0) },
		"index too big": func() { recordio.Shard(3, 3) },
		"index < 0":     func() { recordio.Shard(3, -1) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "recordio:") {
					t.Errorf("%s: panic %v, want a recordio panic", name, r)
				}
			}()
			f()
		}()
	}
}

// writeSet writes a set of small files full of split records (payloads with
// aligned magic words), plus an empty file, and returns their paths.
func writeSet(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	var paths []string
	for i, nrec := range []int{9, 0, 1, 25, 3, 40} {
		var b bytes.Buffer
		w := recordio.NewWriter(&b)
		for range nrec {
			p := payloadWithMagics(r, r.IntN(300))
			for k := 0; k+4 <= len(p); k += 4 * (1 + r.IntN(6)) {
				copy(p[k:], magic) // many splits
			}
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("part%d.rec", i))
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// Shards split the concatenated files at the byte offsets dmlc-core's
// InputSplit uses; every record lands in exactly one shard, the one that
// holds its first byte, whatever the number of files.
func TestShard(t *testing.T) {
	var testdataPaths []string
	for _, name := range allRecFiles {
		testdataPaths = append(testdataPaths, recPath(name))
	}
	sets := map[string][]string{
		"generated": writeSet(t),
		"testdata":  testdataPaths,
		"reversed":  {testdataPaths[3], testdataPaths[2], testdataPaths[1], testdataPaths[0]},
	}
	for _, name := range allRecFiles {
		sets[name] = []string{recPath(name)}
	}
	straddling := 0
	for setName, paths := range sets {
		all := wantRecords(t, paths)
		// global start and end offsets of every record in the concatenation
		fileStart := map[string]int64{}
		var total int64
		for _, p := range paths {
			fileStart[p] = total
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			total += st.Size()
		}
		starts := make([]int64, len(all))
		ends := make([]int64, len(all))
		for i, rec := range all {
			starts[i] = fileStart[rec.File] + rec.Offset
			if i > 0 {
				ends[i-1] = starts[i]
			}
		}
		ends[len(all)-1] = total
		for n := 1; n <= 7; n++ {
			step := (total + int64(n) - 1) / int64(n)
			step = (step + 3) / 4 * 4
			var joined []recordio.Record
			for p := range n {
				begin, end := min(step*int64(p), total), min(step*int64(p+1), total)
				if b, e := recordio.ShardRange(total, n, p); b != begin || e != end {
					t.Fatalf("PartRange(%d, %d, %d) = %d, %d; want %d, %d", total, n, p, b, e, begin, end)
				}
				got, err := source.Collect(context.Background(), records(paths, recordio.Shard(n, p)))
				if err != nil {
					t.Fatalf("%s %d/%d: %v", setName, p, n, err)
				}
				var want []recordio.Record
				for i, rec := range all {
					if starts[i] >= begin && starts[i] < end {
						rec.Index = len(want)
						want = append(want, rec)
					}
					if starts[i] < end && end < ends[i] && len(rawParts(t, mustRead(t, rec.File), rec.Offset)) > 1 {
						straddling++
					}
				}
				sameRecords(t, fmt.Sprintf("%s part %d of %d", setName, p, n), got, want)
				for _, rec := range got {
					rec.Index = len(joined)
					joined = append(joined, rec)
				}
			}
			sameRecords(t, fmt.Sprintf("%s: all %d parts", setName, n), joined, all)
		}
	}
	if straddling == 0 {
		t.Error("no split record straddles a cut: the test does not cover that case")
	}
	t.Logf("%d cuts fall inside split records", straddling)
}

// Example of reading the second of three shards of a file, as one of three
// distributed workers would.
func ExampleShard() {
	ctx := context.Background()
	r := recordio.Open("../imagerec/testdata/mnist_t10k_1000_png_gray.rec", recordio.Shard(3, 1))
	n, first := 0, int64(-1)
	for rec, err := range r.All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n == 0 {
			first = rec.Offset
		}
		n++
	}
	fmt.Println(n, "records, the first at offset", first)
	// Output: 331 records, the first at offset 101036
}
