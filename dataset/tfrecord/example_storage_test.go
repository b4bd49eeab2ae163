package tfrecord_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/storage"
)

// A gzip-compressed TFRecord file read over HTTP (here a server on
// 127.0.0.1 that answers Range requests, as object stores do). s3:// URLs
// are read the same way.
func ExampleStorage() {
	var file bytes.Buffer
	w := tfrecord.NewWriter(&file, tfrecord.GzipLevel(gzip.DefaultCompression))
	for _, s := range []string{"first", "second", "third"} {
		if err := w.Write([]byte(s)); err != nil {
			fmt.Println(err)
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		http.ServeContent(rw, r, "train.tfrecord.gz", time.Unix(0, 0), bytes.NewReader(file.Bytes()))
	}))
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()

	r := tfrecord.Open(srv.URL+"/train.tfrecord.gz", tfrecord.Storage(storage.Transport(transport)))
	for rec, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rec.Index, string(rec.Data))
	}
	// Output:
	// 0 first
	// 1 second
	// 2 third
}
