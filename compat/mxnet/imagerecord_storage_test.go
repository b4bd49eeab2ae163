package mxnet

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
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// remoteData serves files from an in-process S3 server (gofakes3 over
// HTTP on 127.0.0.1, as package storagetest starts one) and testdata over
// HTTP. The S3 server is reached through opts, and through storage's
// defaults too (the AWS_* environment variables of the test), which is
// how the .rec and .idx files are read.
type remoteData struct {
	backend *s3mem.Backend
	opts    []storage.Option
	http    string // the HTTP server's URL: testdata's files under it
}

func newRemoteData(t *testing.T) *remoteData {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	s3 := httptest.NewServer(gofakes3.New(backend).Server())
	srv := httptest.NewServer(http.FileServer(http.Dir(testdata)))
	transport := &http.Transport{}
	t.Cleanup(func() {
		s3.Close()
		srv.Close()
		transport.CloseIdleConnections()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	})
	t.Setenv("AWS_ENDPOINT_URL", s3.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	return &remoteData{backend: backend, http: srv.URL, opts: []storage.Option{
		storage.Endpoint(s3.URL), storage.Credentials("test", "test-secret", ""), storage.Transport(transport)}}
}

// put stores the file at path as s3://data/key and returns that URL.
func (d *remoteData) put(t *testing.T, key, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	if _, err := d.backend.PutObject("data", key, meta, bytes.NewReader(b), int64(len(b)), nil); err != nil {
		t.Fatal(err)
	}
	return "s3://data/" + key
}

// passOf collects one pass of a new Iter over recPath.
func passOf(t *testing.T, recPath string, opts ...recOpt) []*tensor.Batch {
	t.Helper()
	it, err := newRec(recPath, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return pass(t, it)
}

// The test .rec files read from S3 (and over HTTP), in order and
// shuffled through their .idx, give the local batches bit for bit, with
// random crops and mirrors.
func TestRemoteBatchesMatchLocal(t *testing.T) {
	d := newRemoteData(t)
	base := []recOpt{oDataShape(3, 24, 24), oBatch(100), oLastBatch(batch.Pad),
		oSeed(9), oRandCrop(), oRandMirror(), oThreads(2), oStorage(d.opts...),
		oNormalize(augment.Normalize{Mean: [4]float32{120, 110, 100}, Std: [4]float32{60, 60, 60}})}
	with := func(more ...recOpt) []recOpt {
		return append(append([]recOpt(nil), base...), more...)
	}
	for _, name := range []string{mnistJPG, "mnist_t10k_1000_png_gray"} {
		rec, idx := d.put(t, "td/"+name+".rec", tdPath(name, ".rec")), d.put(t, "td/"+name+".idx", tdPath(name, ".idx"))
		want := passOf(t, tdPath(name, ".rec"), with()...)
		for _, u := range []string{rec, d.http + "/" + name + ".rec"} {
			if got := passOf(t, u, with()...); !sameBatches(got, want) {
				t.Errorf("%s: batches differ from the local ones", u)
			}
		}
		want = passOf(t, tdPath(name, ".rec"), with(oIndex(tdPath(name, ".idx")), oShuffle(3))...)
		if got := passOf(t, rec, with(oIndex(idx), oShuffle(3))...); !sameBatches(got, want) {
			t.Errorf("%s shuffled through %s: batches differ from the local ones", rec, idx)
		}
		want = passOf(t, tdPath(name, ".rec"), with(oIndex(tdPath(name, ".idx")), oShard(3, 1))...)
		if got := passOf(t, rec, with(oIndex("s3://data/td"), oShard(3, 1))...); !sameBatches(got, want) {
			t.Errorf("%s, shard 1 of 3, .idx by directory URL: batches differ from the local ones", rec)
		}
	}
}

// An s3:// directory prefix, a glob and a ";"-list are listed through
// storage with the Storage option; the .lst and the mean image are read
// from S3; the records read equal the local read of the same files.
func TestRemoteListsAndFiles(t *testing.T) {
	d := newRemoteData(t)
	dir := t.TempDir()
	names := []string{mnistJPG, "mnist_t10k_1000_png_gray"}
	for i, n := range names {
		// Local copies in the directory under the keys' names.
		b, err := os.ReadFile(tdPath(n, ".rec"))
		if err != nil {
			t.Fatal(err)
		}
		key := []string{"a", "b"}[i] + ".rec"
		if err := os.WriteFile(filepath.Join(dir, key), b, 0o644); err != nil {
			t.Fatal(err)
		}
		d.put(t, "set/"+key, tdPath(n, ".rec"))
	}
	d.put(t, "set/a.idx", tdPath(mnistJPG, ".idx")) // not a .rec: never listed
	d.put(t, "set/sub/c.rec", tdPath(mnistJPG, ".rec"))
	opts := []recOpt{oDataShape(3, 28, 28), oBatch(128), oStorage(d.opts...), oThreads(2)}
	want := passOf(t, dir, opts...)
	for _, arg := range []string{"s3://data/set", "s3://data/set/", "s3://data/set/*.rec", "s3://data/set/a.rec;s3://data/set/b.rec"} {
		if got := passOf(t, arg, opts...); !sameBatches(got, want) {
			t.Errorf("%s: batches differ from those of the local directory", arg)
		}
	}
	for _, bad := range []string{"s3://data/none", "s3://data/set/*.jpg"} {
		if _, err := newRec(bad, opts...); err == nil || !strings.Contains(err.Error(), "no .rec object") {
			t.Errorf("New(%s): %v", bad, err)
		}
	}
	if _, err := newRec(d.http+"/", opts...); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
		t.Errorf("New of an HTTP directory: %v", err)
	}

	// The .lst from S3 gives the labels the local one does.
	lst := d.put(t, "m.lst", tdPath(mnistJPG, ".lst"))
	got, err := imagerec.ReadList(lst, d.opts...)
	if err != nil {
		t.Fatal(err)
	}
	local, err := imagerec.ReadList(tdPath(mnistJPG, ".lst"))
	if err != nil || len(got) != len(local) || got[999].Path != local[999].Path {
		t.Fatalf("ReadList(%s): %d entries, local %d (%v)", lst, len(got), len(local), err)
	}
	rec := d.put(t, "m.rec", tdPath(mnistJPG, ".rec"))
	labelled := []recOpt{oDataShape(3, 28, 28), oBatch(128), oLabelWidth(1)}
	wantL := passOf(t, tdPath(mnistJPG, ".rec"), append(labelled, oList(tdPath(mnistJPG, ".lst")))...)
	if gotL := passOf(t, rec, append(labelled, oList(lst), oStorage(d.opts...))...); !sameBatches(gotL, wantL) {
		t.Error("batches labelled by a remote .lst differ from the local ones")
	}

	// A mean image saved locally and read back from S3.
	meanPath := filepath.Join(t.TempDir(), "mean.nd")
	gray := []recOpt{oDataShape(1, 28, 28), oBatch(500)}
	grayRec := tdPath("mnist_t10k_1000_png_gray", ".rec")
	wantM := passOf(t, grayRec, append(gray, oMeanImg(meanPath))...) // computes and saves it
	meanURL := d.put(t, "mean.nd", meanPath)
	if gotM := passOf(t, grayRec, append(gray, oMeanImg(meanURL), oStorage(d.opts...))...); !sameBatches(gotM, wantM) {
		t.Error("batches normalised by a remote mean image differ from the local ones")
	}
	_, err = newRec(grayRec, append(gray, oMeanImg("s3://data/nope.nd"), oStorage(d.opts...))...)
	if !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), "s3://data/nope.nd does not exist") {
		t.Errorf("missing remote mean image: %v", err)
	}
}

