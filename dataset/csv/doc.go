// Package csv reads numeric CSV files as rows of float32 data and labels,
// with the semantics of MXNet's CSVIter and what users expect of CSV today.
//
// # MXNet's CSVIter
//
// A [Reader] made by [New] reads data_csv; [DataShape] is data_shape (each
// row must hold exactly that many values), [LabelFile] is label_csv and
// [LabelShape] is label_shape. Without labels every row has the label 0, as
// in CSVIter. Batching is batch.Of, and a sink turns batches into tensors
// ([FillData] and [FillLabel] are the fill functions).
//
// # CSV as users write it
//
// [Header] uses the first row as column names, [SkipRows] skips metadata
// lines (scikit-learn's "150,4,setosa,..." line), [LabelColumns] and
// [DataColumns] take labels and data from one file by name or by index
// ([Name], [Index]; negative indexes count from the end), [Delimiter] and
// [Comment] set the separator and the comment character, and [Classes]
// maps string class labels (Iris-setosa, ...) to 0, 1, 2, ... Numbers are
// parsed as float32 by strconv.ParseFloat after trimming spaces, so inf,
// -inf and nan are accepted, as dmlc's parser does. Quoted fields follow
// RFC 4180 (encoding/csv underneath).
//
// # Streaming and memory
//
// A pass reads the file through a buffer and never holds it whole. Each
// Row's slices are new memory that the consumer owns; they are carved from
// blocks of many rows, so a pass allocates about one block per 256 rows and
// one string per line (encoding/csv's record).
//
// # Errors
//
// A bad row gives a [*ParseError] with the file, line, column (1-based
// byte, as encoding/csv) and field, wrapping [ErrFormat] and one of
// [ErrFieldCount], [ErrNumber], [ErrClass], [ErrShape], [ErrColumn] or
// [ErrRowCount], [ErrEmpty] (or encoding/csv's ErrQuote / ErrBareQuote). The pass yields
// the rows before the bad one, then the error, once; it never ends short
// without an error.
package csv
