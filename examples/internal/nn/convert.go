package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FromFloat32 copies rows×cols float32 values (row-major, as a sink's
// tensor holds them) into m and returns m. m is reallocated when it is nil
// or its shape differs, so a training loop can pass the same matrix for
// every batch.
func FromFloat32(m *mat.Dense, rows, cols int, src []float32) *mat.Dense {
	if len(src) != rows*cols {
		panic(fmt.Sprintf("nn.FromFloat32: %d values for %d×%d", len(src), rows, cols))
	}
	m = buffer(m, rows, cols)
	dst := raw(m)
	for i, v := range src {
		dst[i] = float64(v)
	}
	return m
}