// The Storage option alone reaches the server (no AWS_* variables): the
// .rec and .idx read from S3, directly and through a cache, give the
// local batches, and the Iter keeps the reader contract.
func TestRemoteStorageOption(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	rec := s3.PutFile("data", "m.rec", tdPath(mnistJPG, ".rec"))
	idx := s3.PutFile("data", "m.idx", tdPath(mnistJPG, ".idx"))
	cache, err := storage.NewCache(filepath.Join(t.TempDir(), "cache"), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	base := []recOpt{oDataShape(3, 28, 28), oBatch(128), oSeed(2), oRandMirror(), oThreads(2)}
	with := func(more ...recOpt) []recOpt {
		return append(append([]recOpt(nil), base...), more...)
	}
	for _, sopts := range [][]storage.Option{s3.Options(), s3.Options(storage.WithCache(cache))} {
		want := passOf(t, tdPath(mnistJPG, ".rec"), with()...)
		if got := passOf(t, rec, with(oStorage(sopts...))...); !sameBatches(got, want) {
			t.Error("in order: batches differ from the local ones")
		}
		want = passOf(t, tdPath(mnistJPG, ".rec"), with(oIndex(tdPath(mnistJPG, ".idx")), oShuffle(4))...)
		if got := passOf(t, rec, with(oIndex(idx), oShuffle(4), oStorage(sopts...))...); !sameBatches(got, want) {
			t.Error("shuffled through the .idx: batches differ from the local ones")
		}
	}
	if used, err := cache.Used(); err != nil || used == 0 {
		t.Errorf("cache holds %d bytes (%v)", used, err)
	}
	// Without keep-alive: a pass cut short drops the connection of its
	// request, and the connection a later pass dials in its place would
	// stay in the pool, as a goroutine the contract's check counts.
	single := &http.Transport{DisableKeepAlives: true}
	defer single.CloseIdleConnections()
	it, err := newRec(rec, with(oIndex(idx), oShuffle(1), oStorage(s3.Options(storage.Transport(single))...))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := sourcetest.TestReader[*tensor.Batch](it); err != nil {
		t.Error(err)
	}
}

// A missing .rec or .idx is an error naming its URL.
func TestRemoteMissing(t *testing.T) {
	d := newRemoteData(t)
	opts := []recOpt{oDataShape(3, 28, 28), oBatch(128)}
	it, err := newRec(d.http+"/nope.rec", opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range it.All(context.Background()) {
		if !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), d.http+"/nope.rec") {
			t.Errorf("missing .rec: %v", err)
		}
		break
	}
	_, err = newRec(d.http+"/"+mnistJPG+".rec", append(opts, oIndex(d.http+"/nope.idx"))...)
	if !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), d.http+"/nope.idx") {
		t.Errorf("missing .idx: %v", err)
	}
}
