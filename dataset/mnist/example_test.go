package mnist_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

func ExampleTrain() {
	ds := mnist.Train("../../data/mnist") // finds train-images-idx3-ubyte[.gz] and its labels
	n := 0
	var first []uint8
	for s, err := range ds.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n < 5 {
			first = append(first, s.Label)
		}
		n++
	}
	fmt.Println(n, "samples, first labels", first)
	// Output: 60000 samples, first labels [5 0 4 1 9]
}

func ExampleTest() {
	// Shard 1 of 4 of the test set, a new order every epoch, as MXNet's
	// MNISTIter reads the second of four parts with shuffle=True.
	ds := mnist.Test("../../data/mnist", mnist.Shard(4, 1), mnist.Shuffle(7))
	n, _ := ds.Len()
	lo, hi := 10000, 0
	for s, err := range ds.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		lo, hi = min(lo, s.Index), max(hi, s.Index)
	}
	fmt.Printf("%d samples, file positions %d..%d\n", n, lo, hi)
	// Output: 2500 samples, file positions 2500..4999
}

func ExampleNew() {
	ds := mnist.New("../../data/mnist/t10k-images-idx3-ubyte.gz", "../../data/mnist/t10k-labels-idx1-ubyte.gz")
	for s, err := range ds.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("label %d, %d pixels, pixel sum %d\n", s.Label, len(s.Image), s.Sum())
		break
	}
	// Output: label 7, 784 pixels, pixel sum 18454
}

func ExampleDataset_FillImage() {
	// Batches of 32 as MXNet's MNISTIter(flat=True) gives them; the pixels
	// are scaled by 1/256 as there.
	ds := mnist.Test("../../data/mnist", mnist.Flat(), mnist.Scaling(mnist.ScaleMXNet))
	shape := ds.ImageShape()
	data := make([]float32, 32*shape[0])
	label := make([]float32, 32)
	for b, err := range batch.Of(ds, 32, batch.Keep).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for i, s := range b.Samples {
			ds.FillImage(s, data[i*784:(i+1)*784])
			mnist.FillLabel(s, label[i:i+1])
		}
		break
	}
	var maxPix float32
	for _, v := range data {
		maxPix = max(maxPix, v)
	}
	fmt.Println("shape", shape, "labels", label[:5], "max pixel", maxPix)
	// Output: shape [784] labels [7 2 1 0 4] max pixel 0.99609375
}

// The whole MNISTIter in four lines: samples, batches of 100, tensors.
func ExampleDataset_Sink() {
	ds := mnist.Train("../../data/mnist", mnist.Shuffle(1), mnist.Scaling(mnist.ScaleMXNet))
	s := ds.Sink(100)
	fmt.Println(s.ProvideData(), s.ProvideLabel())
	batches, samples := 0, 0
	for b, err := range sink.Tensorize(ds, s, batch.Keep).All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		batches++
		samples += b.Len() - b.Padded
		b.Release() // the sink may fill this memory again
	}
	fmt.Println(batches, "batches,", samples, "samples")
	// Output:
	// [data float32[100 1 28 28]] [softmax_label float32[100]]
	// 600 batches, 60000 samples
}

