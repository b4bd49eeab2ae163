package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/source"
)

// mnistDir returns the repository's MNIST folder.
func mnistDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "data", "mnist")
	if _, err := os.Stat(filepath.Join(dir, "t10k-images-idx3-ubyte.gz")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readBack is one record read back from the shards: its key (the TFRecord
// "key" feature, the WebDataset key; "" for RecordIO), its bytes and labels.
type readBack struct {
	key    string
	data   []byte
	labels []float32
}

// shards returns the shards of prefix in dir, in order.
func shards(t *testing.T, dir, prefix, ext string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, prefix+"-*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	return paths
}

// readShards reads every record of the shards with the library's readers:
// RecordIO image records (their .idx checked against the .rec), TFRecord
// tf.train.Example with the feature data (and "label"), WebDataset samples
// with the field data (and "cls"). It returns the records of each shard.
func readShards(t *testing.T, paths []string, to, data string) [][]readBack {
	t.Helper()
	ctx := context.Background()
	var out [][]readBack
	for _, p := range paths {
		var recs []readBack
		switch to {
		case "recordio":
			ix, err := recordio.ReadIndex(context.Background(), strings.TrimSuffix(p, ".rec")+".idx")
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := f.Stat()
			err = recordio.ValidateIndex(f, st.Size(), p, ix)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for r, err := range recordio.Open(p).All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				h, img, err := imagerec.ParseRecord(r.Data)
				if err != nil {
					t.Fatal(err)
				}
				labels := h.Labels
				if labels == nil {
					labels = []float32{h.Label}
				}
				recs = append(recs, readBack{key: fmt.Sprintf("%08d", h.ID), data: img, labels: labels})
			}
		case "tfrecord":
			for r, err := range tfrecord.Open(p).All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				ex, err := tfrecord.ParseExample(r.Data)
				if err != nil {
					t.Fatal(err)
				}
				b, err1 := ex.Bytes(data)
				k, err2 := ex.Bytes("key")
				l, err3 := ex.Int64s("label")
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatalf("%s: %v %v %v", p, err1, err2, err3)
				}
				recs = append(recs, readBack{key: string(k[0]), data: b[0], labels: []float32{float32(l[0])}})
			}
		case "parquet":
			for r, err := range parquet.Read[parquetRow](p).All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, readBack{key: r.Key, data: r.Image, labels: []float32{float32(r.Label)}})
			}
		case "wds":
			for s, err := range webdataset.Open(p).All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				b, err1 := s.Bytes(data)
				l, err2 := s.Int("cls")
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v %v", p, err1, err2)
				}
				recs = append(recs, readBack{key: s.Key, data: b, labels: []float32{float32(l)}})
			}
		}
		out = append(out, recs)
	}
	return out
}

