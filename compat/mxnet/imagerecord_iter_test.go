package mxnet

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

const mnistJPG = "mnist_t10k_1000_jpg"

func mnistConfig() iterConfig {
	return iterConfig{
		Data:  dataOptions{RecPath: tdPath(mnistJPG, ".rec"), Shape: [3]int{3, 28, 28}},
		Batch: batchOptions{Size: 128, Last: batch.Pad},
	}
}

func newIter(t testing.TB, cfg iterConfig) *recIter {
	t.Helper()
	it, err := newRec(cfg.Data.RecPath, cfg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// pass collects one pass of it.
func pass(t testing.TB, it *recIter) []*tensor.Batch {
	t.Helper()
	var out []*tensor.Batch
	for b, err := range it.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// sameBatches reports whether a and b hold the same tensors and padding,
// whichever Iter made them.
func sameBatches(a, b []*tensor.Batch) bool {
	return slices.EqualFunc(a, b, func(x, y *tensor.Batch) bool {
		return reflect.DeepEqual(x.Data, y.Data) && reflect.DeepEqual(x.Label, y.Label) && x.Padded == y.Padded
	})
}

// labelsOf concatenates the real (not padded) rows of every batch's label.
func labelsOf(bs []*tensor.Batch) []float32 {
	var out []float32
	for _, b := range bs {
		l := b.Label[0]
		per := len(l.F32) / l.Shape[0]
		out = append(out, l.F32[:(l.Shape[0]-b.Padded)*per]...)
	}
	return out
}

// The MNIST JPEGs come out in file order, with their labels, as the
// decoded images in CHW order; the last batch is padded with the first
// images.
func TestIterMNIST(t *testing.T) {
	it := newIter(t, mnistConfig())
	if got := it.ProvideData(); !reflect.DeepEqual(got, []tensor.Desc{{Name: "data", Shape: []int{128, 3, 28, 28}, DType: sample.Float32}}) {
		t.Errorf("ProvideData = %v", got)
	}
	if got := it.ProvideLabel(); !reflect.DeepEqual(got, []tensor.Desc{{Name: "softmax_label", Shape: []int{128}, DType: sample.Float32}}) {
		t.Errorf("ProvideLabel = %v", got)
	}
	bs := pass(t, it)
	if len(bs) != 8 {
		t.Fatalf("%d batches, want 8", len(bs))
	}
	for i, b := range bs {
		if b.Data[0].Shape[0] != 128 || b.Label[0].Shape[0] != 128 {
			t.Fatalf("batch %d: %d rows", i, b.Data[0].Shape[0])
		}
		if want := map[bool]int{true: 1024 - 1000, false: 0}[i == 7]; b.Padded != want {
			t.Errorf("batch %d: Padded %d, want %d", i, b.Padded, want)
		}
	}
	rows := recimages.ReadTSV(t, tdPath(mnistJPG, ".records.tsv"))
	labels := labelsOf(bs)
	for i, r := range rows {
		if labels[i] != r.HeaderLabel {
			t.Fatalf("label %d = %v, want %v", i, labels[i], r.HeaderLabel)
		}
	}
	recs := recimages.Records(t, tdPath(mnistJPG, ".rec"))
	per := 3 * 28 * 28
	for _, i := range []int{0, 1, 500, 999} {
		ex, err := imagerec.DecodeRecord(recs[i], nil, decode.Options{Channels: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, per)
		(&augment.Normalize{}).Into(want, ex.Image, false, nil)
		got := bs[i/128].Data[0].F32[(i%128)*per : (i%128+1)*per]
		if !slices.Equal(got, want) {
			t.Fatalf("image %d differs from DecodeRecord + a zero Normalize", i)
		}
	}
	// Padding repeats the first images.
	last := bs[7].Data[0].F32
	if !slices.Equal(last[104*per:105*per], bs[0].Data[0].F32[:per]) {
		t.Error("first padding row is not image 0")
	}
}

// With every random augmentation on, the output is the same for 1, 2 and
// 4 threads and for a new Iter with the same seed; epochs differ.
func TestIterDeterministic(t *testing.T) {
	cfg := mnistConfig()
	cfg.Data.Shape = [3]int{3, 24, 24}
	cfg.Data.Seed = 42
	cfg.Data.ShardCount = 4 // 250 images are enough
	cfg.Batch.Size = 100
	cfg.Aug = augOptions{Crop: cropRandom, Mirror: mirrorRandom, RandomH: 10, RandomL: 20}
	cfg.Norm = augment.Normalize{Mean: [4]float32{120, 115, 100}, Std: [4]float32{60, 60, 60},
		MaxRandomContrast: 0.3, MaxRandomIllumination: 5}
	var ref [][]*tensor.Batch
	for _, threads := range []int{1, 2, 4} {
		cfg.Backend.Threads = threads
		it := newIter(t, cfg)
		e0, e1 := pass(t, it), pass(t, it)
		if ref == nil {
			ref = [][]*tensor.Batch{e0, e1}
			if reflect.DeepEqual(e0[0].Data[0].F32, e1[0].Data[0].F32) {
				t.Error("epochs 0 and 1 are the same")
			}
			continue
		}
		if !sameBatches(e0, ref[0]) || !sameBatches(e1, ref[1]) {
			t.Fatalf("%d threads: output differs from 1 thread", threads)
		}
	}
	cfg.Data.Seed = 43
	if other := pass(t, newIter(t, cfg)); sameBatches(other, ref[0]) {
		t.Error("seed 43 gave the same output as seed 42")
	}
}

// The last-batch policies: Keep yields 104 rows, Drop 7 batches, RollOver
// carries 104 images into the next epoch.
func TestIterLastBatch(t *testing.T) {
	cfg := mnistConfig()
	cfg.Batch.Last = batch.Keep
	bs := pass(t, newIter(t, cfg))
	if len(bs) != 8 || bs[7].Data[0].Shape[0] != 104 || bs[7].Label[0].Shape[0] != 104 || len(bs[7].Data[0].F32) != 104*3*28*28 {
		t.Errorf("Keep: %d batches, last has %d rows", len(bs), bs[len(bs)-1].Data[0].Shape[0])
	}
	cfg.Batch.Last = batch.Drop
	if bs := pass(t, newIter(t, cfg)); len(bs) != 7 {
		t.Errorf("Drop: %d batches", len(bs))
	}
	cfg.Batch.Last = batch.RollOver
	it := newIter(t, cfg)
	e0, e1 := pass(t, it), pass(t, it)
	if len(e0) != 7 || len(e1) != 8 {
		t.Errorf("RollOver: %d then %d batches, want 7 then 8", len(e0), len(e1))
	}
	if got := labelsOf(e1)[:3]; !slices.Equal(got, labelsOf(pass(t, newIter(t, mnistConfig())))[896:899]) {
		t.Errorf("RollOver: epoch 1 starts with %v, not the remainder of epoch 0", got)
	}
}

// Label arrays from the header (flag 3) with LabelWidth 3; from a .lst by
// id, which need not follow the file order.
func TestIterLabels(t *testing.T) {
	const multi = "mnist_t10k_1000_jpg_multilabel"
	rows := recimages.ReadTSV(t, tdPath(multi, ".records.tsv"))
	cfg := mnistConfig()
	cfg.Data.RecPath = tdPath(multi, ".rec")
	cfg.Data.LabelWidth = 3
	it := newIter(t, cfg)
	if got := it.ProvideLabel()[0].Shape; !reflect.DeepEqual(got, []int{128, 3}) {
		t.Errorf("label shape %v", got)
	}
	labels := labelsOf(pass(t, it))
	for i, r := range rows {
		if !slices.Equal(labels[3*i:3*i+3], r.Labels) {
			t.Fatalf("record %d labels %v, want %v", i, labels[3*i:3*i+3], r.Labels)
		}
	}
	// Width 1 with 3 labels in the header is an error naming the record.
	cfg.Data.LabelWidth = 1
	err := passErr(newIter(t, cfg))
	var re *tensorfeed.Error
	if !errors.Is(err, errLabel) || !errors.As(err, &re) || re.Record != 0 {
		t.Errorf("label width 1 over 3-label records: %v", err)
	}
	// A .lst whose labels are looked up by id: reverse the ids' labels.
	entries, err := imagerec.ReadList(tdPath(multi, ".lst"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range entries {
		entries[i].Labels = []float32{float32(1000 - entries[i].Index), 5}
	}
	slices.Reverse(entries) // file order does not matter
	lst := filepath.Join(t.TempDir(), "rev.lst")
	writeList(t, lst, entries)
	cfg.Data.ListPath = lst
	cfg.Data.LabelWidth = 2
	labels = labelsOf(pass(t, newIter(t, cfg)))
	for i := range 1000 {
		if labels[2*i] != float32(1000-i) || labels[2*i+1] != 5 {
			t.Fatalf("record %d: labels %v from the .lst, want [%d 5]", i, labels[2*i:2*i+2], 1000-i)
		}
	}
	// An id missing from the .lst is an error.
	writeList(t, lst, entries[:10])
	if err := passErr(newIter(t, cfg)); !errors.Is(err, errLabel) {
		t.Errorf("id missing from the .lst: %v", err)
	}
}

func writeList(t testing.TB, path string, entries []imagerec.ListEntry) {
	t.Helper()
	var buf bytes.Buffer
	if err := imagerec.WriteList(&buf, entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func passErr(it *recIter) error {
	for _, err := range it.All(context.Background()) {
		if err != nil {
			return err
		}
	}
	return nil
}

// Shuffling, with the .idx (a permutation per epoch) and without it (a
// shuffle buffer): every image once per epoch, in an order that changes
// with the epoch and repeats with the seed.
func TestIterShuffle(t *testing.T) {
	for _, idx := range []string{tdPath(mnistJPG, ".idx"), ""} {
		cfg := mnistConfig()
		cfg.Data.Shuffle = true
		cfg.Data.IdxPath = idx
		cfg.Data.ShuffleBuffer = 300
		cfg.Data.Seed = 7
		cfg.Data.ListPath = tdPath(mnistJPG, ".lst")
		cfg.Batch.Last = batch.Keep
		// Label each image by its id, to see the order.
		entries, err := imagerec.ReadList(cfg.Data.ListPath)
		if err != nil {
			t.Fatal(err)
		}
		for i := range entries {
			entries[i].Labels = []float32{float32(entries[i].Index)}
		}
		cfg.Data.ListPath = filepath.Join(t.TempDir(), "ids.lst")
		writeList(t, cfg.Data.ListPath, entries)
		it := newIter(t, cfg)
		e0, e1 := labelsOf(pass(t, it)), labelsOf(pass(t, it))
		again := labelsOf(pass(t, newIter(t, cfg)))
		for _, order := range [][]float32{e0, e1} {
			sorted := slices.Sorted(slices.Values(order))
			for i, v := range sorted {
				if v != float32(i) {
					t.Fatalf("idx %q: epoch is not a permutation of the 1000 ids", idx)
				}
			}
		}
		if slices.Equal(e0, e1) || slices.IsSorted(e0) {
			t.Errorf("idx %q: epochs not shuffled or not different", idx)
		}
		if !slices.Equal(e0, again) {
			t.Errorf("idx %q: same seed, different order", idx)
		}
	}
}

// Shard splits the records into disjoint shards that cover the file.
func TestIterShard(t *testing.T) {
	seen := map[float32]int{}
	for part := range 3 {
		for _, idx := range []string{"", tdPath(mnistJPG, ".idx")} {
			cfg := mnistConfig()
			cfg.Data.ShardCount, cfg.Data.ShardIndex = 3, part
			cfg.Data.IdxPath = idx
			cfg.Data.Shuffle = idx != ""
			cfg.Batch.Last = batch.Keep
			entries, _ := imagerec.ReadList(tdPath(mnistJPG, ".lst"))
			for i := range entries {
				entries[i].Labels = []float32{float32(entries[i].Index)}
			}
			cfg.Data.ListPath = filepath.Join(t.TempDir(), "ids.lst")
			writeList(t, cfg.Data.ListPath, entries)
			ids := labelsOf(pass(t, newIter(t, cfg)))
			if len(ids) < 300 || len(ids) > 370 {
				t.Errorf("part %d (idx %q): %d images", part, idx, len(ids))
			}
			for _, id := range ids {
				seen[id]++
			}
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("parts cover %d ids, want 1000", len(seen))
	}
	for id, n := range seen {
		if n != 2 { // once per part, for each of the two readers
			t.Fatalf("id %v seen %d times", id, n)
		}
	}
}

// Gray PNG records: 1 channel as stored, 3 channels repeated; dtype uint8
// gives the raw pixels.
func TestIterGrayAndUint8(t *testing.T) {
	cfg := mnistConfig()
	cfg.Data.RecPath = tdPath("mnist_t10k_1000_png_gray", ".rec")
	cfg.Data.Shape = [3]int{1, 28, 28}
	cfg.Backend.DType = sample.Uint8
	cfg.Norm.Mean = [4]float32{100} // ignored for uint8, as in MXNet
	it := newIter(t, cfg)
	if it.ProvideData()[0].DType != sample.Uint8 {
		t.Fatal("ProvideData dtype is not uint8")
	}
	bs := pass(t, it)
	recs := recimages.Records(t, cfg.Data.RecPath)
	ex, err := imagerec.DecodeRecord(recs[5], nil, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := bs[0].Data[0].U8[5*784 : 6*784]; !bytes.Equal(got, ex.Image.Pix) {
		t.Fatal("uint8 gray row differs from the decoded PNG")
	}
	cfg.Data.Shape = [3]int{3, 28, 28}
	bs = pass(t, newIter(t, cfg))
	row := bs[0].Data[0].U8[5*3*784 : 6*3*784]
	for c := range 3 {
		if !bytes.Equal(row[c*784:(c+1)*784], ex.Image.Pix) {
			t.Fatalf("channel %d of the RGB row is not the gray image", c)
		}
	}
}

// Resize, affine warp, padding and random crop sizes take the general
// path; the output has the configured shape and repeats with the seed.
func TestIterGeometry(t *testing.T) {
	cfg := mnistConfig()
	cfg.Data.Shape = [3]int{3, 32, 32}
	cfg.Data.ShardCount = 5 // 200 images
	cfg.Batch.Size = 50
	for name, aug := range map[string]augOptions{
		"resize":    {Resize: 40, Crop: cropRandom, Interp: augment.RandomInterp},
		"affine":    {Resize: 36, MaxRotateAngle: 20, MaxShearRatio: 0.1, MinRandomScale: 0.9, MaxRandomScale: 1.2, MaxAspectRatio: 0.2, MinImgSize: 32, Fill: 255},
		"pad":       {Pad: 4, Crop: cropFixed, CropX: 1, CropY: 3},
		"crop size": {MinCropSize: 14, MaxCropSize: 28, Crop: cropRandom, Interp: augment.AutoInterp},
	} {
		cfg.Aug = aug
		a, b := pass(t, newIter(t, cfg)), pass(t, newIter(t, cfg))
		if len(a) < 4 || a[0].Data[0].Shape[2] != 32 || !sameBatches(a, b) {
			t.Errorf("%s: %d batches, not repeatable or wrong shape", name, len(a))
		}
	}
	// Too small for the shape without resizing: an error naming the record.
	cfg.Aug = augOptions{}
	err := passErr(newIter(t, cfg))
	var re *tensorfeed.Error
	if !errors.Is(err, decode.ErrSize) || !errors.As(err, &re) || re.Record != 0 || re.Offset != 0 {
		t.Errorf("28x28 images for a 32x32 shape: %v", err)
	}
}

// A corrupt JPEG and a header whose flag runs past the record give errors
// naming the file, the record and its byte offset.
func TestIterBadRecords(t *testing.T) {
	good := recimages.Records(t, tdPath(mnistJPG, ".rec"))
	corrupt := append([]byte(nil), good[2].Data...)
	corrupt = corrupt[:len(corrupt)-300] // truncated JPEG
	bigFlag := append([]byte(nil), good[3].Data...)
	bigFlag[0], bigFlag[1], bigFlag[2], bigFlag[3] = 0xff, 0xff, 0, 0 // 65535 labels
	for name, c := range map[string]struct {
		payload []byte
		target  error
	}{
		"corrupt jpeg": {corrupt, decode.ErrImage},
		"flag too big": {bigFlag, nil},
	} {
		path, offs := recimages.WriteRec(t, good[0].Data, good[1].Data, c.payload, good[4].Data)
		for _, threads := range []int{1, 3} {
			cfg := mnistConfig()
			cfg.Data.RecPath = path
			cfg.Batch.Size = 2
			cfg.Backend.Threads = threads
			var got []*tensor.Batch
			var err error
			for b, e := range newIter(t, cfg).All(context.Background()) {
				if e != nil {
					err = e
					break
				}
				got = append(got, b)
			}
			var re *tensorfeed.Error
			if !errors.As(err, &re) {
				t.Fatalf("%s: err = %v, want a *tensorfeed.Error", name, err)
			}
			if re.Path != path || re.Record != 2 || re.Offset != offs[2] || offs[2] == 0 {
				t.Errorf("%s: error at %s record %d offset %d, want record 2 at offset %d", name, re.Path, re.Record, re.Offset, offs[2])
			}
			if c.target != nil && !errors.Is(err, c.target) {
				t.Errorf("%s: %v does not wrap %v", name, err, c.target)
			}
			if want := "byte " + itoa(offs[2]); !strings.Contains(err.Error(), want) {
				t.Errorf("%s: message %q lacks %q", name, err, want)
			}
			if len(got) != 1 {
				t.Errorf("%s: %d batches before the error, want 1", name, len(got))
			}
		}
	}
}

func itoa(v int64) string { return strings.TrimSpace(strings.Repeat(" ", 0) + formatInt(v)) }

func formatInt(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// The Iter keeps the contract of every reader: re-iterable, deterministic,
// every goroutine joined on break, cancel and error.
func TestIterContract(t *testing.T) {
	cfg := mnistConfig()
	cfg.Backend.Threads = 3
	cfg.Aug.Mirror = mirrorRandom
	if err := sourcetest.TestReader[*tensor.Batch](newIter(t, cfg)); err != nil {
		t.Error(err)
	}
}

// Stopping early and cancelling end the pass with every goroutine joined
// (TestMain checks for leaks).
func TestIterStop(t *testing.T) {
	cfg := mnistConfig()
	cfg.Backend.Threads = 3
	it := newIter(t, cfg)
	sourcetest.BreakAfter(t, it, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	n := 0
	for _, e := range it.All(ctx) {
		if e != nil {
			err = e
			break
		}
		if n++; n == 1 {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v, want context.Canceled", err)
	}
}

// Recycled tensors are reused and hold the right data.
func TestIterRecycle(t *testing.T) {
	cfg := mnistConfig()
	cfg.Backend.Prefetch = -1
	cfg.Backend.Threads = 1
	it := newIter(t, cfg)
	want := pass(t, it)
	var firsts [][]float32
	i := 0
	reused := false
	for b, err := range it.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(b.Data[0].F32, want[i].Data[0].F32) || !slices.Equal(b.Label[0].F32, want[i].Label[0].F32) || b.Padded != want[i].Padded {
			t.Fatalf("batch %d differs after recycling", i)
		}
		for _, f := range firsts {
			if &f[0] == &b.Data[0].F32[0] {
				reused = true
			}
		}
		firsts = append(firsts, b.Data[0].F32)
		b.Release()
		i++
	}
	if !reused {
		t.Error("no batch memory was reused")
	}
}

func TestNewIterErrors(t *testing.T) {
	for name, c := range map[string]struct {
		mod  func(*iterConfig)
		want string
	}{
		"no rec":      {func(c *iterConfig) { c.Data.RecPath = "" }, ".rec path is empty"},
		"missing rec": {func(c *iterConfig) { c.Data.RecPath = "nope.rec" }, "nope.rec"},
		"channels":    {func(c *iterConfig) { c.Data.Shape[0] = 2 }, "channels must be 1, 3 or 4"},
		"batch":       {func(c *iterConfig) { c.Batch.Size = 0 }, "batch_size 0 < 1"},
		"parts":       {func(c *iterConfig) { c.Data.ShardCount, c.Data.ShardIndex = 2, 2 }, "part_index 2 of num_parts 2"},
		"crop sizes":  {func(c *iterConfig) { c.Aug.MinCropSize, c.Aug.MaxCropSize = 20, 10 }, "min_crop_size 20, max_crop_size 10"},
		"scale":       {func(c *iterConfig) { c.Aug.MinRandomScale, c.Aug.MaxRandomScale = 2, 1 }, "affine"},
		"mean image":  {func(c *iterConfig) { c.Norm.MeanImage = make([]float32, 5) }, "shape [5], data_shape is [3 28 28]"},
		"dtype":       {func(c *iterConfig) { c.Backend.DType = sample.Int32 }, "DType"},
		"bad lst":     {func(c *iterConfig) { c.Data.ListPath = tdPath(mnistJPG, ".rec") }, "is not an unsigned integer"},
	} {
		cfg := mnistConfig()
		c.mod(&cfg)
		_, err := newRec(cfg.Data.RecPath, cfg.opts()...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
	// Several problems are reported together.
	_, err := newRec("")
	if err == nil || !strings.Contains(err.Error(), ".rec path") || !strings.Contains(err.Error(), "batch_size is required") {
		t.Errorf("empty config: %v", err)
	}
}

// hidden hides everything but the Decoder methods of its decoder.
type hidden struct{ decode.Decoder }

// The decoder's fast paths (lending its buffer instead of copying the
// crop) give the same batches as the plain Decoder interface.
func TestIterDecoderPaths(t *testing.T) {
	for _, dt := range []sample.DType{sample.Float32, sample.Uint8, sample.Int8} {
		cfg := mnistConfig()
		cfg.Data.Shape = [3]int{3, 20, 22}
		cfg.Data.ShardCount = 4
		cfg.Aug = augOptions{Crop: cropRandom, Mirror: mirrorRandom}
		cfg.Norm = augment.Normalize{Mean: [4]float32{1, 2, 3}, MaxRandomContrast: 0.2}
		cfg.Backend.DType = dt
		fast := pass(t, newIter(t, cfg))
		cfg.Backend.Decoder = hidden{decode.Default()}
		plain := pass(t, newIter(t, cfg))
		if !sameBatches(fast, plain) {
			t.Errorf("%v: batches differ between the decoder's fast path and Decode", dt)
		}
	}
}
