package webdataset_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
)

// Example writes a shard of captioned, labelled samples, then reads it
// back, decoding each sample's class and caption; the sample without a
// class is skipped by the bad-record policy.
func Example() {
	dir, err := os.MkdirTemp("", "webdataset")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	var shard bytes.Buffer
	w := webdataset.NewWriter(&shard)
	for i, caption := range []string{"a cat", "a dog", "a bird"} {
		fields := map[string][]byte{"txt": []byte(caption)}
		if i != 1 {
			fields["cls"] = fmt.Appendf(nil, "%d", i)
		}
		if err := w.Write(webdataset.Sample{Key: fmt.Sprintf("train/%06d", i), Fields: fields}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "shard-000000.tar")
	if err := os.WriteFile(path, shard.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	type labelled struct {
		Class   int
		Caption string
	}
	skip := source.SkipBad(0.5)
	r := webdataset.Decode(webdataset.Open(path, webdataset.Fields("cls", "txt"), webdataset.OnBad(skip)),
		func(s webdataset.Sample) (labelled, error) {
			c, err := s.Int("cls")
			if err != nil {
				return labelled{}, err
			}
			t, err := s.Text("txt")
			return labelled{c, t}, err
		})
	for s, err := range r.All(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.Class, s.Caption)
	}
	fmt.Println(skip.Skipped(), "skipped")
	// Output:
	// 0 a cat
	// 2 a bird
	// 1 skipped
}
