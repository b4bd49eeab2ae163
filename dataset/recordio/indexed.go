package recordio

import "github.com/tensorfeed/tensorfeed/source"

var _ source.Indexed[[]byte] = (*IndexedFile)(nil)

// Get returns the payload of the record of the i-th index entry, in the
// order of the .idx file, in a new slice: with Len it makes an
// [IndexedFile] a random-access dataset (source.Indexed[[]byte]) to read
// with source.ReadIndexed, in order or shuffled by index. An index outside
// [0, Len()) is an error wrapping source.ErrIndex; a record that is not
// where its entry says is a [*tensorfeed.Error]. It is safe for concurrent use.
func (rr *RandomReader) Get(i int) ([]byte, error) {
	n := rr.Len()
	if uint(i) >= uint(n) {
		return nil, source.IndexError(i, n)
	}
	return rr.AppendAt(nil, rr.idx.Entry(i).Offset)
}
