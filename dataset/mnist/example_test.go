package mnist_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// The README's pipeline: the training set in memory, a new order every
// epoch (a shuffle by index), batches of 128 tensors built from the
// Sample's struct tags, the pixels in [-1, 1].
func Example() {
	ctx := context.Background()
	train, err := mnist.Train("../../data/mnist").Load(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(train, source.ShuffleIndex(42))),
		sink.Of[mnist.Sample](128, sink.Scale("image", -1, 1)), batch.Keep).Buffered(4)
	batches := 0
	for t, err := range feed.All(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if batches == 0 {
			x, _ := t.Get("image")
			y, _ := t.Get("label")
			fmt.Println(x.Shape, x.DType, slices.Min(x.F32), slices.Max(x.F32), y.Shape, y.DType)
		}
		batches++
		t.Release()
	}
	fmt.Println(batches, "batches")
	// Output:
	// [128 784] float32 -1 1 [128] int32
	// 469 batches
}

func ExampleTrain() {
	// Finds train-images-idx3-ubyte[.gz] and its labels, and decodes them.
	train, err := mnist.Train("../../data/mnist").Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	var first []uint8
	for i := range 5 {
		s, _ := train.Get(i)
		first = append(first, s.Label)
	}
	fmt.Println(train.Len(), "samples, first labels", first)
	// Output: 60000 samples, first labels [5 0 4 1 9]
}

func ExampleTest() {
	// Part 1 of 4 of the test set, a new order every epoch: the rank
	// split and the shuffle are source.ReadIndexed's.
	test, err := mnist.Test("../../data/mnist").Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := source.ReadIndexed(test, source.ShuffleIndex(7), source.ShardIndex(4, 1, source.PadShards))
	n, err := source.Count(context.Background(), r)
	fmt.Println(n, "samples", err)
	// Output: 2500 samples <nil>
}

// A Dataset is also a reader of the files in their order, one record at a
// time, for a set that is not to be held in memory.
func ExampleNew() {
	ds := mnist.New("../../data/mnist/t10k-images-idx3-ubyte.gz", "../../data/mnist/t10k-labels-idx1-ubyte.gz")
	for s, err := range ds.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		sum := 0
		for _, p := range s.Image {
			sum += int(p)
		}
		fmt.Printf("label %d, %d pixels, pixel sum %d\n", s.Label, len(s.Image), sum)
		break
	}
	// Output: label 7, 784 pixels, pixel sum 18454
}

func ExampleReadIDX() {
	x, err := mnist.ReadIDX("../../data/mnist/t10k-labels-idx1-ubyte.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("magic %#08x, %v, dims %v, first %v\n", x.Magic(), x.DType, x.Dims, x.Raw[:5])
	// Output: magic 0x00000801, uint8, dims [10000], first [7 2 1 0 4]
}

func ExampleNewIDXReader() {
	// An IDX file of two records of 3 int16 values, built in memory.
	file := []byte{0, 0, 0x0B, 2, 0, 0, 0, 2, 0, 0, 0, 3}
	for _, v := range []int16{1, -2, 300, 4, 5, -600} {
		file = binary.BigEndian.AppendUint16(file, uint16(v))
	}
	x, err := mnist.NewIDXReader(bytes.NewReader(file), "example.idx")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x.Header().DType, x.Header().Dims)
	rec := make([]float64, x.Header().RecordElems())
	for {
		err := mnist.Read(x, rec)
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
	x, err := mnist.DecodeIDX(bytes.NewReader(file), "int8.idx")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := mnist.Values[float32](x)
	fmt.Println(t.Shape, t.Data)
	// Output: [2 2] [1 -1 -128 127]
}

func ExampleDecodeIDX() {
	_, err := mnist.DecodeIDX(bytes.NewReader([]byte{0, 0, 8, 1, 0, 0, 0, 5, 1, 2, 3}), "short.idx")
	fmt.Println(err)
	// Output: mnist: short.idx: offset 11: file ends in record 3 of 5: unexpected EOF
}

func ExampleCheckIDX() {
	// A file of 3 records of 2 bytes whose last record is cut short.
	file := []byte{0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 2, 1, 2, 3, 4, 5}
	info, err := mnist.CheckIDX(bytes.NewReader(file), "cut.idx")
	fmt.Println(info.DType, info.Dims, info.Records, "records read")
	fmt.Println(err)
	var fe *mnist.FormatError
	if errors.As(err, &fe) {
		fmt.Println("record", fe.Record, "at offset", fe.Offset, errors.Is(err, io.ErrUnexpectedEOF))
	}
	// Output:
	// uint8 [3 2] 2 records read
	// mnist: cut.idx: offset 17: file ends in record 2 of 3: unexpected EOF
	// record 2 at offset 17 true
}

func ExampleCheckIDXFile() {
	info, err := mnist.CheckIDXFile("../../data/mnist/t10k-images-idx3-ubyte.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %v gzip=%v, %d records, %d bytes\n", info.DType, info.Dims, info.Gzipped, info.Records, info.Bytes)
	// Output: uint8 [10000 28 28] gzip=true, 10000 records, 7840016 bytes
}

func ExampleIsIDX() {
	f, err := os.Open("../../data/mnist/t10k-labels-idx1-ubyte.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	head := make([]byte, mnist.IDXHeadSize)
	n, _ := io.ReadFull(f, head)
	fmt.Println(mnist.IsIDX(head[:n]), mnist.IsIDX([]byte{0, 0, 8, 3}), mnist.IsIDX([]byte("PK\x03\x04")))
	// Output: true true false
}

func ExampleMaxFileBytes() {
	// 16 bytes declaring 100 records of 1000x1000 float64: 800 MB.
	file := []byte{0, 0, 0x0E, 3, 0, 0, 0, 100, 0, 0, 0x03, 0xE8, 0, 0, 0x03, 0xE8}
	_, err := mnist.DecodeIDX(bytes.NewReader(file), "big.idx", mnist.MaxFileBytes(100<<20))
	fmt.Println(err)
	fmt.Println(errors.Is(err, mnist.ErrTooLarge), errors.Is(err, tensorfeed.ErrBadData))
	// Output:
	// mnist: big.idx: offset 12: dimensions [100 1000 1000] declare more than 104857600 bytes of data (MaxFileBytes): larger than the configured maximum
	// true true
}

func ExampleSkipBad() {
	// Take the digits 7, 8 and 9 for labels of no class, and skip them.
	ds := mnist.Test("../../data/mnist", mnist.Classes(7), mnist.SkipBad(0.5))
	n, err := source.Count(context.Background(), ds)
	fmt.Println(n, "samples,", ds.Skipped(), "skipped,", err)
	// Output: 6989 samples, 3011 skipped, <nil>
}