// MNIST's test split to every format and back: every record's bytes and
// label are the digit's, in order, cut into shards of 3000.
func TestConvertMNIST(t *testing.T) {
	dir := mnistDir(t)
	images, err := idx.ReadFile(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := idx.ReadFile(filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 10000, 784
	for _, tc := range []struct{ to, ext, data string }{
		{"recordio", ".rec", ""},
		{"tfrecord", ".tfrecord", "image"},
		{"wds", ".tar", "bin"},
		{"parquet", ".parquet", ""},
	} {
		out := t.TempDir()
		code, stdout, stderr := runCmd("convert", "--from", "mnist", "--split", "t10k", "--to", tc.to,
			"--out", out, "--prefix", "digits", "--shard-records", "3000", dir)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.to, code, stderr)
		}
		paths := shards(t, out, "digits", tc.ext)
		if len(paths) != 4 || filepath.Base(paths[3]) != "digits-00003"+tc.ext {
			t.Fatalf("%s: shards %q", tc.to, paths)
		}
		if want := "convert: 10000 records, 4 shards, "; !strings.HasPrefix(stdout, want) {
			t.Fatalf("%s: summary %q", tc.to, stdout)
		}
		got := readShards(t, paths, tc.to, tc.data)
		i := 0
		for s, recs := range got {
			if want := min(3000, n-3000*s); len(recs) != want {
				t.Fatalf("%s: shard %d holds %d records, want %d", tc.to, s, len(recs), want)
			}
			for _, r := range recs {
				if r.key != fmt.Sprintf("%08d", i) || !bytes.Equal(r.data, images.Raw[i*size:(i+1)*size]) ||
					len(r.labels) != 1 || r.labels[0] != float32(labels.Raw[i]) {
					t.Fatalf("%s: record %d: key %q, label %v, bytes differ: %v", tc.to, i, r.key, r.labels,
						!bytes.Equal(r.data, images.Raw[i*size:(i+1)*size]))
				}
				i++
			}
		}
		if i != n {
			t.Fatalf("%s: %d records", tc.to, i)
		}
		if left := dirNames(t, out); len(left) != len(paths)*map[bool]int{true: 2, false: 1}[tc.to == "recordio"] {
			t.Fatalf("%s: the folder holds %q", tc.to, left)
		}
	}
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// --shard-bytes starts a new shard once one holds that many bytes: every
// shard but the last reaches the bound, and is under it without its last
// record.
func TestConvertShardBytes(t *testing.T) {
	dir := mnistDir(t)
	out := t.TempDir()
	const bound = 1_000_000
	if code, _, stderr := runCmd("convert", "--from", "mnist", "--split", "t10k", "--to", "tfrecord",
		"--out", out, "--prefix", "b", "--shard-bytes", fmt.Sprint(bound), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	paths := shards(t, out, "b", ".tfrecord")
	got := readShards(t, paths, "tfrecord", "image")
	total := 0
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		// Every record has the same size: 8-digit keys, one-byte labels.
		rec := st.Size() / int64(len(got[i]))
		if i < len(paths)-1 && (st.Size() < bound || st.Size()-rec >= bound) {
			t.Fatalf("shard %d: %d bytes, records of %d, bound %d", i, st.Size(), rec, bound)
		}
		if i == len(paths)-1 && st.Size()-rec >= bound {
			t.Fatalf("last shard: %d bytes", st.Size())
		}
		total += len(got[i])
	}
	if total != 10000 || len(paths) < 8 {
		t.Fatalf("%d records in %d shards", total, len(paths))
	}
}

// A folder of class folders, and the .lst that "im2rec list" writes of it,
// to WebDataset: each image's file bytes and label.
func TestConvertImages(t *testing.T) {
	root, paths, labels := makeTree(t)
	lst := filepath.Join(t.TempDir(), "photos.lst")
	if code, _, stderr := runCmd("im2rec", "list", "--shuffle=false", strings.TrimSuffix(lst, ".lst"), root); code != 0 {
		t.Fatalf("im2rec list: %s", stderr)
	}
	for _, input := range [][]string{{root}, {lst, "--root", root}} {
		out := t.TempDir()
		args := append([]string{"convert", "--from", "images", "--to", "wds", "--out", out, "--prefix", "p"}, input...)
		if code, _, stderr := runCmd(args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", input, code, stderr)
		}
		var got []readBack
		for s, err := range webdataset.Open(filepath.Join(out, "p-00000.tar")).All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			l, err := s.Int("cls")
			if err != nil || len(s.Fields) != 2 {
				t.Fatalf("%q: sample %q: %v", input, s.Key, err)
			}
			for name, b := range s.Fields {
				if name != "cls" {
					got = append(got, readBack{key: s.Key + "." + name, data: b, labels: []float32{float32(l)}})
				}
			}
		}
		if len(got) != len(paths) {
			t.Fatalf("%q: %d samples, want %d", input, len(got), len(paths))
		}
		for i, p := range paths {
			want, err := os.ReadFile(filepath.Join(root, p))
			if err != nil {
				t.Fatal(err)
			}
			ext := strings.ToLower(filepath.Ext(p))
			if got[i].key != fmt.Sprintf("%08d", i)+ext || !bytes.Equal(got[i].data, want) || got[i].labels[0] != labels[i] {
				t.Fatalf("%q: sample %d: %q label %v, want %s label %v", input, i, got[i].key, got[i].labels, p, labels[i])
			}
		}
	}
}

