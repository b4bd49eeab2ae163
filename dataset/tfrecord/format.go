package tfrecord

import (
	"errors"
	"hash/crc32"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
)

// headerSize is the size of a record header: the length (uint64) and the
// masked CRC32C of its 8 bytes (uint32).
const headerSize = 12

// footerSize is the size of the masked CRC32C that follows the data.
const footerSize = 4

// maskDelta is the constant TensorFlow adds to a rotated CRC.
const maskDelta = 0xa282ead8

// defaultMaxRecordBytes is the largest record a reader accepts unless
// [MaxRecordBytes] says otherwise.
const defaultMaxRecordBytes = 256 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MaskedCRC returns the masked CRC32C (Castagnoli) of b, as TFRecord stores
// it: the CRC rotated right by 15 bits plus 0xa282ead8. Masking keeps the
// CRC of data that itself holds CRCs from being trivially predictable.
func MaskedCRC(b []byte) uint32 { return mask(crc32.Checksum(b, castagnoli)) }

func mask(crc uint32) uint32 { return (crc>>15 | crc<<17) + maskDelta }

// ErrFormat is wrapped by every error about malformed TFRecord input (its
// framing, its checksums, its gzip stream, a malformed tf.train.Example
// given to ParseExample or Record.Example); test it with errors.Is. The
// concrete error is a [*tensorfeed.Error] that says where: the file, the
// record's index and the byte offset of its header. ErrFormat wraps
// tensorfeed.ErrBadData.
var ErrFormat error = &badData{"tfrecord: bad format"}

// ErrDataChecksum is wrapped by the *tensorfeed.Error of a record whose data does
// not match its CRC. The framing around it is intact, so the record can be
// skipped (see [OnBad]) and the records after it read.
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

// formatError returns the error about malformed input in file, in record
// rec (its index, -1 when unknown) at byte offset off: it wraps ErrFormat,
// and err when that is not nil (io.ErrUnexpectedEOF for a truncated
// input, ErrDataChecksum, ErrTooLarge, a gzip error). For a
// gzip-compressed file, off counts bytes of the decompressed stream.
func formatError(file string, off, rec int64, err error, msg string) *tensorfeed.Error {
	return &tensorfeed.Error{Path: file, Offset: off, Record: rec, Err: cause.New(ErrFormat, err, msg)}
}
