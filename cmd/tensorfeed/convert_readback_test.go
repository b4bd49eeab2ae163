package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/internal/writelimit"
)

// targets are the formats convert writes, in a fixed order.
var targets = []string{"recordio", "tfrecord", "wds", "parquet"}

// lowerLimits lowers the limits convert enforces, for the test, so that
// records at the limits stay small; the shards are read back with readers
// lowered alike (readLowered).
func lowerLimits(t *testing.T) {
	old := writelimit.Current
	writelimit.Current = writelimit.Limits{
		RecordIO:     96 << 10,
		TFRecord:     64 << 10,
		WDSMember:    48 << 10,
		WDSSample:    80 << 10,
		ParquetPage:  writelimit.ParquetPageSlack + 40<<10,
		ParquetGroup: 64 << 10,
	}
	t.Cleanup(func() { writelimit.Current = old })
}

// readLowered reads a shard to its end with the library's reader of its
// format, its limits those of the lowered convert, and returns its
// records.
func readLowered(shard, to string) (int, error) {
	ctx := context.Background()
	n := 0
	var err error
	count := func(e error) bool {
		if e != nil {
			err = e
			return false
		}
		n++
		return true
	}
	switch to {
	case "recordio":
		for _, e := range recordio.Open(shard).All(ctx) {
			if !count(e) {
				break
			}
		}
	case "tfrecord":
		for _, e := range tfrecord.Open(shard, tfrecord.MaxRecordBytes(writelimit.Current.TFRecord)).All(ctx) {
			if !count(e) {
				break
			}
		}
	case "wds":
		for _, e := range webdataset.Open(shard, webdataset.MaxMemberBytes(writelimit.Current.WDSMember), webdataset.MaxSampleBytes(writelimit.Current.WDSSample)).All(ctx) {
			if !count(e) {
				break
			}
		}
	case "parquet":
		for _, e := range parquet.ReadRaw(shard, parquet.MaxPageBytes(writelimit.Current.ParquetPage)).All(ctx) {
			if !count(e) {
				break
			}
		}
	}
	return n, err
}

// convSource is an input of convert: its arguments and how many records
// it holds.
type convSource struct {
	name   string
	args   []string
	n      int
	fields bool // its records have named fields (WebDataset, Parquet)
}

// randBytes returns n random bytes.
func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return b
}

// randSize returns a record size: mostly small, sometimes empty, sometimes
// up to big.
func randSize(rng *rand.Rand, big int) int {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return rng.IntN(big + 1)
	}
	return rng.IntN(300)
}

