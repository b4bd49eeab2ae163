package recordio_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

func ExampleWriter() {
	var file, idx bytes.Buffer
	w := recordio.NewWriter(&file)
	for key, payload := range []string{"hello", "", "\x0a\x23\xd7\xce split at the magic"} {
		idx.Write(recordio.AppendIndexLine(nil, int64(key), w.Tell()))
		if err := w.Write([]byte(payload)); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("%d bytes\n%s", file.Len(), idx.String())
	// Output:
	// 60 bytes
	// 0	0
	// 1	16
	// 2	24
}

func ExampleReader() {
	f, err := os.Open("../imagerec/testdata/multipart_edge_cases.rec")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rd := recordio.NewReader(f, f.Name())
	for range 4 {
		payload, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("offset %3d: %q\n", rd.Offset(), payload)
	}
	// Output:
	// offset   0: "hello"
	// offset  16: ""
	// offset  24: "\n#\xd7\xceABCDEFGH"
	// offset  48: "01234567\n#\xd7\xceabcd\n#\xd7\xcetail!"
}

func ExampleOpen() {
	r := recordio.Open("../imagerec/testdata/mnist_t10k_1000_png_gray.rec")
	n, size := 0, 0
	for rec, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		size += len(rec.Data)
	}
	fmt.Println(n, "records,", size, "payload bytes")
	// Output: 1000 records, 293440 payload bytes
}

func ExampleOpenIndexed() {
	f, err := recordio.OpenIndexed(context.Background(), "../imagerec/testdata/multipart_edge_cases.rec")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	for i := range f.Len() {
		if _, _, key := f.Locate(i); key != 3 {
			continue
		}
		payload, err := f.Get(i)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("record %d of %d, key 3: %q\n", i, f.Len(), payload)
	}
	// Output: record 3 of 12, key 3: "01234567\n#\xd7\xceabcd\n#\xd7\xcetail!"
}

func ExampleSync() {
	data, err := os.ReadFile("../imagerec/testdata/multipart_edge_cases.rec")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Offset 30 is inside record 2; offset 32 holds its second part (a
	// continuation), so the next record start is record 3 at 48.
	next, err := recordio.Sync(bytes.NewReader(data), 30)
	fmt.Println(next, err)
	// Output: 48 <nil>
}

// ExampleOpen_list reads two files, named by a ';'-separated list, as
// one stream.
func ExampleOpen_list() {
	r := recordio.Open("../imagerec/testdata/multipart_edge_cases.rec;../imagerec/testdata/mnist_t10k_1000_png_gray.rec")
	counts := map[string]int{}
	last := recordio.Record{}
	for rec, err := range r.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		counts[rec.File]++
		last = rec
	}
	fmt.Println(counts)
	fmt.Printf("last: index %d, offset %d in %s\n", last.Index, last.Offset, last.File)
	// Output:
	// map[../imagerec/testdata/mnist_t10k_1000_png_gray.rec:1000 ../imagerec/testdata/multipart_edge_cases.rec:12]
	// last: index 1011, offset 302680 in ../imagerec/testdata/mnist_t10k_1000_png_gray.rec
}

// ExampleValidateIndex checks an .idx against its .rec before reading by
// key: here an index whose second line points into the first record.
func ExampleValidateIndex() {
	var file bytes.Buffer
	w := recordio.NewWriter(&file)
	for _, payload := range []string{"first record", "second"} {
		if err := w.Write([]byte(payload)); err != nil {
			fmt.Println(err)
			return
		}
	}
	rec := bytes.NewReader(file.Bytes())
	dir, err := os.MkdirTemp("", "idx")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data.idx")
	for _, idx := range []string{"0\t0\n1\t20\n", "0\t0\n1\t8\n"} {
		if err := os.WriteFile(path, []byte(idx), 0o644); err != nil {
			fmt.Println(err)
			return
		}
		ix, err := recordio.ReadIndex(context.Background(), path)
		if err != nil {
			fmt.Println(err)
			return
		}
		err = recordio.ValidateIndex(rec, rec.Size(), "data.rec", ix)
		fmt.Println(strings.ReplaceAll(fmt.Sprint(err), dir+string(filepath.Separator), "")) // the error names the .idx by its path
	}
	// Output:
	// <nil>
	// data.idx: line 2 at byte 4: recordio: bad format: key 1 at offset 8 of data.rec: inside the record at offset 0, which runs to offset 20
}
