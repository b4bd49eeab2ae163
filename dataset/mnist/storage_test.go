package mnist_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// collectSamples reads one pass of r.
func collectSamples(t *testing.T, r source.Reader[mnist.Sample]) []mnist.Sample {
	t.Helper()
	got, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wantSame(t *testing.T, what string, got, want []mnist.Sample) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d samples, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Fatalf("%s: sample %d (index %d, label %d) differs from the local read (index %d, label %d)",
				what, i, got[i].Index, got[i].Label, want[i].Index, want[i].Label)
		}
	}
}

// The test set read from S3, gzipped or plain, found by its names under a
// URL prefix, equals the local read, in order and shuffled.
func TestRemoteT10kMatchesLocal(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	for _, n := range []string{"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"} {
		s3.PutFile("data", "gz/"+n+".gz", gz(n))
		// Dotted plain names: the prefix's earlier candidates are missing.
		s3.Put("data", "plain/"+strings.Replace(n, "-idx", ".idx", 1), gunzipBytes(t, n))
	}
	_, t10k := tables(t)
	want := samplesOf(t, t10k)
	wantShuffled := collectSamples(t, source.ReadIndexed(t10k, source.ShuffleIndex(7)))
	for _, prefix := range []string{"s3://data/gz", "s3://data/plain/"} {
		for _, ra := range []storage.Option{nil, storage.ReadAhead(3, 65539)} {
			opts := mnist.Storage(s3.Options(ra)...)
			wantSame(t, prefix, collectSamples(t, mnist.Test(prefix, opts)), want)
			tab, err := mnist.Test(prefix, opts).Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			wantSame(t, prefix+" shuffled", collectSamples(t, source.ReadIndexed(tab, source.ShuffleIndex(7))), wantShuffled)
		}
	}
	images, labels := "s3://data/gz/t10k-images-idx3-ubyte.gz", "s3://data/gz/t10k-labels-idx1-ubyte.gz"
	// Without keep-alive: a pass cut short drops the connections of its
	// requests, and the connections a later pass dials in their place
	// would stay in the pool, as goroutines the contract's check counts.
	single := &http.Transport{DisableKeepAlives: true}
	defer single.CloseIdleConnections()
	contract := mnist.Storage(s3.Options(storage.Transport(single))...)
	if err := sourcetest.TestReader(stageTake(mnist.New(images, labels, contract), 500)); err != nil {
		t.Error(err)
	}
}

// The decoded-file cache keys a remote file by its URL, size and ETag: an
// object rewritten with the same size is decoded again.
func TestRemoteCacheKeyedByETag(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	images := s3.Put("data", "images", gunzipBytes(t, "t10k-images-idx3-ubyte"))
	labels := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	labelsURL := s3.Put("data", "labels", labels)
	ds := mnist.New(images, labelsURL, mnist.Storage(s3.Options()...))
	load := func() []mnist.Sample {
		tab, err := ds.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return samplesOf(t, tab)
	}
	first := load()
	if second := load(); &second[0].Image[0] != &first[0].Image[0] {
		t.Error("a second Load of the same object decoded it again")
	}

	changed := bytes.Clone(labels)
	changed[8] = (changed[8] + 1) % 10 // the first label, same size
	s3.Put("data", "labels", changed)
	again := load()
	if &again[0].Image[0] == &first[0].Image[0] {
		t.Error("the decoded set of the old object was reused")
	}
	for _, s := range again {
		if s.Index == 0 {
			if s.Label != changed[8] {
				t.Fatalf("label 0 after the object changed: %d, want %d (a stale decoded set)", s.Label, changed[8])
			}
			return
		}
	}
	t.Fatal("sample 0 not read")
}

// A missing object is named by its URL and wraps storage.ErrNotFound;
// Train and Test name every candidate they tried.
func TestRemoteMissing(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	labels := s3.PutFile("data", "labels.gz", gz("t10k-labels-idx1-ubyte"))
	_, err := source.Count(context.Background(), mnist.New("s3://data/nope-images", labels, mnist.Storage(s3.Options()...)))
	var se *tensorfeed.Error
	if !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || se.Path != "s3://data/nope-images" {
		t.Errorf("missing object: %v", err)
	}
	_, err = mnist.Train("s3://data/mnist", mnist.Storage(s3.Options()...)).Load(context.Background())
	if !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), "s3://data/mnist/train-images-idx3-ubyte.gz") {
		t.Errorf("missing training set: %v", err)
	}
}

// serveData serves data/mnist over HTTP (with Range requests) on
// 127.0.0.1, closed when the test ends, with the default transport's idle
// connections.
func serveData(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dataDir)))
	t.Cleanup(func() {
		srv.Close()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	})
	return srv.URL
}

// Test reads a folder served over http:// through storage's defaults, as
// it reads a local one.
func TestHTTPFiles(t *testing.T) {
	base := serveData(t)
	_, t10k := tables(t)
	wantSame(t, "http", collectSamples(t, mnist.Test(base)), samplesOf(t, t10k))
}

// Storage reads the MNIST files under a URL prefix, here from an HTTP
// server on 127.0.0.1 that serves the repository's data/mnist: the plain
// names are missing there, and the .gz files are found next.
func ExampleStorage() {
	srv := httptest.NewServer(http.FileServer(http.Dir(dataDir)))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	test := mnist.Test(srv.URL, mnist.Storage(storage.Transport(tr)))
	n, err := source.Count(context.Background(), test)
	fmt.Println(n, err)
	// Output: 10000 <nil>
}
