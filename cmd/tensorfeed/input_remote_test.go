package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// A .lst object is checked as the local file is; a bad line is named by
// its URL and line.
func TestCheckListS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	lst := "0\t1\tcat/a.jpg\n1\t0\tdog/b.png\n2\t1\tcat/c.jpg\n"
	local := filepath.Join(t.TempDir(), "x.lst")
	writeFile(t, local, []byte(lst))
	url := s3.Put("data", "x.lst", []byte(lst))
	code, stdout, stderr := runS3(s3, "check", url)
	_, want, _ := runCmd("check", local)
	if code != 0 || want == "" || localVsRemote(stdout, url, local) != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	bad := s3.Put("data", "bad.lst", []byte("0\t1\ta.jpg\n1\t0\t../b.png\n"))
	if code, _, stderr := runS3(s3, "check", bad); code != 1 || !strings.HasPrefix(stderr, bad+": line 2: ") {
		t.Errorf("bad: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runS3(s3, "check", "--format", "lst", "s3://data/missing.lst"); code != 1 || !strings.HasPrefix(stderr, "s3://data/missing.lst: ") {
		t.Errorf("missing: exit %d, stderr %q", code, stderr)
	}
}

// convert --from mnist with a URL prefix and --from images with a .lst
// URL (its images beside it) write the same shards as from local files.
func TestConvertFromS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	dir := mnistDir(t)
	for _, n := range []string{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"} {
		s3.PutFile("data", "mnist/"+n, filepath.Join(dir, n))
	}
	sameShards := func(name string, local, remote []string, files ...string) {
		t.Helper()
		outL, outR := t.TempDir(), t.TempDir()
		common := []string{"convert", "--to", "recordio", "--prefix", "p", "--shard-records", "4000"}
		code, wantOut, stderr := runCmd(append(append(common, "--out", outL), local...)...)
		if code != 0 {
			t.Fatalf("%s local: exit %d: %s", name, code, stderr)
		}
		code, gotOut, stderr := runS3(s3, append(append(common, "--out", outR), remote...)...)
		if code != 0 || localVsRemote(gotOut, outR, outL) != wantOut {
			t.Fatalf("%s: exit %d, stdout %q (local %q), stderr %q", name, code, gotOut, wantOut, stderr)
		}
		for _, f := range files {
			a, errA := os.ReadFile(filepath.Join(outL, f))
			b, errB := os.ReadFile(filepath.Join(outR, f))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs (%v, %v)", name, f, errA, errB)
			}
		}
	}
	sameShards("mnist", []string{"--from", "mnist", "--split", "t10k", dir},
		[]string{"--from", "mnist", "--split", "t10k", "s3://data/mnist/"},
		"p-00000.rec", "p-00000.idx", "p-00002.rec", "p-00002.idx")
	if code, _, stderr := runS3(s3, "convert", "--from", "mnist", "--split", "train", "--to", "wds", "--out", t.TempDir(), "s3://data/mnist"); code != 1 || !strings.Contains(stderr, "s3://data/mnist: no train-images-idx3-ubyte") {
		t.Errorf("missing split: exit %d, stderr %q", code, stderr)
	}

	root, paths, _ := makeTree(t)
	lst := filepath.Join(t.TempDir(), "photos.lst")
	if code, _, stderr := runCmd("im2rec", "list", "--shuffle=false", strings.TrimSuffix(lst, ".lst"), root); code != 0 {
		t.Fatalf("im2rec list: %s", stderr)
	}
	s3.PutFile("data", "photos/photos.lst", lst)
	for _, p := range paths {
		s3.PutFile("data", "photos/"+filepath.ToSlash(p), filepath.Join(root, p))
	}
	sameShards("images", []string{"--from", "images", lst, "--root", root},
		[]string{"--from", "images", "s3://data/photos/photos.lst"}, "p-00000.rec", "p-00000.idx")
}
