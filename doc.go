// Package tensorfeed feeds machine-learning training from Go. This root
// package holds what every other package shares: the sentinel that every
// error about bad input data wraps.
//
// The data's way through the packages:
//
//	source  ->  stage ... stage  ->  batch  ->  sink     (pipeline wires and runs them)
//	one sample   typed decorators     groups     named tensors
//
// Format readers live under dataset/ and emit single samples as a
// source.Reader; see the README for the whole map.
package tensorfeed

import "errors"

// ErrBadData is wrapped by every error about malformed input data, whatever
// the format: a truncated file, a wrong magic number, a shape that does not
// match, an image that does not decode, a header that claims more bytes than
// the file holds. Each format's own sentinel (mnist.ErrFormat,
// csv.ErrParse, recordio.ErrFormat, imagerec.ErrImage, ...) wraps it, so
//
//	errors.Is(err, tensorfeed.ErrBadData)
//
// tells bad data apart from I/O failures, cancellation and programmer
// errors. Errors that only say a configured limit was reached (a record
// larger than the maximum the reader allows) wrap it too: the data is bad
// for that reader.
var ErrBadData = errors.New("tensorfeed: bad data")
