package main

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// writeIDX writes an IDX file of unsigned bytes with the given dimensions
// (the first one the records) and data.
func writeIDX(t *testing.T, path string, dims []int, data []byte) {
	t.Helper()
	b := []byte{0, 0, 0x08, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	writeFile(t, path, append(b, data...))
}

// writeMNIST writes a train split of n random 28x28 digits and their labels
// into a new folder and returns it.
func writeMNIST(t *testing.T, rng *rand.Rand, n int) string {
	t.Helper()
	dir := t.TempDir()
	img := make([]byte, n*28*28)
	for i := range img {
		img[i] = byte(rng.IntN(256) &^ 0x0f)
	}
	clear(img[:100]) // a border, as MNIST's digits have
	labels := make([]byte, n)
	for i := range labels {
		labels[i] = byte(rng.IntN(10))
	}
	writeIDX(t, filepath.Join(dir, "train-images-idx3-ubyte"), []int{n, 28, 28}, img)
	writeIDX(t, filepath.Join(dir, "train-labels-idx1-ubyte"), []int{n}, labels)
	return dir
}

// MNIST's raw pixels converted to RecordIO are image record headers
// followed by bytes that are no encoded image: check takes them for raw
// records (it took them for images and failed on "starts with 00 00 00
// 00"), while a file of image records still has every image decoded.
func TestCheckRawRecordIO(t *testing.T) {
	dir := writeMNIST(t, rand.New(rand.NewPCG(1, 2)), 20)
	out := t.TempDir()
	if code, _, stderr := runCmd("convert", "--from", "mnist", "--to", "recordio", "--out", out, "--prefix", "m", dir); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	rec := filepath.Join(out, "m-00000.rec")
	code, stdout, stderr := runCmd("check", rec)
	if code != 0 || !strings.HasPrefix(stdout, rec+": RecordIO: 20 records, ") ||
		!strings.Contains(stdout, "not image records: the first record's bytes after the image record header start 00") ||
		!strings.Contains(stdout, "index "+strings.TrimSuffix(rec, ".rec")+".idx matches") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Payloads that are not even image records.
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	for _, p := range []string{"hello", "", "0123456789abcdefghijklmnopqrstuvwxyz"} {
		if err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	raw := filepath.Join(out, "raw.rec")
	writeFile(t, raw, b.Bytes())
	code, stdout, stderr = runCmd("check", raw)
	if code != 0 || !strings.HasPrefix(stdout, raw+": RecordIO: 3 records, 41 payload bytes; framing only, not image records: the first record (5 bytes) is not an image record") {
		t.Fatalf("raw: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Images: the first record says so, and a later record that holds
	// none is bad.
	root, _, _ := makeTree(t)
	if code, _, stderr := runCmd("convert", "--from", "images", "--to", "recordio", "--out", out, "--prefix", "p", root); code != 0 {
		t.Fatalf("convert images: exit %d: %s", code, stderr)
	}
	photos := filepath.Join(out, "p-00000.rec")
	if code, stdout, stderr := runCmd("check", photos); code != 0 || !strings.HasPrefix(stdout, photos+": image records: 4 records; images ") {
		t.Fatalf("images: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(photos)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	w = recordio.NewWriter(&b)
	w.Write([]byte("not an image record at all, but long enough for a header"))
	mixed := filepath.Join(out, "mixed.rec")
	writeFile(t, mixed, append(data, b.Bytes()...))
	if code, _, stderr := runCmd("check", mixed); code != 1 || !strings.HasPrefix(stderr, mixed+": record 4 at byte ") {
		t.Fatalf("mixed: exit %d, stderr %q", code, stderr)
	}
}

// A 40 MiB record converted to Parquet checks clean and lists: its value
// is not copied into the statistics, whose footer the readers refused.
func TestConvertParquetLargeRecord(t *testing.T) {
	in := t.TempDir()
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	const size = 40 << 20
	big := make([]byte, size)
	rand.NewChaCha8([32]byte{3, 4}).Read(big)
	if err := w.Write(big); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("small")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(in, "big.rec")
	writeFile(t, src, b.Bytes())
	out := t.TempDir()
	if code, _, stderr := runCmd("convert", "--to", "parquet", "--out", out, "--prefix", "q", src); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	shard := filepath.Join(out, "q-00000.parquet")
	st, err := os.Stat(shard)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > size+1<<20 {
		t.Errorf("%d bytes for a record of %d", st.Size(), size)
	}
	if code, stdout, stderr := runCmd("check", shard); code != 0 || !strings.HasPrefix(stdout, shard+": Parquet: 2 rows") {
		t.Fatalf("check: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr := runCmd("ls", "--no-header", shard)
	if code != 0 || strings.Count(stdout, "\n") != 2 || !strings.Contains(stdout, "data:41943040:") {
		t.Fatalf("ls: exit %d, stdout %.300q, stderr %q", code, stdout, stderr)
	}
}

// A corrupt JPEG stops "convert --from images" as it stops "im2rec pack",
// with the file and "bad image", and leaves no shard.
func TestConvertImagesCorrupt(t *testing.T) {
	root, paths, _ := makeTree(t)
	bad := filepath.Join(root, filepath.FromSlash(paths[1]))
	writeFile(t, bad, []byte("\xff\xd8broken"))
	prefix := filepath.Join(t.TempDir(), "d")
	if code, _, stderr := runCmd("im2rec", "list", "--shuffle=false", prefix, root); code != 0 {
		t.Fatalf("im2rec list: %s", stderr)
	}
	code, _, packErr := runCmd("im2rec", "pack", prefix, root)
	if code != 1 || !strings.Contains(packErr, "bad image") {
		t.Fatalf("im2rec pack: exit %d, stderr %q", code, packErr)
	}
	for _, to := range []string{"recordio", "tfrecord", "wds", "parquet"} {
		for _, input := range [][]string{{root}, {prefix + ".lst", "--root", root}} {
			out := t.TempDir()
			args := append([]string{"convert", "--from", "images", "--workers", "2", "--to", to, "--out", out}, input...)
			code, stdout, stderr := runCmd(args...)
			if code != 1 || stdout != "" || !strings.Contains(stderr, bad+": decode: bad image") {
				t.Errorf("%s %q: exit %d, stdout %q, stderr %q", to, input, code, stdout, stderr)
			}
			if left := dirNames(t, out); len(left) != 0 {
				t.Errorf("%s: left %q", to, left)
			}
		}
	}
}
