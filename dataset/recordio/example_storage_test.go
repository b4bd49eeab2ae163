package recordio_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Records and their index read over HTTP: any server that answers Range
// requests will do (here Go's file server on 127.0.0.1). s3:// URLs are
// read the same way, with storage.Endpoint and storage.Credentials among
// the Storage options when the environment does not name them.
func ExampleStorage() {
	srv := httptest.NewServer(http.FileServer(http.Dir("../imagerec/testdata")))
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	opt := recordio.Storage(storage.Transport(transport))
	url := srv.URL + "/mnist_t10k_1000_png_gray.rec"

	n := 0
	for _, err := range recordio.Open(url, opt).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Println(n, "records read in order")

	f, err := recordio.OpenIndexed(context.Background(), url, opt) // the .idx beside it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rec, err := f.Get(999)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Len(), "index entries; the last record holds", len(rec), "bytes")

	_, err = recordio.ReadIndex(context.Background(), srv.URL+"/missing.idx", opt)
	fmt.Println("missing index:", errors.Is(err, storage.ErrNotFound)) // the error names the URL
	// Output:
	// 1000 records read in order
	// 1000 index entries; the last record holds 291 bytes
	// missing index: true
}