func ExampleScale_Pixels() {
	dst := make([]float32, 3)
	for _, s := range []mnist.Scale{mnist.ScaleUnit, mnist.ScaleMXNet, mnist.ScaleSymmetric, mnist.ScaleRaw} {
		s.Pixels([]uint8{0, 51, 255}, dst)
		fmt.Println(s, dst)
	}
	// Output:
	// unit [0 0.2 1]
	// mxnet [0 0.19921875 0.99609375]
	// symmetric [-1 -0.6 1]
	// raw [0 51 255]
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

// MXNet's MNISTIter(image=..., label=...) with its defaults: shuffled once
// with seed 0, pixels scaled by 1/256, batches of 128, the last 16 samples
// of the test set's 10000 dropped. Every epoch gives the same batches.
func ExampleMNISTIter() {
	ds := mnist.MNISTIter("../../data/mnist/t10k-images-idx3-ubyte.gz", "../../data/mnist/t10k-labels-idx1-ubyte.gz")
	s := ds.Sink(mnist.MXNetBatchSize)
	fmt.Println(s.ProvideData(), s.ProvideLabel())
	for range 2 {
		batches := 0
		var first []float32
		for b, err := range sink.Tensorize(ds, s, batch.Drop).All(context.Background()) {
			if err != nil {
				fmt.Println(err)
				return
			}
			if batches == 0 {
				label, _ := b.Get("softmax_label")
				first = append(first, label.F32[:5]...)
			}
			batches++
			b.Release()
		}
		fmt.Println(batches, "batches, first labels", first)
	}
	// Output:
	// [data float32[128 1 28 28]] [softmax_label float32[128]]
	// 78 batches, first labels [1 9 6 1 6]
	// 78 batches, first labels [1 9 6 1 6]
}

// ShuffleOnce draws one order and repeats it every epoch, as MXNet's
// MNISTIter does; Shuffle draws a new one each epoch.
func ExampleShuffleOnce() {
	dir := "../../data/mnist"
	firsts := func(ds *mnist.Dataset) (out []int) {
		for range 3 {
			for s, err := range ds.All(context.Background()) {
				if err != nil {
					fmt.Println(err)
					return nil
				}
				out = append(out, s.Index)
				break
			}
		}
		return out
	}
	fmt.Println("ShuffleOnce:", firsts(mnist.Test(dir, mnist.ShuffleOnce(7))))
	fmt.Println("Shuffle:    ", firsts(mnist.Test(dir, mnist.Shuffle(7))))
	// Output:
	// ShuffleOnce: [2638 2638 2638]
	// Shuffle:     [2638 9311 8308]
}

// MXNet's MNISTIter(..., shuffle=False, flat=True): options after
// MNISTIter's defaults override them.
func ExampleNoShuffle() {
	ds := mnist.MNISTIter("../../data/mnist/t10k-images-idx3-ubyte.gz", "../../data/mnist/t10k-labels-idx1-ubyte.gz",
		mnist.NoShuffle(), mnist.Flat())
	for s, err := range ds.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("index", s.Index, "label", s.Label, "shape", ds.ImageShape())
		break
	}
	// Output: index 0 label 7 shape [784]
}

// Refs feeds a sink without copying images: the data set is decoded once
// per process and each sample moves as a reference, the image normalised
// straight from the decoded bytes into the batch's tensor.
func ExampleDataset_Refs() {
	train := mnist.Test("../../data/mnist", mnist.Scaling(mnist.ScaleSymmetric), mnist.Shuffle(42), mnist.Flat())
	tensors := sink.New(128,
		[]sink.Field[mnist.Ref]{train.RefImageField("image")},
		[]sink.Field[mnist.Ref]{sink.Int32("label", nil, mnist.FillRefLabelInt32).WritesAll()})
	samples := 0
	for epoch := range 2 { // the second epoch reads no file data: the decoded set is cached
		ctx := source.WithEpoch(context.Background(), epoch)
		for t, err := range sink.Tensorize(train.Refs(), tensors, batch.Keep).All(ctx) {
			if err != nil {
				fmt.Println(err)
				return
			}
			samples += t.Len()
			t.Release()
		}
	}
	fmt.Println(tensors.ProvideData(), samples, "samples")
	// Output: [image float32[128 784]] 20000 samples
}

// Sample copies a referenced sample, to change it without changing the
// shared data set.
func ExampleRef_Sample() {
	for r, err := range mnist.Test("../../data/mnist").Refs().All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		s := r.Sample()
		s.Image[0] = 255 // the copy only
		fmt.Println(r.Label, r.Index, r.Image()[0], s.Image[0])
		break
	}
	// Output: 7 0 0 255
}
