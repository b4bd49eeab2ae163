package badinput

import (
	"encoding/binary"
	"math"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
)

// meanImage returns a good mean image file of shape 3 x 4 x 4, as
// ImageRecordIter saves mean_img.
func meanImage() []byte {
	mean := make([]float32, 3*4*4)
	for i := range mean {
		mean[i] = 100 + float32(i)
	}
	return imagerec.AppendMeanImage(nil, []int{3, 4, 4}, mean)
}

// Offsets in the file meanImage writes.
const (
	meanCount = 16 // the array count
	meanArray = 24 // the array's magic
	meanStore = 28 // its storage type
	meanNDim  = 32 // ndim
	meanDims  = 36 // the dimensions, 3 int64
	meanType  = 68 // the type flag, after the context
	meanData  = 72 // the values
)

// meanimg writes the cases of the mean image parser (imagerec's mean_img,
// MXNet's NDArray file format).
func (w *writer) meanimg() {
	base := meanImage()
	w.add(good("meanimg_good", MeanImage), "meanimg_good.bin", base)
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), base...)) }
	le := binary.LittleEndian

	w.add(bad("meanimg_wrong_magic", MeanImage, "the list magic is not 0x112"),
		"meanimg_wrong_magic.bin", edit(func(b []byte) []byte { b[0] = 0x13; return b }))
	for _, cut := range []struct {
		name string
		at   int
	}{{"header", 12}, {"array_count", meanCount + 3}, {"shape", meanDims + 10}, {"type", meanType + 2},
		{"data", meanData + 4*20 + 1}, {"names", len(base) - 3}} {
		w.add(bad("meanimg_cut_in_"+cut.name, MeanImage, "truncated in the %s, at byte %d", cut.name, cut.at),
			"meanimg_cut_in_"+cut.name+".bin", base[:cut.at])
	}
	w.add(bad("meanimg_empty", MeanImage, "an empty file"), "meanimg_empty.bin", []byte{})
	w.add(bad("meanimg_two_arrays", MeanImage, "the list claims 2 arrays"),
		"meanimg_two_arrays.bin", edit(func(b []byte) []byte { le.PutUint64(b[meanCount:], 2); return b }))
	w.add(bad("meanimg_count_bomb", MeanImage, "the list claims 2^62 arrays"),
		"meanimg_count_bomb.bin", edit(func(b []byte) []byte { le.PutUint64(b[meanCount:], 1<<62); return b }))
	w.add(bad("meanimg_sparse", MeanImage, "storage type 1 (row sparse)"),
		"meanimg_sparse.bin", edit(func(b []byte) []byte { le.PutUint32(b[meanStore:], 1); return b }))
	w.add(bad("meanimg_ndim_bomb", MeanImage, "ndim 2^31-1, more dimensions than the file has bytes"),
		"meanimg_ndim_bomb.bin", edit(func(b []byte) []byte { le.PutUint32(b[meanNDim:], math.MaxInt32); return b }))
	w.add(bad("meanimg_negative_dim", MeanImage, "a dimension of -1"),
		"meanimg_negative_dim.bin", edit(func(b []byte) []byte { le.PutUint64(b[meanDims+8:], math.MaxUint64); return b }))
	w.add(bad("meanimg_shape_bomb", MeanImage, "shape 3 x 2^30 x 2^30: more values than the file holds"),
		"meanimg_shape_bomb.bin", edit(func(b []byte) []byte {
			le.PutUint64(b[meanDims+8:], 1<<30)
			le.PutUint64(b[meanDims+16:], 1<<30)
			return b
		}))
	w.add(bad("meanimg_shape_over_data", MeanImage, "shape 3 x 4 x 5 needs 240 bytes of values, 216 remain"),
		"meanimg_shape_over_data.bin", edit(func(b []byte) []byte { le.PutUint64(b[meanDims+16:], 5); return b }))
	w.add(bad("meanimg_float64", MeanImage, "type flag 1 (float64)"),
		"meanimg_float64.bin", edit(func(b []byte) []byte { le.PutUint32(b[meanType:], 1); return b }))
	w.add(bad("meanimg_name_bomb", MeanImage, "a name of 2^63 bytes"),
		"meanimg_name_bomb.bin", edit(func(b []byte) []byte { le.PutUint64(b[len(b)-16:], 1<<63); return b }))
	w.add(bad("meanimg_trailing", MeanImage, "4 bytes after the names"),
		"meanimg_trailing.bin", append(append([]byte(nil), base...), 1, 2, 3, 4))
	nan := edit(func(b []byte) []byte { le.PutUint32(b[meanData+4*5:], math.Float32bits(float32(math.NaN()))); return b })
	c := bad("meanimg_nan", MeanImage, "value 5 is NaN: every pixel at its place would become NaN")
	c.CheckOnly = true
	w.add(c, "meanimg_nan.bin", nan)
	c = bad("meanimg_inf", MeanImage, "value 0 is +Inf")
	c.CheckOnly = true
	w.add(c, "meanimg_inf.bin", edit(func(b []byte) []byte { le.PutUint32(b[meanData:], math.Float32bits(float32(math.Inf(1)))); return b }))
}
