package imagerec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
)

// Checking a .rec file as a validation tool would: the index against the
// file, then every image decoded in bounded memory, listing every bad
// record instead of stopping at the first. Here the third of five MNIST
// records is replaced by a JPEG header that claims an 8000 x 8000
// progressive image.
func ExampleDecode_check() {
	rec, _, remove, err := writeExampleRec()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer remove()

	f, err := recordio.OpenIndexed(context.Background(), rec) // data.idx beside it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	if err := f.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	d := imagerec.Decode(recordio.Open(rec), decode.Go(), decode.Options{MaxBytes: 64 << 20},
		source.SkipBad(1, source.OnSkip(func(err error) {
			fmt.Println("bad:", filepath.Base(err.(*tensorfeed.Error).Path), err.(*tensorfeed.Error).Err)
		})),
	)
	good := 0
	for _, err := range d.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		good++
	}
	fmt.Println(good, "good,", d.(source.SkipCounted).Skipped(), "bad")
	// Output:
	// bad: data.rec decode: bad image: jpeg: 8000x8000 progressive 3-component image: decoding needs about 1099 MiB, more than the bound of 64 MiB (MaxDecodeBytes)
	// 4 good, 1 bad
}

// writeExampleRec writes five MNIST records, the third a bomb, and their
// index, data.rec and data.idx, into a new temporary directory, and
// returns their paths and a function that removes the directory.
func writeExampleRec() (rec, idx string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		return "", "", nil, err
	}
	rec, idx = filepath.Join(dir, "data.rec"), filepath.Join(dir, "data.idx")
	if err := writeExampleIndexed(rec, idx); err != nil {
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	return rec, idx, func() { os.RemoveAll(dir) }, nil
}

// writeExampleIndexed writes the records of writeExampleRec to rec and
// their index to idx.
func writeExampleIndexed(rec, idx string) error {
	src, err := source.Collect(context.Background(), recordio.Open("testdata/mnist_t10k_1000_jpg.rec"))
	if err != nil {
		return err
	}
	out, err := os.Create(rec)
	if err != nil {
		return err
	}
	defer out.Close()
	w := recordio.NewWriter(out)
	var lines []byte
	for i, r := range src[:5] {
		payload := r.Data
		if i == 2 {
			h, _, err := imagerec.ParseRecord(r.Data)
			if err != nil {
				return err
			}
			payload = imagerec.AppendRecord(nil, h, fixture.JPEGBomb(8000, 8000, true))
		}
		lines = recordio.AppendIndexLine(lines, int64(i), w.Tell())
		if err := w.Write(payload); err != nil {
			return err
		}
	}
	return os.WriteFile(idx, lines, 0o644)
}