// Files the registry reads, of two formats in one list, to TFRecord: each
// record's payload in the feature "data"; a WebDataset shard's samples
// keep their fields.
func TestConvertRegistry(t *testing.T) {
	in := t.TempDir()
	var rec bytes.Buffer
	rw := recordio.NewWriter(&rec)
	for _, s := range []string{"r0", "r1"} {
		rw.Write([]byte(s))
	}
	writeFile(t, filepath.Join(in, "a.rec"), rec.Bytes())
	writeFile(t, filepath.Join(in, "b.csv"), []byte("x,1\ny,2\n"))
	out := t.TempDir()
	code, stdout, stderr := runCmd("convert", "--to", "tfrecord", "--out", out, "--prefix", "r",
		"recordio:"+filepath.Join(in, "*.rec"), filepath.Join(in, "b.csv"))
	if code != 0 || !strings.HasPrefix(stdout, "convert: 4 records, 1 shard, ") {
		t.Fatalf("exit %d: %q %s", code, stdout, stderr)
	}
	var got []string
	for r, err := range tfrecord.Open(filepath.Join(out, "r-00000.tfrecord")).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		ex, err := tfrecord.ParseExample(r.Data)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := ex.Bytes("data")
		k, _ := ex.Bytes("key")
		got = append(got, string(k[0])+"="+string(d[0]))
	}
	if want := []string{"00000000=r0", "00000001=r1", "00000002=x,1", "00000003=y,2"}; !slices.Equal(got, want) {
		t.Fatalf("records %q, want %q", got, want)
	}

	// WebDataset to TFRecord keeps the fields; to RecordIO it is an error.
	var tar bytes.Buffer
	ww := webdataset.NewWriter(&tar)
	ww.Write(webdataset.Sample{Key: "s0", Fields: map[string][]byte{"txt": []byte("hi"), "cls": []byte("3")}})
	ww.Close()
	shard := filepath.Join(in, "s.tar")
	writeFile(t, shard, tar.Bytes())
	if code, _, stderr := runCmd("convert", "--to", "tfrecord", "--out", out, "--prefix", "w", shard); code != 0 {
		t.Fatalf("wds: exit %d: %s", code, stderr)
	}
	for r, err := range tfrecord.Open(filepath.Join(out, "w-00000.tfrecord")).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		ex, _ := tfrecord.ParseExample(r.Data)
		txt, _ := ex.Bytes("txt")
		cls, _ := ex.Bytes("cls")
		key, _ := ex.Bytes("key")
		if len(txt) != 1 || string(txt[0]) != "hi" || string(cls[0]) != "3" || string(key[0]) != "s0" {
			t.Fatalf("sample: %v", ex)
		}
	}
	before := dirNames(t, out)
	for _, to := range []string{"recordio", "parquet"} {
		if code, _, stderr := runCmd("convert", "--to", to, "--out", out, "--prefix", "w", shard); code != 1 || !strings.Contains(stderr, "convert it to tfrecord or wds") {
			t.Fatalf("wds to %s: exit %d: %s", to, code, stderr)
		}
		if after := dirNames(t, out); !slices.Equal(before, after) {
			t.Fatalf("a failed conversion to %s left %q, before %q", to, after, before)
		}
	}

	// Registry records to Parquet: the column "data".
	if code, _, stderr := runCmd("convert", "--to", "parquet", "--out", out, "--prefix", "q",
		"recordio:"+filepath.Join(in, "*.rec"), filepath.Join(in, "b.csv")); code != 0 {
		t.Fatalf("parquet: exit %d: %s", code, stderr)
	}
	rows, err := source.Collect(context.Background(), source.Reader[parquetDataRow](parquet.Read[parquetDataRow](filepath.Join(out, "q-00000.parquet"))))
	if err != nil || len(rows) != 4 || string(rows[1].Data) != "r1" || rows[3].Key != "00000003" || string(rows[3].Data) != "y,2" {
		t.Fatalf("parquet rows %+v, %v", rows, err)
	}
}

// positionedRE matches an error that names a file and a place in it.
var positionedRE = regexp.MustCompile(`^tensorfeed convert: \S+: (byte \d+|line \d+|record \d+)( at byte \d+)?: \S`)