// makeSources writes one input of every kind convert reads, with random
// records of at most big bytes, into dir.
func makeSources(t *testing.T, rng *rand.Rand, dir string, big int) []convSource {
	t.Helper()
	var srcs []convSource
	n := 1 + rng.IntN(12)
	srcs = append(srcs, convSource{name: "mnist", args: []string{"--from", "mnist", writeMNIST(t, rng, n)}, n: n})
	root, paths, _ := makeTree(t)
	srcs = append(srcs, convSource{name: "images", args: []string{"--from", "images", root}, n: len(paths)})

	var b bytes.Buffer
	n = 1 + rng.IntN(12)
	rw := recordio.NewWriter(&b)
	for range n {
		if err := rw.Write(randBytes(rng, randSize(rng, big))); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "in.rec")
	writeFile(t, p, b.Bytes())
	srcs = append(srcs, convSource{name: "recordio", args: []string{p}, n: n})

	b.Reset()
	n = 1 + rng.IntN(12)
	tw := tfrecord.NewWriter(&b)
	for range n {
		if err := tw.Write(randBytes(rng, randSize(rng, big))); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	p = filepath.Join(dir, "in.tfrecord")
	writeFile(t, p, b.Bytes())
	srcs = append(srcs, convSource{name: "tfrecord", args: []string{p}, n: n})

	b.Reset()
	n = 1 + rng.IntN(12)
	ww := webdataset.NewWriter(&b)
	for i := range n {
		fields := map[string][]byte{"bin": randBytes(rng, randSize(rng, big/2))}
		if rng.IntN(2) == 0 {
			fields["cls"] = []byte(strconv.Itoa(rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			fields["txt"] = randBytes(rng, randSize(rng, big/2))
		}
		if err := ww.Write(webdataset.Sample{Key: fmt.Sprintf("s%03d", i), Fields: fields}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	p = filepath.Join(dir, "in.tar")
	writeFile(t, p, b.Bytes())
	srcs = append(srcs, convSource{name: "wds", args: []string{p}, n: n, fields: true})

	type row struct {
		Name string `parquet:"name"`
		Blob []byte `parquet:"blob"`
		N    int64  `parquet:"n"`
	}
	n = 1 + rng.IntN(12)
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{Name: fmt.Sprint("r", i), Blob: randBytes(rng, randSize(rng, big/2)), N: rng.Int64()}
	}
	p = filepath.Join(dir, "in.parquet")
	pw, err := parquet.Create[row](p, parquet.RowGroupRows(1+rng.IntN(4)))
	if err != nil {
		t.Fatal(err)
	}
	if err := pw.Write(rows...); err != nil {
		pw.Abort()
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	srcs = append(srcs, convSource{name: "parquet", args: []string{p}, n: n, fields: true})

	n = 1 + rng.IntN(12)
	k := 1 + rng.IntN(big/4)
	p = filepath.Join(dir, "in-idx1-ubyte")
	writeIDX(t, p, []int{n, k}, randBytes(rng, n*k))
	srcs = append(srcs, convSource{name: "idx", args: []string{"idx:" + p}, n: n})

	n = 1 + rng.IntN(12)
	var lines strings.Builder
	for range n {
		for range 1 + rng.IntN(1+randSize(rng, big/2)) {
			lines.WriteByte("abc,123 .;xyz"[rng.IntN(13)])
		}
		lines.WriteString(",\n")
	}
	p = filepath.Join(dir, "in.csv")
	writeFile(t, p, []byte(lines.String()))
	srcs = append(srcs, convSource{name: "csv", args: []string{"csv:" + p}, n: n})
	return srcs
}

// summaryRE is convert's last line.
var summaryRE = regexp.MustCompile(`^convert: (\d+) records, (\d+) shards?, `)

// For every input and every target: what convert writes, check and ls
// accept, shard by shard, and the library's readers read with the limits
// convert enforced, holding as many records as the input; or convert
// refuses, before it writes a shard, what the target cannot hold, and says
// so. The limits are lowered so that records at them stay small.
func TestConvertReadsBack(t *testing.T) {
	lowerLimits(t)
	// The largest record fits every lowered target with its key and labels.
	big := int(writelimit.Current.ParquetPage-writelimit.ParquetPageSlack) - 64
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 7))
		srcs := makeSources(t, rng, t.TempDir(), big)
		for _, src := range srcs {
			for _, to := range targets {
				what := fmt.Sprintf("seed %d: %s to %s", seed, src.name, to)
				out := t.TempDir()
				args := append([]string{"convert", "--to", to, "--out", out, "--prefix", "s",
					"--shard-records", fmt.Sprint(1 + rng.IntN(src.n+1))}, src.args...)
				code, stdout, stderr := runCmd(args...)
				if src.fields && (to == "recordio" || to == "parquet") {
					// Named fields: RecordIO holds one payload, Parquet one schema.
					if code != 1 || !strings.Contains(stderr, "convert it to tfrecord or wds") || len(dirNames(t, out)) != 0 {
						t.Errorf("%s: exit %d, stderr %q, left %q", what, code, stderr, dirNames(t, out))
					}
					continue
				}
				m := summaryRE.FindStringSubmatch(stdout)
				if code != 0 || m == nil || m[1] != fmt.Sprint(src.n) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d records", what, code, stdout, stderr, src.n)
					continue
				}
				paths := shards(t, out, "s", outFormats[to])
				if want := map[bool]int{true: 2, false: 1}[to == "recordio"] * len(paths); len(dirNames(t, out)) != want || m[2] != fmt.Sprint(len(paths)) {
					t.Errorf("%s: the summary says %s shards; the folder holds %q", what, m[2], dirNames(t, out))
				}
				total := 0
				for _, p := range paths {
					if code, stdout, stderr := runCmd("check", p); code != 0 {
						t.Errorf("%s: check %s: exit %d, stdout %q, stderr %q", what, filepath.Base(p), code, stdout, stderr)
					}
					code, stdout, stderr := runCmd("ls", "--no-header", p)
					if code != 0 {
						t.Errorf("%s: ls %s: exit %d, stderr %q", what, filepath.Base(p), code, stderr)
					}
					lines := strings.Count(stdout, "\n")
					n, err := readLowered(p, to)
					if err != nil || n != lines {
						t.Errorf("%s: %s: the reader read %d records (%v), ls %d", what, filepath.Base(p), n, err, lines)
					}
					total += lines
				}
				if total != src.n {
					t.Errorf("%s: %d records in %d shards, want %d", what, total, len(paths), src.n)
				}
			}
		}
	}
}

// oneRecord writes a RecordIO file of one record of n bytes and returns
// its path.
func oneRecord(t *testing.T, dir string, n int) string {
	t.Helper()
	var b bytes.Buffer
	if err := recordio.NewWriter(&b).Write(bytes.Repeat([]byte{0x5a}, n)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("r%d.rec", n))
	writeFile(t, p, b.Bytes())
	return p
}

// The limits are the readers': for each target, the largest record convert
// writes reads back with the reader's limit lowered alike, and one byte
// more is refused before any shard is written, with where the record was
// read and the reader's option. For TFRecord and WebDataset the limit is
// exact: that record, written with the limits raised, is refused by the
// lowered reader.
func TestConvertLimits(t *testing.T) {
	lowerLimits(t)
	in := t.TempDir()
	converts := func(to string, n int) (bool, string) {
		out := t.TempDir()
		code, _, stderr := runCmd("convert", "--to", to, "--out", out, "--prefix", "x", oneRecord(t, in, n))
		if code != 0 && len(dirNames(t, out)) != 0 {
			t.Fatalf("%s, %d bytes: a refused conversion left %q", to, n, dirNames(t, out))
		}
		return code == 0, stderr
	}
	option := map[string]string{"recordio": "recordio.MaxRecordSize", "tfrecord": "tfrecord.MaxRecordBytes",
		"wds": "webdataset.MaxMemberBytes", "parquet": "parquet.MaxPageBytes"}
	for _, to := range targets {
		// The largest payload convert takes, by bisection.
		lo, hi := 0, int(writelimit.Current.RecordIO)+1 // lo is taken, hi is not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if ok, _ := converts(to, mid); ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		t.Logf("%s: the largest record convert writes: %d bytes", to, lo)
		if lo < 32<<10 {
			t.Errorf("%s: convert takes records of at most %d bytes", to, lo)
		}
		out := t.TempDir()
		if code, _, stderr := runCmd("convert", "--to", to, "--out", out, "--prefix", "x", oneRecord(t, in, lo)); code != 0 {
			t.Fatalf("%s: %d bytes: %s", to, lo, stderr)
		}
		shard := shards(t, out, "x", outFormats[to])[0]
		if n, err := readLowered(shard, to); n != 1 || err != nil {
			t.Errorf("%s: the largest record convert writes (%d bytes): %d records read, %v", to, lo, n, err)
		}
		for _, cmd := range []string{"check", "ls"} {
			if code, _, stderr := runCmd(cmd, shard); code != 0 {
				t.Errorf("%s: %s: exit %d: %s", to, cmd, code, stderr)
			}
		}
		_, stderr := converts(to, lo+1)
		src := filepath.Join(in, fmt.Sprintf("r%d.rec", lo+1))
		if !strings.HasPrefix(stderr, "tensorfeed convert: "+src+": record 0 at byte 0: ") ||
			!strings.Contains(stderr, "more than the") || !strings.Contains(stderr, "("+option[to]+")") {
			t.Errorf("%s: %d bytes: %q", to, lo+1, stderr)
		}
		if to != "tfrecord" && to != "wds" {
			continue
		}
		saved := writelimit.Current
		writelimit.Current = writelimit.Limits{RecordIO: recordio.MaxRecordSize, TFRecord: 1 << 40, WDSMember: 1 << 40, WDSSample: 1 << 40, ParquetPage: 1 << 40, ParquetGroup: 1 << 40}
		out = t.TempDir()
		code, _, stderr := runCmd("convert", "--to", to, "--out", out, "--prefix", "x", src)
		writelimit.Current = saved
		if code != 0 {
			t.Fatalf("%s: without limits: %s", to, stderr)
		}
		if _, err := readLowered(shards(t, out, "x", outFormats[to])[0], to); err == nil {
			t.Errorf("%s: the reader takes the %d-byte record convert refused", to, lo+1)
		}
	}

	// A WebDataset sample over the sample limit, its members under theirs.
	var b bytes.Buffer
	ww := webdataset.NewWriter(&b)
	half := bytes.Repeat([]byte{1}, int(writelimit.Current.WDSSample/2)+1)
	ww.Write(webdataset.Sample{Key: "big", Fields: map[string][]byte{"a": half, "b": half}})
	ww.Close()
	p := filepath.Join(in, "big.tar")
	writeFile(t, p, b.Bytes())
	out := t.TempDir()
	code, _, stderr := runCmd("convert", "--to", "wds", "--out", out, p)
	if code != 1 || !strings.Contains(stderr, `the sample "big" is `) || !strings.Contains(stderr, "(webdataset.MaxSampleBytes)") || len(dirNames(t, out)) != 0 {
		t.Errorf("sample over the limit: exit %d, %q", code, stderr)
	}
}

// Parquet row groups end once they hold the row bytes of the limit, so
// that neither the writer nor a reader holds more of one in memory.
func TestConvertParquetRowGroups(t *testing.T) {
	lowerLimits(t) // row groups of 64 KiB: two records of 30000 bytes each
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	for i := range 10 {
		if err := w.Write(bytes.Repeat([]byte{byte(i)}, 30000)); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(t.TempDir(), "in.rec")
	writeFile(t, src, b.Bytes())
	out := t.TempDir()
	if code, _, stderr := runCmd("convert", "--to", "parquet", "--out", out, "--prefix", "g", src); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	shard := filepath.Join(out, "g-00000.parquet")
	var groups []int
	for r, err := range parquet.ReadRaw(shard).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		groups = append(groups, r.RowGroup)
	}
	if fmt.Sprint(groups) != "[0 0 1 1 2 2 3 3 4 4]" {
		t.Errorf("rows in row groups %v", groups)
	}
	if code, stdout, stderr := runCmd("check", shard); code != 0 || !strings.Contains(stdout, "10 rows in 5 row groups") {
		t.Errorf("check: exit %d, %q %q", code, stdout, stderr)
	}
}
