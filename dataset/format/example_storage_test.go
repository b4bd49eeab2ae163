package format_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Specs may be URLs: here files served over HTTP by a server on 127.0.0.1,
// one recognised from its first bytes, one named by its tag. s3:// specs
// are read the same way and may hold a key glob (s3://bucket/train-*.rec);
// storage.Endpoint and storage.Credentials go among the Storage options when
// the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...) does not name
// them.
func ExampleStorage() {
	srv := httptest.NewServer(http.FileServer(http.Dir("../imagerec/testdata")))
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	opt := format.Storage(storage.Transport(transport))

	specs := []string{
		srv.URL + "/mnist_t10k_1000_png_gray.rec",          // recognised: RecordIO
		"csv:" + srv.URL + "/mnist_t10k_1000_png_gray.lst", // tagged: the lines of a text file
	}
	counts := map[string]int{}
	for rec, err := range format.Open(specs, opt).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		counts[rec.Path[len(srv.URL):]]++
	}
	fmt.Println(counts)

	_, err := source.Collect(context.Background(), format.Open([]string{srv.URL + "/missing.rec"}, opt))
	fmt.Println("missing:", errors.Is(err, storage.ErrNotFound)) // the error names the URL
	// Output:
	// map[/mnist_t10k_1000_png_gray.lst:1000 /mnist_t10k_1000_png_gray.rec:1000]
	// missing: true
}