// Unreadable input: exit 1 with a positioned message, and no shard left
// behind, not even the ones finished before the bad record.
func TestConvertBadInput(t *testing.T) {
	in := t.TempDir()
	var tf bytes.Buffer
	tw := tfrecord.NewWriter(&tf)
	for i := range 50 {
		tw.Write(bytes.Repeat([]byte{byte(i)}, 100))
	}
	tw.Close()
	good := filepath.Join(in, "a.tfrecord")
	writeFile(t, good, tf.Bytes())
	cut := filepath.Join(in, "b.tfrecord")
	writeFile(t, cut, tf.Bytes()[:tf.Len()-30])
	out := t.TempDir()
	for _, to := range []string{"recordio", "tfrecord", "wds", "parquet"} {
		code, stdout, stderr := runCmd("convert", "--to", to, "--out", out, "--shard-records", "10", good, cut)
		if code != 1 || stdout != "" || !positionedRE.MatchString(stderr) || !strings.Contains(stderr, cut) {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", to, code, stdout, stderr)
		}
		if left := dirNames(t, out); len(left) != 0 {
			t.Fatalf("%s: a failed conversion left %q", to, left)
		}
	}
	if code, _, stderr := runCmd("convert", "--to", "wds", "--out", out, filepath.Join(in, "none-*")); code != 1 || !strings.Contains(stderr, "no file matches") {
		t.Fatalf("no input: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd("convert", "--from", "mnist", "--to", "wds", "--out", out, in); code != 1 || !strings.Contains(stderr, "t10k") && !strings.Contains(stderr, "train-images") {
		t.Fatalf("mnist without files: exit %d: %s", code, stderr)
	}
}

func TestConvertUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"convert", "x.rec"}, "--to must be"},
		{[]string{"convert", "--to", "zip", "x.rec"}, "--to must be"},
		{[]string{"convert", "--to", "wds"}, "at least one input"},
		{[]string{"convert", "--to", "wds", "--shard-records", "-1", "x"}, "must be >= 0"},
		{[]string{"convert", "--to", "wds", "--shard-bytes", "-5", "x"}, "must be >= 0"},
		{[]string{"convert", "--to", "wds", "--shard-bytes", "lots", "x"}, "invalid value"},
		{[]string{"convert", "--to", "wds", "--prefix", "a/b", "x"}, "--prefix"},
		{[]string{"convert", "--to", "wds", "--from", "mnist", "a", "b"}, "one folder"},
		{[]string{"convert", "--to", "wds", "--from", "mnist", "--split", "dev", "a"}, "--split"},
		{[]string{"convert", "--to", "wds", "--from", "csv", "a"}, "--from must be"},
		{[]string{"convert", "--to", "wds", "--skip-bad", "2", "a"}, "--skip-bad"},
		{[]string{"convert", "--to", "wds", "--workers", "0", "a"}, "--workers"},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.says) || !strings.Contains(stderr, "usage:\n  tensorfeed convert") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.says)
		}
	}
}

// --skip-bad steps over records whose checksum fails, reports each on
// stderr and counts them in the summary.
func TestConvertSkipBad(t *testing.T) {
	in := t.TempDir()
	var tf bytes.Buffer
	tw := tfrecord.NewWriter(&tf)
	for i := range 10 {
		tw.Write([]byte{byte(i), 1, 2, 3})
	}
	tw.Close()
	data := tf.Bytes()
	data[8+4+1] ^= 0xff // the first record's data
	bad := filepath.Join(in, "a.tfrecord")
	writeFile(t, bad, data)
	out := t.TempDir()
	code, stdout, stderr := runCmd("convert", "--to", "wds", "--out", out, "--workers", "2", "--skip-bad", "0.2", bad)
	if code != 0 || !strings.HasPrefix(stdout, "convert: 9 records, 1 shard, ") || !strings.HasSuffix(stdout, "; 1 bad records skipped\n") ||
		!strings.HasPrefix(stderr, "convert: skipped "+bad+": record 0 at byte 0: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runCmd("convert", "--to", "wds", "--out", out, bad); code != 1 || !positionedRE.MatchString(stderr) {
		t.Fatalf("without --skip-bad: exit %d, %q", code, stderr)
	}
}
