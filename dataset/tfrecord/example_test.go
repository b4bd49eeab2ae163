package tfrecord_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
)

// Write tf.train.Example records to a gzip-compressed TFRecord file, then
// read them back as a pass of a source.Reader.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "tfrecord")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "train.tfrecord.gz")

	f, _ := os.Create(path)
	w := tfrecord.NewWriter(f, tfrecord.GzipLevel(gzip.DefaultCompression))
	for i := range 3 {
		var ex tfrecord.Example
		ex.SetFloat32s("image", float32(i), float32(i)/2)
		ex.SetInt64s("label", int64(i%2))
		if err := w.Write(ex.Marshal()); err != nil {
			fmt.Println(err)
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}
	f.Close()

	for rec, err := range tfrecord.Open(path).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		ex, err := rec.Example()
		if err != nil {
			fmt.Println(err)
			return
		}
		image, _ := ex.Float32s("image")
		label, _ := ex.Int64s("label")
		fmt.Println(rec.Index, image, label)
	}
	// Output:
	// 0 [0 0] [0]
	// 1 [1 0.5] [1]
	// 2 [2 1] [0]
}

// A feature of another kind than asked for is an error that names it.
func ExampleExample_Float32s() {
	var ex tfrecord.Example
	ex.SetInt64s("label", 3)
	_, err := ex.Float32s("label")
	fmt.Println(err)
	// Output:
	// member "label": tfrecord: feature of another kind: holds a int64_list, not a float_list
}

// An Example with more bytes_list and int64_list values than the limit is
// refused before anything is allocated for it; the limit is raised for
// data that needs it.
func ExampleMaxValues() {
	var ex tfrecord.Example
	ex.SetInt64s("ids", make([]int64, 1000)...)
	rec := tfrecord.Record{File: "tokens.tfrecord", Offset: 0, Index: 0, Data: ex.Marshal()}

	_, err := rec.Example(tfrecord.MaxValues(100))
	fmt.Println(err)
	fmt.Println("too large:", errors.Is(err, tfrecord.ErrTooLarge))

	got, err := rec.Example(tfrecord.MaxValues(1000))
	ids, _ := got.Int64s("ids")
	fmt.Println(len(ids), err)
	// Output:
	// tokens.tfrecord: record 0 at byte 0: member "ids": byte 17 of its tf.train.Example: tfrecord: tf.train.Example over a limit: more than 100 bytes_list and int64_list values (MaxValues)
	// too large: true
	// 1000 <nil>
}
