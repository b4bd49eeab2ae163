package recordio

import "github.com/tensorfeed/tensorfeed/internal/inputsplit"

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
