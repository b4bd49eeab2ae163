package idx_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/idx"
)

func ExampleReadFile() {
	x, err := idx.ReadFile("../../data/mnist/t10k-labels-idx1-ubyte.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("magic %#08x, %v, dims %v, first %v\n", x.Magic(), x.DType, x.Dims, x.Raw[:5])
	// Output: magic 0x00000801, uint8, dims [10000], first [7 2 1 0 4]
}

func ExampleNewReader() {
	// An IDX file of two records of 3 int16 values, built in memory.
	file := []byte{0, 0, 0x0B, 2, 0, 0, 0, 2, 0, 0, 0, 3}
	for _, v := range []int16{1, -2, 300, 4, 5, -600} {
		file = binary.BigEndian.AppendUint16(file, uint16(v))
	}
	x, err := idx.NewReader(bytes.NewReader(file), "example.idx")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x.Header().DType, x.Header().Dims)
	rec := make([]float64, x.Header().RecordElems())
	for {
		err := idx.Read(x, rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rec)
	}
	// Output:
	// int16 [2 3]
	// [1 -2 300]
	// [4 5 -600]
}

func ExampleValues() {
	file := []byte{0, 0, 0x09, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 0xff, 0x80, 0x7f} // int8, 2x2
	x, err := idx.Decode(bytes.NewReader(file), "int8.idx")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := idx.Values[float32](x)
	fmt.Println(t.Shape, t.Data)
	// Output: [2 2] [1 -1 -128 127]
}

func ExampleDecode() {
	_, err := idx.Decode(bytes.NewReader([]byte{0, 0, 8, 1, 0, 0, 0, 5, 1, 2, 3}), "short.idx")
	fmt.Println(err)
	// Output: short.idx: record 3 at byte 11: idx: bad format: file ends in record 3 of 5: unexpected EOF
}

func ExampleCheck() {
	// A file of 3 records of 2 bytes whose last record is cut short.
	file := []byte{0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 2, 1, 2, 3, 4, 5}
	info, err := idx.Check(bytes.NewReader(file), "cut.idx")
	fmt.Println(info.DType, info.Dims, info.Records, "records read")
	fmt.Println(err)
	var e *tensorfeed.Error
	if errors.As(err, &e) {
		fmt.Println("record", e.Record, "at offset", e.Offset, errors.Is(err, io.ErrUnexpectedEOF))
	}
	// Output:
	// uint8 [3 2] 2 records read
	// cut.idx: record 2 at byte 17: idx: bad format: file ends in record 2 of 3: unexpected EOF
	// record 2 at offset 17 true
}

func ExampleCheckFile() {
	info, err := idx.CheckFile("../../data/mnist/t10k-images-idx3-ubyte.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %v gzip=%v, %d records, %d bytes\n", info.DType, info.Dims, info.Gzipped, info.Records, info.Bytes)
	// Output: uint8 [10000 28 28] gzip=true, 10000 records, 7840016 bytes
}

func ExampleIs() {
	f, err := os.Open("../../data/mnist/t10k-labels-idx1-ubyte.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	head := make([]byte, idx.HeadSize)
	n, _ := io.ReadFull(f, head)
	fmt.Println(idx.Is(head[:n]), idx.Is([]byte{0, 0, 8, 3}), idx.Is([]byte("PK\x03\x04")))
	// Output: true true false
}

func ExampleMaxFileBytes() {
	// 16 bytes declaring 100 records of 1000x1000 float64: 800 MB.
	file := []byte{0, 0, 0x0E, 3, 0, 0, 0, 100, 0, 0, 0x03, 0xE8, 0, 0, 0x03, 0xE8}
	_, err := idx.Decode(bytes.NewReader(file), "big.idx", idx.MaxFileBytes(100<<20))
	fmt.Println(err)
	fmt.Println(errors.Is(err, idx.ErrTooLarge), errors.Is(err, tensorfeed.ErrBadData))
	// Output:
	// big.idx: byte 12: idx: bad format: dimensions [100 1000 1000] declare more than 104857600 bytes of data (MaxFileBytes): larger than the configured maximum
	// true true
}
