package format_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
)

// Open reads a mixed list of files: tagged ones by their tag, the rest
// recognised from their first bytes.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "format-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	var rec bytes.Buffer
	rw := recordio.NewWriter(&rec)
	for _, s := range []string{"cat", "dog"} {
		if err := rw.Write([]byte(s)); err != nil {
			panic(err)
		}
	}
	var tf bytes.Buffer
	tw := tfrecord.NewWriter(&tf)
	if err := tw.Write([]byte("bird")); err != nil {
		panic(err)
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	for name, data := range map[string][]byte{
		"train-0.rec":    rec.Bytes(),
		"part.tfrecord":  tf.Bytes(),
		"labels.csv":     []byte("cat,0\ndog,1\n"),
		"untagged.bytes": rec.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			panic(err)
		}
	}

	r := format.Open([]string{
		"recordio:" + filepath.Join(dir, "train-*.rec"),
		"tfrecord:" + filepath.Join(dir, "*.tfrecord"),
		"csv:" + filepath.Join(dir, "labels.csv"),
		filepath.Join(dir, "untagged.bytes"),
	})
	for rec, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s record %d at %d: %s\n", filepath.Base(rec.Path), rec.Index, rec.Offset, rec.Data)
	}
	// Output:
	// train-0.rec record 0 at 0: cat
	// train-0.rec record 1 at 12: dog
	// part.tfrecord record 0 at 0: bird
	// labels.csv record 0 at 0: cat,0
	// labels.csv record 1 at 6: dog,1
	// untagged.bytes record 0 at 0: cat
	// untagged.bytes record 1 at 12: dog
}

// A user format is registered under a name, which is also its tag.
func ExampleRegistry_Register() {
	format.Default().Register("lengths", format.Format{
		// No Detect: the format is used only through its tag.
		Open: func(path string, bad *source.SkipPolicy) source.Reader[format.Record] {
			return format.CSV(0).Open(path, bad)
		},
	})
	_, ok := format.Default().Lookup("lengths")
	fmt.Println(ok)
	// Output: true
}

// SkipBad lets a pass over several files step over bad records: here a
// TFRecord record whose checksum fails and a CSV line over the maximum.
func ExampleSkipBad() {
	dir, err := os.MkdirTemp("", "format-skip")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	var tf bytes.Buffer
	tw := tfrecord.NewWriter(&tf)
	for _, s := range []string{"bird", "fish"} {
		if err := tw.Write([]byte(s)); err != nil {
			panic(err)
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	data := tf.Bytes()
	data[len(data)-5] ^= 0xff // the last byte of "fish": its checksum fails
	long := bytes.Repeat([]byte("x"), 1<<20+1)
	csv := append(append([]byte("cat,0\n"), long...), "\ndog,1\n"...)
	for name, b := range map[string][]byte{"part.tfrecord": data, "labels.csv": csv} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			panic(err)
		}
	}

	var skipped []error // appended to by the reading goroutine, which the pass joins
	skip := source.SkipBad(0.5, source.OnSkip(func(err error) { skipped = append(skipped, err) }))
	r := format.Open([]string{filepath.Join(dir, "part.tfrecord"), filepath.Join(dir, "labels.csv")}, format.OnBad(skip))
	for rec, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s: %s\n", filepath.Base(rec.Path), rec.Data)
	}
	fmt.Println(skip.Skipped(), "bad records skipped:")
	for _, err := range skipped {
		fmt.Println(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
	}
	// Output:
	// part.tfrecord: bird
	// labels.csv: cat,0
	// labels.csv: dog,1
	// 2 bad records skipped:
	// part.tfrecord: record 1 at byte 20: tfrecord: bad format: data checksum mismatch: stored 0x86bb413a, computed 0xe51df770
	// labels.csv: line 2 at byte 6: format: line longer than the configured maximum
}
