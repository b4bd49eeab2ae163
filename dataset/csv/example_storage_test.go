package csv_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Data and label files read over HTTP (here Go's file server on
// 127.0.0.1; any server that answers Range requests will do). s3:// URLs
// are read the same way.
func ExampleStorage() {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()

	r := csv.New(srv.URL+"/iris_data.csv", csv.DataShape(4), csv.LabelFile(srv.URL+"/iris_label.csv"),
		csv.Storage(storage.Transport(transport)))
	rows, err := source.Collect(context.Background(), r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(rows), "rows; the last:", rows[149].Data, rows[149].Label)
	// Output:
	// 150 rows; the last: [5.9 3 5.1 1.8] [2]
}
