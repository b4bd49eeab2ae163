// Package inputsplit holds dmlc-core's InputSplit arithmetic, which MXNet's
// compatibility names (ImageRecordIter's num_parts and part_index) need and
// the public API does not offer: a dataset is sharded by index
// (source.ShardIndex) or as a stream (the pipeline's shard), never by a
// format's option. Cutting RecordIO files into byte ranges is the one way
// dmlc puts each record on exactly one rank, so MXNet's iterator keeps it.
package inputsplit

// ShardRange returns the byte range [begin, end) of shard index of count
// over total bytes, computed as dmlc-core's InputSplit does: each shard is
// ceil(total/count) bytes rounded up to a multiple of 4, and the last shards
// may be short or empty. A record belongs to the shard whose range holds its
// first byte.
func ShardRange(total int64, count, index int) (begin, end int64) {
	step := (total + int64(count) - 1) / int64(count)
	step = (step + 3) &^ 3
	return min(step*int64(index), total), min(step*int64(index+1), total)
}

// RecordIO returns the recordio.Option that makes recordio.Open read only
// shard index of count of its files, cut as one concatenated byte stream by
// ShardRange: a record belongs to the shard that holds its first byte. It
// panics if count < 1 or index is not in [0, count). Package recordio sets
// it when it is initialised; it is an any because this package cannot
// import recordio (recordio imports it): assert it to recordio.Option.
var RecordIO func(count, index int) any
