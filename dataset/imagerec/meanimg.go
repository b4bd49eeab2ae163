package imagerec

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
)

// MXNet's NDArray file format (NDArray::Save of a list, as mx.nd.save
// writes it), all little-endian:
//
//	uint64 0x112                       list magic
//	uint64 0                           reserved
//	uint64 n                           number of arrays
//	n arrays, each:
//	  uint32 0xF993fac9 (V2) or 0xF993faca (V3)
//	  int32  storage type              0: dense
//	  uint32 ndim, int64 dims[ndim]    shape
//	  int32  dev_type, int32 dev_id    context
//	  int32  type flag                 0: float32
//	  data, ndim-product elements
//	uint64 k                           number of names (0 or n)
//	k names, each uint64 length + bytes
//
// Arrays saved as V1 (0xF993fac8: no storage type) and by the first
// versions (no magic: uint32 ndim and uint32 dims) are read too.
const (
	ndListMagic = 0x112
	ndV1Magic   = 0xF993fac8
	ndV2Magic   = 0xF993fac9
	ndV3Magic   = 0xF993faca
	ndFloat32   = 0 // mshadow's kFloat32
	ndDense     = 0 // kDefaultStorage
)

// ErrMeanImage is wrapped by every error about a malformed mean image file.
// The concrete error is a *tensorfeed.Error that says where.
var ErrMeanImage error = &badData{"imagerec: bad mean image file"}

// meanImageError returns the error about a malformed mean image file: a
// *tensorfeed.Error with the file and the byte offset of the field that is
// wrong, which wraps ErrMeanImage.
func meanImageError(file string, at int64, msg string) error {
	return &tensorfeed.Error{Path: file, Offset: at, Record: -1, Err: cause.New(ErrMeanImage, nil, msg)}
}

// ndReader reads the fields of an NDArray file held in memory.
type ndReader struct {
	b    []byte
	off  int
	file string
}

func (r *ndReader) fail(at int, format string, args ...any) error {
	return meanImageError(r.file, int64(at), fmt.Sprintf(format, args...))
}

// take returns the next n bytes, which hold the what of the file.
func (r *ndReader) take(n int, what string) ([]byte, error) {
	if len(r.b)-r.off < n {
		return nil, r.fail(r.off, "file ends in the %s", what)
	}
	r.off += n
	return r.b[r.off-n : r.off], nil
}

