package main

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

// wdsShard writes a shard of samples keyed keys, each with a .cls and a
// .txt, and returns its bytes.
func wdsShard(t *testing.T, keys ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := webdataset.NewWriter(&b)
	for _, k := range keys {
		if err := w.Write(webdataset.Sample{Key: k, Fields: map[string][]byte{"cls": []byte("1"), "txt": []byte("t" + k)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Tar archives joined end to end: check, ls and convert read the samples
// before the end-of-archive blocks and then fail, naming the shard and the
// offset of what follows them, instead of stopping there with exit 0.
func TestWDSJoinedArchives(t *testing.T) {
	dir := t.TempDir()
	a, b := wdsShard(t, "k0", "k1"), wdsShard(t, "k2", "k3")
	p := filepath.Join(dir, "joined.tar")
	if err := os.WriteFile(p, append(bytes.Clone(a), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	where := p + ": byte " + strconv.Itoa(len(a))
	for _, args := range [][]string{
		{"check", p},
		{"ls", p},
		{"convert", "--to", "tfrecord", "--out", filepath.Join(dir, "out"), "--prefix", "x", p},
	} {
		code, stdout, stderr := runCmd(args...)
		if code != 1 || !strings.Contains(stderr, where) || !strings.Contains(stderr, "after the end of the archive") {
			t.Errorf("%s: exit %d, stderr %q, want exit 1 naming %q", args[0], code, stderr, where)
		}
		if args[0] == "ls" && strings.Count(stdout, "\n") != 3 {
			t.Errorf("ls: %q, want the header and the two samples before the end blocks", stdout)
		}
	}
}

// A sample split across two shards named one after the other is refused
// by check, ls and convert (the last two through dataset/format) as
// webdataset.Open refuses it; shards that do not split a sample, or
// with another file between them, pass.
func TestWDSSplitAcrossShards(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tar"), filepath.Join(dir, "b.tar")
	if err := os.WriteFile(a, wdsShard(t, "k0", "k1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, wdsShard(t, "k1", "k2"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", a, b},
		{"ls", a, b},
		{"convert", "--to", "wds", "--out", filepath.Join(dir, "out"), "--prefix", "x", a, b},
	} {
		code, _, stderr := runCmd(args...)
		if code != 1 || !strings.Contains(stderr, b+": byte 0") || !strings.Contains(stderr, `key "k1" ends shard `+a) {
			t.Errorf("%s: exit %d, stderr %q, want the split sample refused", args[0], code, stderr)
		}
	}
}

// convert --to wds refuses a sample whose member names would extract
// outside the target folder, as im2rec refuses such image paths.
func TestConvertWDSUnsafeNames(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"../evil.txt", "/etc/evil.txt", "a/../../evil.txt"} {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: 1})
		tw.Write([]byte("x"))
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "in"+strconv.Itoa(i)+".tar")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCmd("convert", "--to", "wds", "--out", filepath.Join(dir, "out"+strconv.Itoa(i)), "--prefix", "x", p)
		if code != 1 || !strings.Contains(stderr, "sample cannot be written") || !strings.Contains(stderr, strconv.Quote(strings.TrimSuffix(name, ".txt"))) {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
}

// check judges the seam only between WebDataset shards checked one after
// the other, as format.Open does.
func TestCheckWDSSeams(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for n, keys := range map[string][]string{"a.tar": {"k0", "k1"}, "b.tar": {"k1", "k2"}, "c.tar": {"k3"}, "empty.tar": nil} {
		if err := os.WriteFile(p(n), wdsShard(t, keys...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p("x.csv"), []byte("1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files []string
		code  int
	}{
		{[]string{"a.tar", "b.tar"}, 1},
		{[]string{"a.tar", "empty.tar", "b.tar"}, 1},
		{[]string{"b.tar", "a.tar"}, 0},
		{[]string{"a.tar", "c.tar", "b.tar"}, 0},
		{[]string{"a.tar", "x.csv", "b.tar"}, 0},
	} {
		args := []string{"check"}
		for _, f := range tc.files {
			args = append(args, p(f))
		}
		code, _, stderr := runCmd(args...)
		if code != tc.code || tc.code == 1 && !strings.Contains(stderr, "sample split") {
			t.Errorf("check %v: exit %d, want %d; stderr %q", tc.files, code, tc.code, stderr)
		}
	}
}

// Shards checked together by the registry report in the order of the
// files, and a file of unknown format after them is reported after them.
func TestCheckWDSReportOrder(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for n, keys := range map[string][]string{"a.tar": {"k0", "k1"}, "b.tar": {"k1", "k2"}} {
		if err := os.WriteFile(p(n), wdsShard(t, keys...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p("junk"), []byte{0xde, 0xad, 0xbe, 0xef}, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd("check", p("a.tar"), p("b.tar"), p("junk"))
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], p("b.tar")+":") || !strings.Contains(lines[0], "sample split") ||
		!strings.HasPrefix(lines[1], p("junk")+":") || !strings.HasPrefix(stdout, p("a.tar")+": WebDataset: 2 samples") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
