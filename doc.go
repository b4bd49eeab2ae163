// Package tensorfeed feeds machine-learning training from Go. This root
// package holds what every other package shares: [ErrBadData], which every
// error about bad input data wraps; [Error], the one positioned error that
// says in which file and where (byte offset, record, line and column,
// member) for every format; [PanicError], which a panic in a
// goroutine of a pass becomes; and the logger of a pass, set once on its
// context with [WithLogger] ([SlogLogger] adapts a log/slog handler).
//
// # Architecture
//
// The data's way through the packages:
//
//	source  ->  stage ... stage  ->  batch  ->  sink  ->  tensor.Batch   (pipeline wires and runs them)
//	one sample   typed decorators     groups     fields    named tensors
//
// A format reader under dataset/ (mnist, csv, array, parquet, recordio,
// imagerec, tfrecord, webdataset, the format registry, the jetstream online
// source) or a generic one in source yields one sample at a time as a
// source.Reader[T], opening local paths, s3:// objects or http(s):// URLs
// through storage; stage decorates readers; batch groups samples and says
// which are padding; a sink's fields copy samples into contiguous tensors
// that reach the training loop as a *tensor.Batch, whose Release hands the
// memory back. image/decode and image/augment turn encoded images into
// tensors; pipeline is a typed builder with epochs, statistics, a
// bottleneck report and checkpoints (every reader is a source.Resumable,
// whose state after n samples resumes the identical stream);
// pipeline/gostreams connects pipelines to go-streams.
//
// A new stage is a function from a source.Reader[In] to a
// source.Reader[Out], checked with source/sourcetest.TestStage; a new
// format is a package under dataset/ whose errors are an *Error whose
// cause wraps ErrBadData, and whose readers take a SkipBad option. The README's
// Architecture section says more.
package tensorfeed

import "errors"

// ErrBadData is wrapped by every error about malformed input data, whatever
// the format: a truncated file, a wrong magic number, a shape that does not
// match, an image that does not decode, a header that claims more bytes than
// the file holds. Each format's own sentinel (mnist.ErrFormat,
// csv.ErrFormat, recordio.ErrFormat, decode.ErrImage, ...) wraps it, so
//
//	errors.Is(err, tensorfeed.ErrBadData)
//
// tells bad data apart from I/O failures, cancellation and programmer
// errors. Errors that only say a configured limit was reached (a record
// larger than the maximum the reader allows) wrap it too: the data is bad
// for that reader.
var ErrBadData = errors.New("tensorfeed: bad data")