func (r *ndReader) u32(what string) (uint32, error) {
	b, err := r.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *ndReader) u64(what string) (uint64, error) {
	b, err := r.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// ParseMeanImage parses an MXNet NDArray file holding one dense float32
// array, as ImageRecordIter's mean_img is saved (see WriteMeanImage), and
// returns the array's shape and values. file names the input in errors.
//
// Every count and size in the file is checked against the bytes present
// before anything is allocated, so the memory taken is bounded by len(data).
// Errors are *tensorfeed.Error values wrapping ErrMeanImage and
// tensorfeed.ErrBadData: a file with several arrays (MXNet refuses it too),
// a sparse array, or an element type other than float32 is refused.
func ParseMeanImage(data []byte, file string) (shape []int, mean []float32, err error) {
	r := &ndReader{b: data, file: file}
	magic, err := r.u64("list magic")
	if err != nil {
		return nil, nil, err
	}
	if magic != ndListMagic {
		return nil, nil, r.fail(0, "list magic %#x, want %#x: not an NDArray file", magic, ndListMagic)
	}
	if _, err := r.u64("reserved word"); err != nil {
		return nil, nil, err
	}
	at := r.off
	n, err := r.u64("array count")
	if err != nil {
		return nil, nil, err
	}
	if n != 1 {
		return nil, nil, r.fail(at, "%d arrays, want one", n)
	}
	if shape, mean, err = r.array(); err != nil {
		return nil, nil, err
	}
	at = r.off
	k, err := r.u64("name count")
	if err != nil {
		return nil, nil, err
	}
	if k > 1 {
		return nil, nil, r.fail(at, "%d names for one array", k)
	}
	if k == 1 {
		at = r.off
		l, err := r.u64("name length")
		if err != nil {
			return nil, nil, err
		}
		if l > uint64(len(r.b)-r.off) {
			return nil, nil, r.fail(at, "name of %d bytes, %d left", l, len(r.b)-r.off)
		}
		r.off += int(l)
	}
	if r.off != len(r.b) {
		return nil, nil, r.fail(r.off, "%d bytes after the array", len(r.b)-r.off)
	}
	return shape, mean, nil
}

// array reads one array.
func (r *ndReader) array() ([]int, []float32, error) {
	at := r.off
	magic, err := r.u32("array magic")
	if err != nil {
		return nil, nil, err
	}
	wide := true // int64 dims
	switch magic {
	case ndV2Magic, ndV3Magic:
		at := r.off
		st, err := r.u32("storage type")
		if err != nil {
			return nil, nil, err
		}
		if st != ndDense {
			return nil, nil, r.fail(at, "storage type %d, want 0 (dense)", int32(st))
		}
	case ndV1Magic:
	default: // the first format: no magic, the word is ndim
		r.off, wide = at, false
	}
	at = r.off
	ndim, err := r.u32("ndim")
	if err != nil {
		return nil, nil, err
	}
	if int32(ndim) <= 0 {
		return nil, nil, r.fail(at, "ndim %d: an empty or unknown shape", int32(ndim))
	}
	dimSize := 4
	if wide {
		dimSize = 8
	}
	if uint64(ndim)*uint64(dimSize) > uint64(len(r.b)-r.off) {
		return nil, nil, r.fail(at, "ndim %d, but only %d bytes left", ndim, len(r.b)-r.off)
	}
	shape := make([]int, ndim)
	elems := uint64(1)
	for i := range shape {
		at := r.off
		var d uint64
		if wide {
			d, _ = r.u64("shape")
		} else {
			v, _ := r.u32("shape")
			d = uint64(v)
		}
		if int64(d) <= 0 || d > math.MaxInt32 {
			return nil, nil, r.fail(at, "dimension %d is %d", i, int64(d))
		}
		shape[i] = int(d)
		elems *= d
		if elems > uint64(len(r.b)) {
			return nil, nil, r.fail(at, "shape %v holds more values than the file has bytes", shape[:i+1])
		}
	}
	if _, err := r.u32("context"); err != nil {
		return nil, nil, err
	}
	if _, err := r.u32("context"); err != nil {
		return nil, nil, err
	}
	at = r.off
	tf, err := r.u32("type flag")
	if err != nil {
		return nil, nil, err
	}
	if tf != ndFloat32 {
		return nil, nil, r.fail(at, "type flag %d, want 0 (float32)", int32(tf))
	}
	if elems*4 > uint64(len(r.b)-r.off) {
		return nil, nil, r.fail(r.off, "shape %v needs %d bytes of data, %d left", shape, elems*4, len(r.b)-r.off)
	}
	mean := make([]float32, elems)
	for i := range mean {
		mean[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.b[r.off:]))
		r.off += 4
	}
	return shape, mean, nil
}

// AppendMeanImage appends to dst the MXNet NDArray file of one dense
// float32 array of the given shape named "mean_img", as ImageRecordIter
// saves its mean image (V2 array format, CPU context). It panics when
// len(mean) is not the product of shape.
func AppendMeanImage(dst []byte, shape []int, mean []float32) []byte {
	elems := 1
	for _, d := range shape {
		elems *= d
	}
	if elems != len(mean) {
		panic(fmt.Sprintf("imagerec: AppendMeanImage: %d values for shape %v", len(mean), shape))
	}
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, ndListMagic)
	dst = le.AppendUint64(dst, 0)
	dst = le.AppendUint64(dst, 1)
	dst = le.AppendUint32(dst, ndV2Magic)
	dst = le.AppendUint32(dst, ndDense)
	dst = le.AppendUint32(dst, uint32(len(shape)))
	for _, d := range shape {
		dst = le.AppendUint64(dst, uint64(d))
	}
	dst = le.AppendUint32(dst, 1) // dev_type: cpu
	dst = le.AppendUint32(dst, 0) // dev_id
	dst = le.AppendUint32(dst, ndFloat32)
	for _, v := range mean {
		dst = le.AppendUint32(dst, math.Float32bits(v))
	}
	const name = "mean_img"
	dst = le.AppendUint64(dst, 1)
	dst = le.AppendUint64(dst, uint64(len(name)))
	return append(dst, name...)
}

// WriteMeanImage saves mean, of the given shape, to the file at path in
// MXNet's NDArray format (see AppendMeanImage). It writes a temporary file
// beside path and renames it, so a reader never sees half a file.
func WriteMeanImage(path string, shape []int, mean []float32) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(AppendMeanImage(nil, shape, mean))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
