package webdataset_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Shards in an S3 bucket, listed by a key glob and read in order. The
// server here is an in-process S3 (gofakes3 on 127.0.0.1); for Amazon S3
// or MinIO the endpoint and credentials usually come from the environment
// (AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...) and Storage needs no
// option at all.
func ExampleStorage() {
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		log.Fatal(err)
	}
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	for i := range 3 {
		var shard bytes.Buffer
		w := webdataset.NewWriter(&shard)
		for j := range 2 {
			key := fmt.Sprintf("train/%06d", 2*i+j)
			if err := w.Write(webdataset.Sample{Key: key, Fields: map[string][]byte{"txt": []byte("sample " + key)}}); err != nil {
				log.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
		name := fmt.Sprintf("train/shard-%06d.tar", i)
		if _, err := backend.PutObject("data", name, meta, &shard, int64(shard.Len()), nil); err != nil {
			log.Fatal(err)
		}
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	opts := []storage.Option{storage.Endpoint(srv.URL), storage.Credentials("key", "secret", ""), storage.Transport(transport)}

	ctx := context.Background()
	shards, err := storage.List(ctx, "s3://data/train/shard-*.tar", opts...)
	if err != nil {
		log.Fatal(err)
	}
	for s, err := range webdataset.Open(strings.Join(shards, ";"), webdataset.Storage(opts...)).All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		b, _ := s.Bytes("txt")
		txt := string(b)
		fmt.Println(s.Shard, s.Key, txt)
	}
	// Output:
	// s3://data/train/shard-000000.tar train/000000 sample train/000000
	// s3://data/train/shard-000000.tar train/000001 sample train/000001
	// s3://data/train/shard-000001.tar train/000002 sample train/000002
	// s3://data/train/shard-000001.tar train/000003 sample train/000003
	// s3://data/train/shard-000002.tar train/000004 sample train/000004
	// s3://data/train/shard-000002.tar train/000005 sample train/000005
}
