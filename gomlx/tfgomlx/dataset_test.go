package tfgomlx_test

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/gomlx/tfgomlx"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

const dataDir = "../../data/mnist"

// testDigits reads the first n digits of the MNIST test set.
func testDigits(t testing.TB, n int) []mnist.Sample {
	t.Helper()
	var out []mnist.Sample
	for s, err := range mnist.Test(dataDir).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
		if len(out) == n {
			break
		}
	}
	return out
}

func fillImage(s mnist.Sample, dst []float32) {
	for i, p := range s.Image {
		dst[i] = float32(p) / 255
	}
}

// allSink describes every element type the adapter maps: image float32,
// raw uint8, label int32 [B 1], label64 int64 [B].
func allSink(size int) *sink.Sink[mnist.Sample] {
	return sink.New(size,
		[]sink.Field[mnist.Sample]{
			sink.Float32("image", []int{mnist.Pixels}, fillImage),
			sink.Uint8("raw", []int{28, 28}, func(s mnist.Sample, dst []uint8) { copy(dst, s.Image[:]) }),
		},
		[]sink.Field[mnist.Sample]{
			sink.Int32("label", []int{1}, fillLabel),
			sink.Int64("label64", nil, func(s mnist.Sample, dst []int64) { dst[0] = int64(s.Label) }),
		})
}

// feedOf is a pipeline over the samples, shuffled by index when seed > 0.
func feedOf(samples []mnist.Sample, s *sink.Sink[mnist.Sample], last batch.Policy, seed uint64) *pipeline.Pipe[*tensor.Batch] {
	var opts []source.IndexedOption
	if seed > 0 {
		opts = append(opts, source.ShuffleIndex(seed))
	}
	return pipeline.Tensorize(pipeline.From[mnist.Sample](source.ReadIndexed(source.IndexSlice(samples), opts...)), s, last).Buffered(2)
}

