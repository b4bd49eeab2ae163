package imagerec_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
)

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
