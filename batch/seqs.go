package batch

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed"
)

// ErrTooLong is wrapped by the error of pipeline.PadSeqs when a sequence is
// longer than the fixed length and pipeline.Truncate was not given. It wraps
// tensorfeed.ErrBadData: the sequence, not the program, is at fault.
var ErrTooLong = fmt.Errorf("batch: sequence longer than the fixed length: %w", tensorfeed.ErrBadData)

// Seqs is a batch of variable-length sequences padded to one length: len(Lens)
// rows of L elements, flat and row-major, ready to become a [len(Lens), L]
// tensor.
type Seqs[E any] struct {
	// Data holds the rows one after the other: row i is Data[i*L:(i+1)*L],
	// its first Lens[i] elements are the sequence and the rest is padding.
	Data []E
	// Lens are the numbers of real elements per row, one per row: the true
	// lengths of the sequences, or L for a sequence that was truncated.
	Lens []int
	// L is the length of every row.
	L int
	// Padded is the number of rows at the end that pad the batch itself
	// (Batch.Padded): they hold copies of real sequences, not data.
	Padded int
	// Truncated is the number of sequences that were cut to L.
	Truncated int
}

// Shape returns [len(Lens), L].
func (s Seqs[E]) Shape() []int { return []int{len(s.Lens), s.L} }

// Mask returns a new flat [len(Lens), L] mask: 1 where Data holds a sequence
// element, 0 where it holds padding.
func (s Seqs[E]) Mask() []uint8 {
	m := make([]uint8, len(s.Lens)*s.L)
	for i, n := range s.Lens {
		row := m[i*s.L : i*s.L+n]
		for j := range row {
			row[j] = 1
		}
	}
	return m
}
