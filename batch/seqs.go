package batch

import (
	"fmt"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
)

// ErrTooLong is wrapped by the error PadSeqs returns when a sequence is
// longer than the fixed length and Truncate was not given. It wraps
// tensorfeed.ErrBadData: the sequence, not the program, is at fault.
var ErrTooLong = fmt.Errorf("batch: sequence longer than the fixed length: %w", tensorfeed.ErrBadData)

// Seqs is a batch of variable-length sequences padded to one length: Len()
// rows of L elements, flat and row-major, ready to become a [Len(), L]
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

// Len returns the number of rows, padding rows included, as Batch.Len
// does for the batch the rows came from.
func (s Seqs[E]) Len() int { return len(s.Lens) }

// Shape returns [Len(), L].
func (s Seqs[E]) Shape() []int { return []int{s.Len(), s.L} }

// Row returns row i, padding included. It shares memory with Data.
func (s Seqs[E]) Row(i int) []E { return s.Data[i*s.L : (i+1)*s.L : (i+1)*s.L] }

// Mask returns a new flat [Len(), L] mask: 1 where Data holds a sequence
// element, 0 where it holds padding.
func (s Seqs[E]) Mask() []uint8 {
	m := make([]uint8, s.Len()*s.L)
	for i, n := range s.Lens {
		row := m[i*s.L : i*s.L+n]
		for j := range row {
			row[j] = 1
		}
	}
	return m
}

type seqConfig struct{ truncate bool }

// SeqOption changes how PadSeqs treats sequences.
type SeqOption = option.Option[seqConfig]

// Truncate makes PadSeqs cut a sequence longer than the fixed length to that
// length (keeping its first elements) instead of returning an error.
// Seqs.Truncated counts the sequences cut.
func Truncate() SeqOption { return option.New(func(c *seqConfig) { c.truncate = true }) }

// PadSeqs pads the sequences of b with pad into one flat [b.Len(), L] block,
// where L is length, or the length of the longest sequence of b
// when length is 0.
//
// A sequence longer than a fixed length is an error wrapping ErrTooLong that
// names its row, unless Truncate is given. PadSeqs copies the elements:
// the result shares no memory with b. It allocates Data and Lens, nothing
// per row. It panics when length < 0.
func PadSeqs[E any](b Batch[[]E], length int, pad E, opts ...SeqOption) (Seqs[E], error) {
	if length < 0 {
		panic(fmt.Sprintf("batch: PadSeqs: negative length %d", length))
	}
	var c seqConfig
	option.Apply(&c, opts)
	rows := b.Samples
	l := length
	if l == 0 {
		for _, s := range rows {
			l = max(l, len(s))
		}
	}
	out := Seqs[E]{Data: make([]E, len(rows)*l), Lens: make([]int, len(rows)), L: l, Padded: b.Padded}
	for i, s := range rows {
		if len(s) > l {
			if !c.truncate {
				return Seqs[E]{}, fmt.Errorf("%w: row %d has %d elements, fixed length %d", ErrTooLong, i, len(s), l)
			}
			s = s[:l]
			out.Truncated++
		}
		row := out.Data[i*l : (i+1)*l]
		n := copy(row, s)
		for j := n; j < l; j++ {
			row[j] = pad
		}
		out.Lens[i] = n
	}
	return out, nil
}
