// Package csv reads numeric CSV files as rows of float32 data and labels
// (or int32 or int64 ones), with the semantics of MXNet's CSVIter and what
// users expect of CSV today.
//
// # MXNet's CSVIter
//
// A [Reader] made by [New] reads data_csv; [DataShape] is data_shape (each
// row must hold exactly that many values), [LabelFile] is label_csv and
// [LabelShape] is label_shape. Without labels every row has the label 0, as
// in CSVIter. Batching is batch.Of, and a sink turns batches into tensors:
// the Sink of the file's [Reader.Layout] makes CSVIter's.
// [DType] is dtype:
// under DType(sample.Int32) or DType(sample.Int64) data and labels are
// parsed as integers and kept exactly (Row.IntData, Row.IntLabel; the
// sink's tensors are then int32 or int64), and a field
// that is not an integer of the type is a bad row (ErrNumber).
//
// # CSV as users write it
//
// [Header] uses the first row as column names, [SkipRows] skips metadata
// lines (scikit-learn's "150,4,setosa,..." line), [LabelColumns] and
// [DataColumns] take labels and data from one file by name or by index
// ([Name], [Index]; negative indexes count from the end), [Delimiter] and
// [Comment] set the separator and the comment character, and [Classes]
// maps string class labels (Iris-setosa, ...) to 0, 1, 2, ... Numbers are
// parsed as float32 as strconv.ParseFloat parses them after trimming
// spaces (bit for bit: plain decimals such as "5.1" take its exact first
// path, done in place, the rest strconv itself), so inf, -inf and nan are
// accepted, as dmlc's parser does. Quoted fields follow RFC 4180 and are
// split as encoding/csv splits them.
//
// # Streaming and memory
//
// A pass reads the file through a 64 KiB buffer and never holds it whole,
// nor a row whole beyond [MaxLineBytes] (default 1 MiB):
// a longer row ends the pass with [ErrTooLarge] after about that many
// bytes were read, and a field beyond [MaxFieldBytes] (default
// 256 KiB) makes its row bad with [ErrTooLarge]. A
// pass's memory is therefore bounded by a small multiple of MaxLineBytes
// (the row's bytes, a few tens of bytes per field, the row's values)
// whatever the file holds. Each Row's slices are new memory that the
// consumer owns; narrow rows are carved from shared blocks of about 16 KiB,
// a wide row gets its own, and a pass allocates one string per row.
//
// # Local files and URLs
//
// The data and label files may be local paths, s3://bucket/key objects or
// http(s):// URLs, opened through package storage when a pass starts; the
// [Storage] option passes storage's options (endpoint, credentials,
// retries, read-ahead, a local cache). A remote file is streamed with
// read-ahead, never downloaded whole first, and an error of the storage
// names the URL and the byte range.
//
// # Errors
//
// A bad row gives a [*tensorfeed.Error] with the file, Line, Column
// (1-based byte, as encoding/csv) and, as Member, the field ("field 3"),
// wrapping [ErrFormat] (which wraps
// tensorfeed.ErrBadData) and one of [ErrFieldCount], [ErrNumber],
// [ErrClass], [ErrShape], [ErrColumn],
// [ErrTooLarge] (or encoding/csv's ErrQuote /
// ErrBareQuote). An error quotes at most the first 64 bytes of a bad
// field. The pass yields the rows before the bad one, then the error,
// once; it never ends short without an error.
//
// # Bad rows
//
// [OnBad] sets a bad-record policy (source.SkipPolicy): a bad
// row (a stray quote, a field over MaxFieldBytes, the wrong number of
// fields, a value that does not parse, an unknown class, inf or nan under
// [Finite]) is skipped, counted ([Reader.Skipped]) and logged at warn level
// with its error (through the logger of the pass's context,
// tensorfeed.WithLogger), and the pass fails once the skipped rows are more
// than the policy's share. Problems with the file rather than a row fail
// the pass under any policy: a missing or unreadable file, a row over
// MaxLineBytes (where the next row starts is unknown when a row may hold
// quotes; raise the limit), a header or first row that cannot be split
// into fields, columns or shapes that do not fit, no rows at all, and data
// and label files of different lengths.
package csv
