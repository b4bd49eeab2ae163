package imagerec_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/sample"
)

// TestMeanImg checks MXNet's mean_img: when the file is missing, the first
// pass computes the per-pixel mean of the data, saves it in MXNet's NDArray
// format and subtracts it; a later Iter reads the saved file.
func TestMeanImg(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mean.nd")
	cfg := mnistConfig()
	cfg.Batch.Last = batch.Keep
	it, err := imagerec.New(cfg.Data.RecPath, append(cfg.opts(), imagerec.MeanImg(path))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("New wrote the mean image; the first pass should")
	}
	got := pass(t, it)

	// The mean of the raw pixels, computed here.
	raw := cfg
	raw.Backend.DType = sample.Uint8
	per := 3 * 28 * 28
	sum := make([]float64, per)
	n := 0
	for _, b := range pass(t, newIter(t, raw)) {
		for r := range b.Len() {
			for i, v := range b.Data[0].U8[r*per : (r+1)*per] {
				sum[i] += float64(v)
			}
			n++
		}
	}
	want := make([]float32, per)
	for i := range sum {
		want[i] = float32(sum[i] / float64(n))
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	shape, mean, err := imagerec.ParseMeanImage(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shape, []int{3, 28, 28}) || !slices.Equal(mean, want) {
		t.Fatalf("saved mean image: shape %v, values differ: %v", shape, !slices.Equal(mean, want))
	}

	withMean := cfg
	withMean.Norm = augment.Normalize{MeanImage: want}
	if !sameBatches(got, pass(t, newIter(t, withMean))) {
		t.Error("the first pass does not subtract the computed mean image")
	}
	again, err := imagerec.New(cfg.Data.RecPath, append(cfg.opts(), imagerec.MeanImg(path))...)
	if err != nil {
		t.Fatal(err)
	}
	if !sameBatches(got, pass(t, again)) {
		t.Error("an Iter reading the saved mean image gives other batches")
	}
}

func TestMeanImgErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := mnistConfig()
	wrong := filepath.Join(dir, "wrong.nd")
	if err := imagerec.WriteMeanImage(wrong, []int{1, 28, 28}, make([]float32, 28*28)); err != nil {
		t.Fatal(err)
	}
	if _, err := imagerec.New(cfg.Data.RecPath, append(cfg.opts(), imagerec.MeanImg(wrong))...); !errors.Is(err, imagerec.ErrMeanImage) {
		t.Errorf("a mean image of another shape: %v", err)
	}
	both := cfg
	both.Norm = augment.Normalize{MeanImage: make([]float32, 3*28*28)}
	if _, err := imagerec.New(cfg.Data.RecPath, append(both.opts(), imagerec.MeanImg(filepath.Join(dir, "m.nd")))...); err == nil {
		t.Error("MeanImg with Normalize's MeanImage: no error")
	}
	// A missing directory: the pass that should save it fails.
	it, err := imagerec.New(cfg.Data.RecPath, append(cfg.opts(), imagerec.MeanImg(filepath.Join(dir, "no", "m.nd")))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := passErr(it); err == nil {
		t.Error("saving into a missing directory: no error")
	}
}

// nd builds an NDArray list file by hand.
type nd []byte

func (b nd) u32(v uint32) nd { return binary.LittleEndian.AppendUint32(b, v) }
func (b nd) u64(v uint64) nd { return binary.LittleEndian.AppendUint64(b, v) }
func (b nd) f32(vs ...float32) nd {
	for _, v := range vs {
		b = b.u32(math.Float32bits(v))
	}
	return b
}

func TestParseMeanImageVersions(t *testing.T) {
	head := nd(nil).u64(0x112).u64(0).u64(1)
	vals := []float32{1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		name string
		file nd
	}{
		{"written", nd(imagerec.AppendMeanImage(nil, []int{1, 2, 3}, vals))},
		{"v3, no names", head.u32(0xF993faca).u32(0).u32(3).u64(1).u64(2).u64(3).u32(1).u32(0).u32(0).f32(vals...).u64(0)},
		{"v1", head.u32(0xF993fac8).u32(3).u64(1).u64(2).u64(3).u32(2).u32(1).u32(0).f32(vals...).u64(0)},
		{"first format", head.u32(3).u32(1).u32(2).u32(3).u32(1).u32(0).u32(0).f32(vals...).u64(0)},
	} {
		shape, mean, err := imagerec.ParseMeanImage(tc.file, "m.nd")
		if err != nil || !slices.Equal(shape, []int{1, 2, 3}) || !slices.Equal(mean, vals) {
			t.Errorf("%s: %v %v %v", tc.name, shape, mean, err)
		}
	}
}

func TestParseMeanImageBad(t *testing.T) {
	good := nd(imagerec.AppendMeanImage(nil, []int{1, 2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	head := nd(nil).u64(0x112).u64(0).u64(1)
	for _, tc := range []struct {
		name string
		file nd
	}{
		{"empty", nil},
		{"not an NDArray file", nd(nil).u64(7).u64(0)},
		{"two arrays", nd(nil).u64(0x112).u64(0).u64(2)},
		{"sparse", head.u32(0xF993fac9).u32(1)},
		{"float16", head.u32(0xF993fac9).u32(0).u32(1).u64(2).u32(1).u32(0).u32(2).u32(0).u64(0)},
		{"ndim beyond the file", head.u32(0xF993fac9).u32(0).u32(1 << 30)},
		{"dims beyond the file", head.u32(0xF993fac9).u32(0).u32(2).u64(1 << 40).u64(1 << 40)},
		{"negative dim", head.u32(0xF993fac9).u32(0).u32(1).u64(math.MaxUint64)},
		{"unknown shape", head.u32(0xF993faca).u32(0).u32(math.MaxUint32)},
		{"truncated data", good[:len(good)-30]},
		{"trailing bytes", append(slices.Clone(good), 0)},
		{"name beyond the file", nd(slices.Clone(good[:len(good)-16])).u64(1 << 50)},
	} {
		_, _, err := imagerec.ParseMeanImage(tc.file, "m.nd")
		var me *tensorfeed.Error
		if !errors.Is(err, imagerec.ErrMeanImage) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &me) || me.Path != "m.nd" {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// FuzzParseMeanImage feeds arbitrary bytes to the NDArray parser: it must
// never panic, allocate no more than the input's size in values, and either
// return values matching the shape or a *tensorfeed.Error.
func FuzzParseMeanImage(f *testing.F) {
	f.Add(imagerec.AppendMeanImage(nil, []int{3, 2, 2}, make([]float32, 12)))
	f.Add([]byte(nd(nil).u64(0x112).u64(0).u64(1).u32(2).u32(1).u32(1).u32(1).u32(0).u32(0).f32(5).u64(0)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		shape, mean, err := imagerec.ParseMeanImage(data, "f.nd")
		if err != nil {
			var me *tensorfeed.Error
			if !errors.As(err, &me) || !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("error of another kind: %v", err)
			}
			return
		}
		n := 1
		for _, d := range shape {
			n *= d
		}
		if n != len(mean) || 4*len(mean) > len(data) {
			t.Fatalf("shape %v with %d values from %d bytes", shape, len(mean), len(data))
		}
	})
}
