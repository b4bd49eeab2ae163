// Package idx reads IDX files, the big-endian tensor format of the MNIST
// distribution: a magic number 00 00 TT DD (TT the element type, DD the
// number of dimensions), DD uint32 sizes, then the elements in row-major
// order.
//
// [NewReader] streams an IDX file record by record (a record is one slice
// along the first dimension) and [ReadFile] and [Decode] read a whole
// file; they read every element type of the format (ubyte, int8, int16,
// int32, float32, float64) with any number of dimensions. Gzipped files
// are recognised by their first bytes, not by their name. [Check] and
// [CheckFile] read a whole file in bounded memory and report what it
// holds; [Is] recognises an IDX file from its first bytes.
//
// The package is the format under dataset/mnist (the MNIST digits),
// dataset/format's "idx" records and the tensorfeed command's check,
// show and convert; it is internal so that the library's one public way
// to read MNIST is dataset/mnist.
//
// # Errors
//
// Bad data gives a *tensorfeed.Error naming the file, the byte offset in
// the uncompressed stream and, where there is one, the record, whose Err
// wraps [ErrFormat] (which wraps tensorfeed.ErrBadData) and the cause: a
// wrong magic number, an empty or truncated file (io.ErrUnexpectedEOF), a
// gzip stream cut short or corrupt, data after the last record, a header
// over a limit ([ErrTooLarge]).
//
// # Limits
//
// A header is never trusted for memory. Before a reader allocates or
// reads anything for the data, it checks what the header declares against
// two settable maximums, [MaxRecordBytes] (default 64 MiB) and
// [MaxFileBytes] (default 1 GiB after decompression), and, for a plain file
// whose size it knows ([InputSize]; [ReadFile] and [CheckFile] take it from
// the file system), against the bytes that are there. A gzip stream's
// decompressed size is known only as it is read, so [Decode] grows its
// buffer as data arrives, and the streaming readers hold one record at
// most. A header that declares records of no bytes (a zero dimension after
// the first) and a non-zero count is refused: such records carry nothing
// and their count cannot be checked.
package idx
