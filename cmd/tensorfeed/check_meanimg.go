package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
)

// maxMeanImageBytes bounds the mean image files check reads: a mean image
// of 3 x 2048 x 2048 float32 values is 48 MiB.
const maxMeanImageBytes = 128 << 20

// checkMeanImage parses an MXNet NDArray mean image file (imagerec's
// mean_img) with imagerec.ParseMeanImage, which checks every count against
// the bytes present, and then checks that every value is finite: a NaN or
// an infinity in the mean would turn every pixel at its place into one.
func checkMeanImage(ctx context.Context, path string, rep *reporter, stdout io.Writer) error {
	f, err := openInput(ctx, path, rep.storage)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMeanImageBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxMeanImageBytes {
		return checkError(path, maxMeanImageBytes, fmt.Sprintf("larger than the %d MiB a mean image file may be here", maxMeanImageBytes>>20))
	}
	shape, mean, err := imagerec.ParseMeanImage(data, path)
	if err != nil {
		return err
	}
	start := meanDataOffset(data, len(shape))
	for i, v := range mean {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			if !rep.report(checkError(path, int64(start+4*i), fmt.Sprintf("value %d of the mean is %v", i, v))) {
				return nil
			}
		}
	}
	if rep.bad > 0 {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range mean {
		lo, hi = min(lo, float64(v)), max(hi, float64(v))
	}
	fmt.Fprintf(stdout, "%s: mean image: shape %v, %d float32 values in [%g, %g]\n", path, shape, len(mean), lo, hi)
	return nil
}

// meanDataOffset returns where the values of a parsed mean image file
// start: after the list header (24 bytes) and the array's header, whose
// layout depends on its version (see imagerec's meanimg.go).
func meanDataOffset(data []byte, ndim int) int {
	const list = 24
	switch binary.LittleEndian.Uint32(data[list:]) {
	case 0xF993fac9, 0xF993faca: // V2, V3: magic, storage type, ndim, int64 dims
		return list + 12 + 8*ndim + 12
	case 0xF993fac8: // V1: magic, ndim, int64 dims
		return list + 8 + 8*ndim + 12
	}
	return list + 4 + 4*ndim + 12 // the first format: ndim, uint32 dims
}
