package recordio

import (
	"io"

	"github.com/tensorfeed/tensorfeed/internal/inputsplit"
)

// Shard is the byte-range shard option that MXNet's ImageRecordIter asks
// for through inputsplit.RecordIO: the tests reach it the same way.
func Shard(count, index int) Option { return inputsplit.RecordIO(count, index).(Option) }

// ShardRange is the byte-range arithmetic the shard option uses.
var ShardRange = inputsplit.ShardRange

// SetReuse makes r's Next return a slice that the next call overwrites, as
// a pass of Open with ReuseBuffer does.
func SetReuse(r *Reader, reuse bool) { r.reuse = reuse }

// InputOffset is where r's next record starts, after a successful Next.
func InputOffset(r *Reader) int64 { return r.inputOffset() }

// SetBase says r's input starts at byte off of its file, as in a shard.
func SetBase(r *Reader, off int64) { r.base = off }

// ParseIndex reads an index from r, as ReadIndex reads a file.
var ParseIndex = parseIndex

// IndexEntry is one entry of an index, for NewIndex.
type IndexEntry = indexEntry

// NewIndex builds an index from entries.
var NewIndex = newIndex

// Sync returns the offset of the first record start at or after off.
var Sync = syncAt

// Splits returns how many times w split a payload at a magic word, as
// dmlc-core's writer counts them.
func Splits(w *Writer) int { return w.splits }

// WriteIndex writes ix in .idx format.
func WriteIndex(ix *Index, w io.Writer) (int64, error) { return ix.writeTo(w) }
