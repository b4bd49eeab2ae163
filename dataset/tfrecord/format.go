package tfrecord

import (
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/tensorfeed/tensorfeed"
)

// headerSize is the size of a record header: the length (uint64) and the
// masked CRC32C of its 8 bytes (uint32).
const headerSize = 12

// footerSize is the size of the masked CRC32C that follows the data.
const footerSize = 4

// maskDelta is the constant TensorFlow adds to a rotated CRC.
const maskDelta = 0xa282ead8

// DefaultMaxRecordBytes is the largest record a reader accepts unless
// [MaxRecordBytes] (or Reader.MaxRecordBytes) says otherwise.
const DefaultMaxRecordBytes = 256 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MaskedCRC returns the masked CRC32C (Castagnoli) of b, as TFRecord stores
// it: the CRC rotated right by 15 bits plus 0xa282ead8. Masking keeps the
// CRC of data that itself holds CRCs from being trivially predictable.
func MaskedCRC(b []byte) uint32 { return mask(crc32.Checksum(b, castagnoli)) }

func mask(crc uint32) uint32 { return (crc>>15 | crc<<17) + maskDelta }

// ErrFormat is wrapped by every error about malformed TFRecord input (its
// framing, its checksums, its gzip stream); test it with errors.Is. The
// concrete error is a *FormatError that says where. ErrFormat wraps
// tensorfeed.ErrBadData.
var ErrFormat error = &badData{"tfrecord: bad format"}

// ErrDataChecksum is wrapped by the *FormatError of a record whose data does
// not match its CRC. The framing around it is intact, so the record can be
// skipped (see [SkipBad]) and the records after it read.
var ErrDataChecksum = errors.New("tfrecord: data checksum mismatch")

// ErrTooLarge is wrapped by the error for a record longer than the reader's
// maximum ([MaxRecordBytes]), and by that of a tf.train.Example with more
// values or features than [MaxValues] or [MaxFeatures] allow.
var ErrTooLarge = errors.New("tfrecord: record larger than the configured maximum")

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// FormatError describes malformed input: which file, which record, which
// byte offset, what is wrong. It wraps ErrFormat, and also Err when that is
// set (io.ErrUnexpectedEOF for a truncated input, ErrDataChecksum,
// ErrTooLarge, a gzip error).
//
// For a gzip-compressed file, Offset counts bytes of the decompressed
// stream.
type FormatError struct {
	File   string // name of the input, empty when unknown
	Offset int64  // byte offset of the record's header
	Record int64  // index of the record in the input, from 0
	Msg    string // what is wrong
	Err    error  // underlying cause, may be nil
}

// FilePath returns the file the error is about, so that source.Files does
// not name it a second time.
func (e *FormatError) FilePath() string { return e.File }

// Error formats the error as "tfrecord: FILE: record R at offset N: MSG".
func (e *FormatError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("tfrecord: %s: record %d at offset %d: %s", file, e.Record, e.Offset, e.Msg)
}

// Unwrap returns ErrFormat and the underlying cause, if any.
func (e *FormatError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}
