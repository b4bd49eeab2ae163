package format_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// noKeepAlive is a storage option for the passes that sourcetest.TestReader
// checks for goroutines left running: without idle connections, a pass
// leaves none behind (a connection the read-ahead opens in a pass would
// otherwise stay in the pool).
func noKeepAlive(t *testing.T) storage.Option {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return storage.Transport(tr)
}

// putDir stores every file of dir in bucket "data" under its name.
func putDir(t *testing.T, s3 *storagetest.S3, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		s3.PutFile("data", e.Name(), filepath.Join(dir, e.Name()))
	}
}

// Every built-in format (but parquet) recognised from the first bytes of
// S3 objects listed by a key glob, read as the local files are.
func TestS3Detected(t *testing.T) {
	dir := t.TempDir()
	writeRec(t, dir, "a.rec", "r0", "r1")
	writeTF(t, dir, "b.bin", "t0")
	writeWDS(t, dir, "c.tar", "k0", "k1")
	writeIDX(t, dir, "d.data", 7, 8)
	writeFile(t, dir, "e.txt", func(b *bytes.Buffer) { b.WriteString("x,1\r\ny,2\nz,3") })
	s3 := storagetest.NewS3(t, "data")
	putDir(t, s3, dir)
	r := format.Open([]string{"s3://data/*"}, format.Storage(s3.Options(noKeepAlive(t))...))
	got := collect(t, r)
	if want := "r0 r1 t0 k0=tk0 k1=tk1 \x07 \x08 x,1 y,2 z,3"; payloads(got) != want {
		t.Fatalf("payloads %q, want %q", payloads(got), want)
	}
	if last := got[len(got)-1]; last.Path != "s3://data/e.txt" || last.Index != 2 || last.Offset != 9 {
		t.Fatalf("last record %+v", last)
	}
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
}

