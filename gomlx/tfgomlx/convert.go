package tfgomlx

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// dtypeOf maps a tensorfeed element type to GoMLX's.
func dtypeOf(t sample.DType) (dtypes.DType, error) {
	switch t {
	case sample.Float32:
		return dtypes.Float32, nil
	case sample.Int32:
		return dtypes.Int32, nil
	case sample.Int64:
		return dtypes.Int64, nil
	case sample.Uint8:
		return dtypes.Uint8, nil
	case sample.Int8:
		return dtypes.Int8, nil
	}
	return dtypes.InvalidDType, fmt.Errorf("%w: element type %v has no GoMLX type here", ErrSchema, t)
}

// DType returns the GoMLX element type of a tensorfeed one: float32,
// int32, int64, uint8 and int8 map to the GoMLX type of the same name.
func DType(t sample.DType) (dtypes.DType, error) { return dtypeOf(t) }

// toGoMLX copies t into a new GoMLX tensor after checking it against its
// description: the same element type and the same dimensions after the
// batch's.
func toGoMLX(t tensor.Tensor, want tensor.Desc) (*tensors.Tensor, error) {
	if t.DType != want.DType || len(t.Shape) != len(want.Shape) || len(t.Shape) == 0 || !slices.Equal(t.Shape[1:], want.Shape[1:]) {
		return nil, fmt.Errorf("%w: tensor %q is %v%v, the schema says %s", ErrSchema, t.Name, t.DType, t.Shape, want)
	}
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	var got int
	var out *tensors.Tensor
	switch t.DType {
	case sample.Float32:
		out, got = flat(t.F32, n, t.Shape)
	case sample.Int32:
		out, got = flat(t.I32, n, t.Shape)
	case sample.Int64:
		out, got = flat(t.I64, n, t.Shape)
	case sample.Uint8:
		out, got = flat(t.U8, n, t.Shape)
	case sample.Int8:
		out, got = flat(t.I8, n, t.Shape)
	}
	if out == nil {
		return nil, fmt.Errorf("%w: tensor %q of shape %v holds %d elements, not %d", ErrSchema, t.Name, t.Shape, got, n)
	}
	return out, nil
}

// flat returns a GoMLX tensor of the given shape over a copy of data, or
// nil when data does not hold the n elements the shape needs; got is
// len(data), for the error.
func flat[E dtypes.Supported](data []E, n int, shape []int) (out *tensors.Tensor, got int) {
	if len(data) != n {
		return nil, len(data)
	}
	return tensors.FromFlatDataAndDimensions(data, shape...), n
}
