// Package format opens a list of files by format, as PaddlePaddle's C++
// reader design does with its file-format registry: each file is named with
// an optional format tag ("recordio:train-*.rec", "tfrecord:data/*.tfrecord",
// "csv:rows.csv"), files without a tag are recognised from their first bytes,
// and several files are read concurrently through [source.Files] (Paddle's
// MultipleReader: a file queue and N prefetching readers).
//
// # Records
//
// Every format yields the same [Record]: where it came from (path, index in
// the file, byte offset) and its raw payload. Users decode payloads with the
// format's own parser (tfrecord.ParseExample, webdataset's Sample methods,
// encoding/binary for an IDX record's big-endian elements, ...).
//
// # Formats
//
// The default registry ([Default]) is built on first use and holds:
//
//   - recordio: dmlc RecordIO records (dataset/recordio); Data is the payload.
//   - tfrecord: TFRecord records, plain or gzip (dataset/tfrecord).
//   - wds: WebDataset samples (dataset/webdataset); one Record per sample,
//     with Key the sample's key and Fields its members; Data is nil. As
//     webdataset.Open does, Open refuses a sample split across two
//     wds files read one after the other (its key ends one and starts the
//     next): the pass fails with webdataset.SplitAcross's error, which
//     names both files and the key and wraps webdataset.ErrSplit.
//   - idx: IDX records (MNIST's format), one per slice along the first
//     dimension; Data holds its big-endian elements.
//   - parquet: Apache Parquet files (dataset/parquet), one Record per row
//     with every column's values in Fields; Data is nil.
//   - csv: raw lines of a text file; Data is the line without its line
//     ending. dataset/csv is the typed, row-parsing reader; this one only
//     splits lines, so any parser can be used on them.
//   - lst: the .lst files of im2rec, one Record per entry with the line
//     as Data (imagerec.ParseList parses it); a repeated index or an
//     image path that leaves the image root ends the pass.
//   - meanimg: an MXNet mean image file, one Record holding it.
//   - image: a bare JPEG or PNG file, one Record holding it; a local
//     folder, one Record naming each file under it (Key its path under
//     the folder, Data nil), in the order "im2rec list" lists them.
//
// Besides reading, a format may check its files ([Format.Check], what
// "tensorfeed check" runs: every format above), write them
// ([Format.Write]: recordio, tfrecord, wds and parquet, what "tensorfeed
// convert" writes) and show their images ([Format.Show]: idx and
// recordio, what "tensorfeed show" draws).
//
// # Files and URLs
//
// A spec's pattern may be a local glob, an s3://bucket/ URL with a key glob
// (s3://bucket/train-*.rec) or a single object, or an http(s):// URL:
// patterns are expanded through storage.List, heads for detection are read
// and files opened through package storage. A URL's scheme is never taken
// for a tag: "recordio:s3://bucket/x.rec" names its format,
// "s3://bucket/x.rec" is recognised from its bytes. [Storage] passes the
// storage's options (endpoint, credentials, cache) to every format;
// without it, S3 is reached with the AWS_* environment variables
// (AWS_ENDPOINT_URL for MinIO and other S3-compatible servers).
//
// Default().Register adds a user format, or replaces one of these (for
// example with [TFRecord] given tfrecord.OnBad to skip bad records, or
// with [CSV] given another maximum line length).
//
// # Detection
//
// A file without a tag is recognised from its first 512 bytes: the
// user-registered formats are asked first, in the order they were
// registered, then the built-in ones in the order listed above (the csv
// format last of all, for text). A format with a nil Detect is used only
// through its tag. Then the name and the text decide: a gzip file by what
// it holds or its name (.tfrecord.gz, .tar.gz, else IDX), names such as
// .tfrecord, .tar, .rec, .parquet, .jpg, MNIST's -ubyte, and for text .lst,
// .idx (a RecordIO index, checked by recordio), .csv or a first line that
// looks like one of them. [Registry.Detect] says which format a file is. A
// file that no format recognises is a [*tensorfeed.Error], which wraps
// [ErrSpec] and tensorfeed.ErrBadData and says why.
//
// # Bad input
//
// Errors of the formats' readers reach the consumer as the formats return
// them (positioned, naming the file, wrapping tensorfeed.ErrBadData); the
// csv format's own errors are [*tensorfeed.Error]s with the line. Memory is
// bounded by each format's limits; a csv line is at most
// 1 MiB unless [CSV] is given another maximum.
//
// By default the first error ends the pass. [OnBad] (with [source.SkipBad]) reads
// every file under one source.SkipPolicy: records a format can step over
// (a TFRecord record whose data checksum fails, a WebDataset sample with a
// duplicated or missing field, a csv line over the maximum) are skipped,
// counted and logged with their position; structural damage still ends the
// pass. A user format joins in through the policy its [Format.Open] is
// given.
package format