// A mixed list: tagged and untagged S3 objects, globs and plain keys, an
// http:// URL and a local file, read in the order of the specs, two at a
// time too; the storage options (a cache here) reach every format.
func TestS3MixedSpecs(t *testing.T) {
	dir := t.TempDir()
	writeRec(t, dir, "a.rec", "r0")
	writeTF(t, dir, "t1.tfr", "t1")
	writeTF(t, dir, "t2.tfr", "t2")
	writeFile(t, dir, "notes", func(b *bytes.Buffer) { b.WriteString("plain\ntext\n") })
	writeWDS(t, dir, "w.tar", "k0")
	writeIDX(t, dir, "i.idx", 9)
	s3 := storagetest.NewS3(t, "data")
	putDir(t, s3, dir)
	web := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer web.Close()
	local := filepath.Join(dir, "a.rec")
	specs := []string{
		"recordio:s3://data/a.rec", // tagged
		"s3://data/t*.tfr",         // untagged glob, detected
		"csv:s3://data/notes",      // tagged: plain text without a comma
		web.URL + "/w.tar",         // http, detected
		"idx:" + web.URL + "/i.idx",
		local,
	}
	cache, err := storage.NewCache(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	r := format.Open(specs, format.Storage(s3.Options(storage.WithCache(cache), noKeepAlive(t))...))
	got := collect(t, r)
	if want := "r0 t1 t2 plain text k0=tk0 \x09 r0"; payloads(got) != want {
		t.Fatalf("payloads %q, want %q", payloads(got), want)
	}
	wantPaths := []string{"s3://data/a.rec", "s3://data/t1.tfr", "s3://data/t2.tfr", "s3://data/notes", "s3://data/notes",
		web.URL + "/w.tar", web.URL + "/i.idx", local}
	for i, rec := range got {
		if rec.Path != wantPaths[i] {
			t.Errorf("record %d from %q, want %q", i, rec.Path, wantPaths[i])
		}
	}
	if used, err := cache.Used(); err != nil || used == 0 {
		t.Errorf("the cache holds %d bytes (%v): the formats did not read through it", used, err)
	}
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
	r2 := format.Open(specs, format.Storage(s3.Options(noKeepAlive(t))...), format.Workers(2))
	if got := collect(t, r2); len(got) != 8 {
		t.Fatalf("two workers: %d records", len(got))
	}
	if err := sourcetest.TestReader(r2, sourcetest.Nondeterministic()); err != nil {
		t.Fatal(err)
	}
}

// Missing objects and empty listings are errors that name the URL.
func TestS3Errors(t *testing.T) {
	dir := t.TempDir()
	writeRec(t, dir, "a.rec", "r0")
	s3 := storagetest.NewS3(t, "data")
	putDir(t, s3, dir)
	ctx := context.Background()
	for _, spec := range []string{"s3://data/none.rec", "recordio:s3://data/none.rec"} {
		_, err := source.Collect(ctx, format.Open([]string{"s3://data/a.rec", spec}, format.Storage(s3.Options()...)))
		var se *tensorfeed.Error
		if !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || se.Path != "s3://data/none.rec" {
			t.Errorf("%s: %v, want a not-found error naming the URL", spec, err)
		}
	}
	_, err := source.Collect(ctx, format.Open([]string{"s3://data/none-*.rec"}, format.Storage(s3.Options()...)))
	if !errors.Is(err, format.ErrSpec) || !strings.Contains(err.Error(), "s3://data/none-*.rec") {
		t.Errorf("empty glob: %v", err)
	}
	_, err = source.Collect(ctx, format.Open([]string{"s3://nobucket/*.rec"}, format.Storage(s3.Options()...)))
	if err == nil || errors.Is(err, format.ErrSpec) || !strings.Contains(err.Error(), "s3://nobucket/*.rec") {
		t.Errorf("listing a missing bucket: %v", err)
	}
	// An untagged URL's scheme is not a tag, whatever is registered.
	reg := new(format.Registry)
	reg.Register("s3", format.RecordIO())
	reg.Register("recordio", format.RecordIO())
	got, err := source.Collect(ctx, format.Open([]string{"s3://data/a.rec"}, format.WithRegistry(reg), format.Storage(s3.Options()...)))
	if err != nil || len(got) != 1 || got[0].Path != "s3://data/a.rec" {
		t.Errorf("a registered s3 format: %v %+v", err, got)
	}
}

// Bad records of remote files are skipped under a policy as local ones
// are: the policy's readers go through storage too.
func TestS3SkipBad(t *testing.T) {
	dir := t.TempDir()
	specs, _ := badFiles(t, dir)
	s3 := storagetest.NewS3(t, "data")
	putDir(t, s3, dir)
	local := collect(t, format.Open(specs, format.OnBad(source.SkipBad(0.5))))
	skip := format.OnBad(source.SkipBad(0.5))
	r := format.Open([]string{"s3://data/*.tfrecord", "s3://data/*.csv"}, format.Storage(s3.Options()...), skip)
	remote := collect(t, r)
	if payloads(remote) != payloads(local) || len(remote) != 11 {
		t.Fatalf("remote %q, local %q", payloads(remote), payloads(local))
	}
	_, err := source.Collect(context.Background(), format.Open([]string{"s3://data/b.tfrecord"}, format.Storage(s3.Options()...)))
	if !errors.Is(err, tfrecord.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), "s3://data/b.tfrecord") {
		t.Fatalf("without a policy: %v", err)
	}
}

// The default registry reads Parquet files, recognised or tagged, local
// and from S3.
func TestDefaultParquet(t *testing.T) {
	dir := t.TempDir()
	a := writeParquet(t, dir, "a.parquet", 5)
	b := writeParquet(t, dir, "b.data", 3)
	r := format.Open([]string{a, "parquet:" + b})
	got := collect(t, r)
	if len(got) != 8 || got[7].Path != b || string(got[7].Fields["name"]) != "c" {
		t.Fatalf("%d records: %+v", len(got), got)
	}
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
	s3 := storagetest.NewS3(t, "data")
	s3.PutFile("data", "a.parquet", a)
	s3.PutFile("data", "b.data", b)
	rr := format.Open([]string{"s3://data/*.parquet", "parquet:s3://data/b.data"}, format.Storage(s3.Options(noKeepAlive(t))...))
	remote := collect(t, rr)
	if len(remote) != 8 || remote[7].Path != "s3://data/b.data" {
		t.Fatalf("remote: %d records: %+v", len(remote), remote)
	}
	for i := range got {
		if remote[i].Index != got[i].Index || remote[i].Offset != got[i].Offset || string(remote[i].Fields["name"]) != string(got[i].Fields["name"]) {
			t.Fatalf("record %d: remote %+v, local %+v", i, remote[i], got[i])
		}
	}
	if err := sourcetest.TestReader(rr); err != nil {
		t.Fatal(err)
	}
}
