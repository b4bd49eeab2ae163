package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// runS3 runs a command line in-process with the storage options of s3.
func runS3(s3 *storagetest.S3, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runEnv(context.Background(), args, &env{stdout: &out, stderr: &errb, storage: s3.Options()})
	return code, out.String(), errb.String()
}

// localVsRemote replaces every url in s with local, to compare a remote
// command's output with a local one's.
func localVsRemote(s, url, local string) string { return strings.ReplaceAll(s, url, local) }

// check reads image records and their index from S3, finds stale indexes
// and names missing objects.
func TestCheckS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	name := "mnist_t10k_1000_jpg"
	rec := s3.PutFile("data", "x.rec", filepath.Join(testdata, name+".rec"))
	s3.PutFile("data", "x.idx", filepath.Join(testdata, name+".idx"))
	code, stdout, stderr := runS3(s3, "check", rec)
	if code != 0 || !strings.HasPrefix(stdout, rec+": image records: 1000 records; ") || !strings.Contains(stdout, "index s3://data/x.idx matches") {
		t.Fatalf("check: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, want, _ := runCmd("check", filepath.Join(testdata, name+".rec"))
	if got := localVsRemote(stdout, "s3://data/x", filepath.Join(testdata, name)); got != want {
		t.Errorf("remote check %q, local %q", got, want)
	}

	// The .idx of another file beside the .rec.
	s3.PutFile("data", "y.rec", filepath.Join(testdata, name+".rec"))
	s3.PutFile("data", "y.idx", filepath.Join(testdata, "mnist_t10k_1000_png_gray.idx"))
	if code, _, stderr := runS3(s3, "check", "s3://data/y.rec"); code != 1 || !strings.HasPrefix(stderr, "s3://data/y.idx: ") {
		t.Errorf("stale index: exit %d, stderr %q", code, stderr)
	}
	// Other formats, detected from their first bytes.
	var tf bytes.Buffer
	tw := tfrecord.NewWriter(&tf)
	tw.Write([]byte("t0"))
	tw.Close()
	s3.Put("data", "t.data", tf.Bytes())
	if code, stdout, stderr := runS3(s3, "check", "s3://data/t.data"); code != 0 || !strings.HasPrefix(stdout, "s3://data/t.data: TFRecord: 1 records") {
		t.Errorf("tfrecord: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runS3(s3, "check", "s3://data/none.rec"); code != 1 || !strings.Contains(stderr, "s3://data/none.rec") || !strings.Contains(stderr, "404") {
		t.Errorf("missing object: exit %d, stderr %q", code, stderr)
	}
}

// ls lists S3 objects by a key glob and by a tagged URL as it lists the
// same local files.
func TestLsS3(t *testing.T) {
	dir := t.TempDir()
	var rec bytes.Buffer
	rw := recordio.NewWriter(&rec)
	rw.Write([]byte("r0"))
	rw.Write([]byte("r-one"))
	writeFile(t, filepath.Join(dir, "a.rec"), rec.Bytes())
	writeFile(t, filepath.Join(dir, "b.rec"), rec.Bytes())
	writeFile(t, filepath.Join(dir, "notes"), []byte("plain\ntext\n"))
	s3 := storagetest.NewS3(t, "data")
	for _, n := range []string{"a.rec", "b.rec", "notes"} {
		s3.PutFile("data", n, filepath.Join(dir, n))
	}
	code, stdout, stderr := runS3(s3, "ls", "s3://data/*.rec", "csv:s3://data/notes")
	_, want, _ := runCmd("ls", filepath.Join(dir, "*.rec"), "csv:"+filepath.Join(dir, "notes"))
	if code != 0 || strings.Count(stdout, "\n") != 7 || localVsRemote(stdout, "s3://data", dir) != want {
		t.Fatalf("exit %d, stderr %q\nstdout:\n%s\nlocal:\n%s", code, stderr, stdout, want)
	}
	code, stdout, _ = runS3(s3, "ls", "--format", "csv", "--no-header", "s3://data/notes")
	if code != 0 || !strings.HasPrefix(stdout, "s3://data/notes\t0\t0\t-\t5\t") {
		t.Fatalf("--format csv: exit %d, %q", code, stdout)
	}
	if code, _, stderr := runS3(s3, "ls", "s3://data/none.rec"); code != 1 || !strings.Contains(stderr, "s3://data/none.rec") {
		t.Fatalf("missing: exit %d, %q", code, stderr)
	}
}

// convert reads its registry inputs from S3: the shards equal those of the
// same local files.
func TestConvertS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	in := filepath.Join(testdata, "mnist_t10k_1000_png_gray.rec")
	s3.PutFile("data", "in/p.rec", in)
	s3.Put("data", "in/q.csv", []byte("x,1\ny,2\n"))
	remote, local := t.TempDir(), t.TempDir()
	code, stdout, stderr := runS3(s3, "convert", "--to", "tfrecord", "--out", remote, "--prefix", "r", "recordio:s3://data/in/*.rec", "s3://data/in/q.csv")
	if code != 0 || !strings.HasPrefix(stdout, "convert: 1002 records, 1 shard, ") {
		t.Fatalf("exit %d: %q %s", code, stdout, stderr)
	}
	writeFile(t, filepath.Join(local, "q.csv"), []byte("x,1\ny,2\n"))
	if code, _, stderr := runCmd("convert", "--to", "tfrecord", "--out", local, "--prefix", "r", "recordio:"+in, filepath.Join(local, "q.csv")); code != 0 {
		t.Fatalf("local: exit %d: %s", code, stderr)
	}
	a, err := os.ReadFile(filepath.Join(remote, "r-00000.tfrecord"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(local, "r-00000.tfrecord"))
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("remote and local shards differ (%d and %d bytes, %v)", len(a), len(b), err)
	}
}

// rec ls and rec cat read a .rec from S3 and over HTTP as from disk.
func TestRecS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	name := "mnist_t10k_1000_jpg_multilabel"
	local := filepath.Join(testdata, name+".rec")
	url := s3.PutFile("data", "m.rec", local)
	web := httptest.NewServer(http.FileServer(http.Dir(testdata)))
	defer web.Close()
	_, want, _ := runCmd("rec", "ls", local)
	for _, u := range []string{url, web.URL + "/" + name + ".rec"} {
		code, stdout, stderr := runS3(s3, "rec", "ls", u)
		if code != 0 || stdout != want {
			t.Fatalf("rec ls %s: exit %d, stderr %q, %d bytes of output, want %d", u, code, stderr, len(stdout), len(want))
		}
		_, img, _ := runCmd("rec", "cat", local, "999")
		code, stdout, stderr = runS3(s3, "rec", "cat", u, "999")
		if code != 0 || stdout != img || len(img) == 0 {
			t.Fatalf("rec cat %s: exit %d, stderr %q", u, code, stderr)
		}
	}
	if code, _, stderr := runS3(s3, "rec", "ls", "s3://data/none.rec"); code != 1 || !strings.Contains(stderr, "s3://data/none.rec") {
		t.Fatalf("missing: exit %d, %q", code, stderr)
	}
}

// The program reaches S3 through the standard environment variables:
// AWS_ENDPOINT_URL names the server, AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY the credentials.
func TestS3Environment(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(testdata, "mnist_t10k_1000_png_gray.rec"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := backend.PutObject("data", "g.rec", map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close) // closes the connections the program's client left idle
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_ACCESS_KEY_ID", "tensorfeed-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tensorfeed-test-secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("HOME", t.TempDir()) // no ~/.aws of the machine's
	_, want, _ := runCmd("rec", "ls", "--raw", filepath.Join(testdata, "mnist_t10k_1000_png_gray.rec"))
	code, stdout, stderr := runCmd("rec", "ls", "--raw", "s3://data/g.rec")
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %q, %d bytes of output, want %d", code, stderr, len(stdout), len(want))
	}
	code, stdout, stderr = runCmd("ls", "--no-header", "s3://data/*.rec")
	if code != 0 || strings.Count(stdout, "\n") != 1000 || !strings.HasPrefix(stdout, "s3://data/g.rec\t0\t0\t-\t") {
		t.Fatalf("ls: exit %d, stderr %q", code, stderr)
	}
}