func newDataset(t testing.TB, feed source.Reader[*tensor.Batch], s *sink.Sink[mnist.Sample], opts ...tfgomlx.Option) *tfgomlx.Dataset {
	t.Helper()
	ds, err := tfgomlx.New(context.Background(), feed, s.ProvideData(), s.ProvideLabel(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

func flat[T dtypes.Supported](t testing.TB, x *tensors.Tensor) []T {
	t.Helper()
	v, err := tensors.CopyFlatData[T](x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func finalize(ts ...[]*tensors.Tensor) {
	for _, l := range ts {
		for _, t := range l {
			t.MustFinalizeAll()
		}
	}
}

// The values GoMLX receives are the samples', tensor by tensor, with the
// names chosen, in the order chosen, each element type mapped to GoMLX's.
func TestValuesNamesAndTypes(t *testing.T) {
	digits := testDigits(t, 64)
	s := allSink(16)
	ds := newDataset(t, feedOf(digits, s, batch.Drop, 0), s,
		tfgomlx.Inputs("raw", "image"), tfgomlx.Labels("label64", "label"))
	want := &tfgomlx.Spec{Inputs: []tensor.Desc{s.ProvideData()[1], s.ProvideData()[0]},
		Labels: []tensor.Desc{s.ProvideLabel()[1], s.ProvideLabel()[0]}}
	for b := range 4 {
		spec, inputs, labels, err := ds.Yield()
		if err != nil {
			t.Fatal(err)
		}
		if spec != ds.Spec() || spec.(*tfgomlx.Spec).String() != want.String() {
			t.Fatalf("batch %d: spec %v, want the dataset's %v", b, spec, want)
		}
		shp := func(x *tensors.Tensor) shapes.Shape { return x.Shape() }
		for i, w := range []shapes.Shape{shapes.Make(dtypes.Uint8, 16, 28, 28), shapes.Make(dtypes.Float32, 16, 784)} {
			if !shp(inputs[i]).Equal(w) {
				t.Fatalf("input %d: %s, want %s", i, inputs[i].Shape(), w)
			}
		}
		for i, w := range []shapes.Shape{shapes.Make(dtypes.Int64, 16), shapes.Make(dtypes.Int32, 16, 1)} {
			if !shp(labels[i]).Equal(w) {
				t.Fatalf("label %d: %s, want %s", i, labels[i].Shape(), w)
			}
		}
		raw, img := flat[uint8](t, inputs[0]), flat[float32](t, inputs[1])
		l64, l32 := flat[int64](t, labels[0]), flat[int32](t, labels[1])
		for r := range 16 {
			d := digits[b*16+r]
			if !slices.Equal(raw[r*784:(r+1)*784], d.Image[:]) {
				t.Fatalf("batch %d row %d: raw pixels differ from digit %d", b, r, d.Index)
			}
			for i, p := range d.Image {
				if img[r*784+i] != float32(p)/255 {
					t.Fatalf("batch %d row %d pixel %d: %v, want %v", b, r, i, img[r*784+i], float32(p)/255)
				}
			}
			if l64[r] != int64(d.Label) || l32[r] != int32(d.Label) {
				t.Fatalf("batch %d row %d: labels %d %d, want %d", b, r, l64[r], l32[r], d.Label)
			}
		}
		finalize(inputs, labels)
	}
	if _, _, _, err := ds.Yield(); err != io.EOF {
		t.Fatalf("after the epoch: %v, want io.EOF", err)
	}
}

// digest hashes what one Yield returned.
func digest(t testing.TB, inputs, labels []*tensors.Tensor) string {
	t.Helper()
	h := sha256.New()
	for _, x := range append(slices.Clone(inputs), labels...) {
		if err := x.ConstBytes(func(b []byte) { h.Write(b) }); err != nil {
			t.Fatal(err)
		}
	}
	finalize(inputs, labels)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// epoch yields until io.EOF and returns the digests of the batches.
func epoch(t testing.TB, ds *tfgomlx.Dataset) []string {
	t.Helper()
	var out []string
	for range 1000 {
		_, inputs, labels, err := ds.Yield()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, digest(t, inputs, labels))
	}
	t.Fatal("no io.EOF after 1000 batches")
	return nil
}

// pipeEpochs is what the pipeline itself yields in its first n epochs,
// digested the same way.
func pipeEpochs(t testing.TB, feed *pipeline.Pipe[*tensor.Batch], s *sink.Sink[mnist.Sample], n int, opts ...tfgomlx.Option) [][]string {
	t.Helper()
	var out [][]string
	for _, pass := range feed.Epochs(context.Background(), n) {
		var sums []string
		for b, err := range pass {
			if err != nil {
				t.Fatal(err)
			}
			if b.Len() != s.BatchSize() {
				b.Release()
				continue
			}
			inputs, labels := make([]*tensors.Tensor, 0, 2), make([]*tensors.Tensor, 0, 2)
			for _, x := range b.Data {
				inputs = append(inputs, goT(x))
			}
			for _, x := range b.Label {
				labels = append(labels, goT(x))
			}
			b.Release()
			sums = append(sums, digest(t, inputs, labels))
		}
		out = append(out, sums)
	}
	return out
}

func goT(x tensor.Tensor) *tensors.Tensor {
	switch {
	case x.F32 != nil:
		return tensors.FromFlatDataAndDimensions(slices.Clone(x.F32), x.Shape...)
	case x.U8 != nil:
		return tensors.FromFlatDataAndDimensions(slices.Clone(x.U8), x.Shape...)
	case x.I32 != nil:
		return tensors.FromFlatDataAndDimensions(slices.Clone(x.I32), x.Shape...)
	default:
		return tensors.FromFlatDataAndDimensions(slices.Clone(x.I64), x.Shape...)
	}
}

// Yield ends each epoch with io.EOF, repeats it until Reset, and Reset
// starts the next epoch: the pipeline's next epoch, in its new order. A
// Reset before anything was read (Trainer.Eval starts with one) skips
// nothing; a Reset in the middle of an epoch moves on to the next one.
func TestEpochsEOFAndReset(t *testing.T) {
	digits := testDigits(t, 250)
	s := allSink(50)
	want := pipeEpochs(t, feedOf(digits, s, batch.Keep, 7), s, 4)
	ds := newDataset(t, feedOf(digits, s, batch.Keep, 7), s)
	ds.Reset() // nothing started: still epoch 0
	got0 := epoch(t, ds)
	if _, _, _, err := ds.Yield(); err != io.EOF {
		t.Fatalf("a second Yield after the end of the epoch: %v, want io.EOF", err)
	}
	ds.Reset()
	got1 := epoch(t, ds)
	ds.Reset()
	_, in, lab, err := ds.Yield() // one batch of epoch 2, then Reset
	if err != nil {
		t.Fatal(err)
	}
	got2 := []string{digest(t, in, lab)}
	ds.Reset()
	got3 := epoch(t, ds)
	if len(want[0]) != 5 || !slices.Equal(got0, want[0]) || !slices.Equal(got1, want[1]) || !slices.Equal(got2, want[2][:1]) || !slices.Equal(got3, want[3]) {
		t.Fatalf("epochs through the dataset\n%v\n%v\n%v\n%v\nthe pipeline's\n%v", got0, got1, got2, got3, want)
	}
	if slices.Equal(got0, got1) {
		t.Fatal("epochs 0 and 1 in the same order: the shuffle's epoch did not change")
	}
	if st := ds.Stats(); st.Epochs != 4 || st.Batches != 16 || st.Samples != 16*50 || st.Dropped != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A short last batch is dropped (and counted) by default; KeepPartial
// yields it with its own batch size; Endless runs the epochs on without
// io.EOF.
func TestPartialBatchesAndEndless(t *testing.T) {
	digits := testDigits(t, 230)
	s := allSink(100)
	ds := newDataset(t, feedOf(digits, s, batch.Keep, 3), s)
	if n := len(epoch(t, ds)); n != 2 || ds.Stats().Dropped != 1 {
		t.Fatalf("%d batches, %d dropped; want 2 and 1", n, ds.Stats().Dropped)
	}

	keep := newDataset(t, feedOf(digits, s, batch.Keep, 3), s, tfgomlx.KeepPartial())
	var rows []int
	for range 3 {
		_, in, lab, err := keep.Yield()
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, in[0].Shape().Dimensions[0])
		finalize(in, lab)
	}
	if _, _, _, err := keep.Yield(); err != io.EOF || !slices.Equal(rows, []int{100, 100, 30}) {
		t.Fatalf("rows %v then %v; want [100 100 30] then io.EOF", rows, err)
	}

	want := pipeEpochs(t, feedOf(digits, s, batch.Keep, 3), s, 3)
	endless := newDataset(t, feedOf(digits, s, batch.Keep, 3), s, tfgomlx.Endless())
	var got []string
	for range 6 {
		_, in, lab, err := endless.Yield()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, digest(t, in, lab))
	}
	if w := slices.Concat(want...); !slices.Equal(got, w) {
		t.Fatalf("endless: %v, want the pipeline's three epochs %v", got, w)
	}
}

// counting is a Recycler that counts the batches handed back.
type counting struct{ n atomic.Int64 }

func (c *counting) Recycle(*tensor.Batch) { c.n.Add(1) }

// Every batch is released once its tensors are copied, dropped ones too.
func TestReleasesEveryBatch(t *testing.T) {
	digits := testDigits(t, 250)
	s := allSink(100)
	var c counting
	feed := pipeline.Map(feedOf(digits, s, batch.Keep, 0), func(b *tensor.Batch) *tensor.Batch {
		b.SetOwner(&c)
		return b
	})
	ds := newDataset(t, feed, s)
	for i := range 2 {
		_, in, lab, err := ds.Yield()
		if err != nil {
			t.Fatal(err)
		}
		if got := c.n.Load(); got != int64(i+1) {
			t.Fatalf("after Yield %d: %d batches released, want %d", i+1, got, i+1)
		}
		finalize(in, lab)
	}
	if _, _, _, err := ds.Yield(); err != io.EOF || c.n.Load() != 3 {
		t.Fatalf("%v with %d batches released; want io.EOF and 3 (the short one dropped, released)", err, c.n.Load())
	}
}

// truncatedMNIST writes the first digits of the test set uncompressed,
// with an images file cut in the middle of a digit.
func truncatedMNIST(t *testing.T) (images, labels string) {
	t.Helper()
	dir := t.TempDir()
	unzip := func(name string, keep int64) string {
		f, err := os.Open(filepath.Join(dataDir, name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(io.LimitReader(z, keep))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return unzip("t10k-images-idx3-ubyte", 16+784*130+300), unzip("t10k-labels-idx1-ubyte", 1<<20)
}

// An error of the feed reaches GoMLX as it is, once, with the file and the
// place; the pass is then over.
func TestFeedErrorSurfaces(t *testing.T) {
	images, labels := truncatedMNIST(t)
	s := allSink(50)
	feed := pipeline.Tensorize(pipeline.From[mnist.Sample](mnist.New(images, labels)), s, batch.Keep)
	ds := newDataset(t, feed, s)
	var err error
	for range 10 {
		var in, lab []*tensors.Tensor
		if _, in, lab, err = ds.Yield(); err != nil {
			break
		}
		finalize(in, lab)
	}
	if !errors.Is(err, tensorfeed.ErrBadData) || err == io.EOF {
		t.Fatalf("Yield: %v, want an error wrapping ErrBadData", err)
	}
	if !strings.Contains(err.Error(), images) || !strings.Contains(err.Error(), "130") {
		t.Fatalf("Yield: %v, want the error to name %s and digit 130", err, images)
	}
	t.Log(err)
	if _, _, _, err := ds.Yield(); err != io.EOF {
		t.Fatalf("after the error: %v, want io.EOF", err)
	}
}

// A name that is not in the schema, and a batch that does not match it,
// are errors, never a silent reshape.
func TestSchemaErrors(t *testing.T) {
	digits := testDigits(t, 40)
	s := allSink(10)
	if _, err := tfgomlx.New(context.Background(), feedOf(digits, s, batch.Keep, 0), s.ProvideData(), s.ProvideLabel(),
		tfgomlx.Inputs("pixels")); !errors.Is(err, tfgomlx.ErrSchema) {
		t.Fatalf("unknown input: %v, want ErrSchema", err)
	}
	wrong := sink.New(10, []sink.Field[mnist.Sample]{sink.Float32("image", []int{28, 28}, fillImage)}, nil)
	ds := newDataset(t, feedOf(digits, s, batch.Keep, 0), wrong, tfgomlx.Labels())
	if _, _, _, err := ds.Yield(); !errors.Is(err, tfgomlx.ErrSchema) {
		t.Fatalf("a batch of another shape: %v, want ErrSchema", err)
	}
	big := newDataset(t, feedOf(digits, allSink(20), batch.Keep, 0), s) // batches of 20 rows, the schema says 10
	if _, _, _, err := big.Yield(); !errors.Is(err, tfgomlx.ErrSchema) {
		t.Fatalf("a batch larger than the schema's: %v, want ErrSchema", err)
	}
}

// Every element type of tensorfeed maps to GoMLX's type of the same name.
func TestDTypes(t *testing.T) {
	for in, want := range map[sample.DType]dtypes.DType{sample.Float32: dtypes.Float32, sample.Int32: dtypes.Int32,
		sample.Int64: dtypes.Int64, sample.Uint8: dtypes.Uint8, sample.Int8: dtypes.Int8} {
		if got, err := tfgomlx.DType(in); err != nil || got != want {
			t.Errorf("%v: %v %v, want %v", in, got, err, want)
		}
	}
	if _, err := tfgomlx.DType(0); !errors.Is(err, tfgomlx.ErrSchema) {
		t.Errorf("type 0: %v, want ErrSchema", err)
	}
}

func fillLabel(s mnist.Sample, dst []int32) { dst[0] = int32(s.Label) }

// A cancelled context ends the feed with the context's error, not with
// io.EOF, which GoMLX would take for the normal end of an epoch.
func TestCancelledIsNotEOF(t *testing.T) {
	digits := testDigits(t, 100)
	s := allSink(10)
	ctx, cancel := context.WithCancel(context.Background())
	ds, err := tfgomlx.New(ctx, feedOf(digits, s, batch.Keep, 1), s.ProvideData(), s.ProvideLabel())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	_, in, lab, err := ds.Yield()
	if err != nil {
		t.Fatal(err)
	}
	finalize(in, lab)
	cancel()
	// Batches the feed had made before it saw the cancellation may still
	// come (at most the rest of the epoch's 10), and the epoch may end
	// whole with io.EOF; the next epoch then starts with the error.
	for range 12 {
		_, _, _, err = ds.Yield()
		if err == nil {
			continue
		}
		if err == io.EOF {
			ds.Reset()
			continue
		}
		break
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Yield after cancel: %v, want context.Canceled", err)
	}
	ds.Reset()
	if _, _, _, err := ds.Yield(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Yield after cancel and Reset: %v, want context.Canceled", err)
	}
}
