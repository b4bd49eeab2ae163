package recordio

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
)

// Magic is the 32-bit word that starts every part of a record. It is stored
// little-endian, so the bytes in a file are 0a 23 d7 ce.
const Magic uint32 = 0xced7230a

// MaxRecordSize is the largest payload a record may hold: lengths are stored
// in 29 bits, and dmlc-core's writer refuses records of 2^29 bytes or more.
const MaxRecordSize = 1<<29 - 1

// Continuation flags, the top 3 bits of a part's length word.
const (
	flagWhole  = 0 // the record has a single part
	flagFirst  = 1 // first part of a record split at a magic word
	flagMiddle = 2 // middle part
	flagLast   = 3 // last part
)

// headerSize is the size of a part header: magic, then the length word.
const headerSize = 8

var magicBytes = binary.LittleEndian.AppendUint32(nil, Magic)

// ErrFormat is wrapped by every error about malformed RecordIO input (a .rec
// file's framing, an .idx file, an index that does not match its .rec); test
// it with errors.Is. The concrete error is a [*tensorfeed.Error] that says
// where: the file, the byte offset of the record's first part header (the
// offset of the part at fault is in the message when it differs), the
// record's index when the reader read the file from its start, or an .idx
// file's line. ErrFormat wraps tensorfeed.ErrBadData.
var ErrFormat error = &badData{"recordio: bad format"}

// badData is a sentinel that wraps tensorfeed.ErrBadData while keeping its
// own short message, so that errors built on it do not repeat the root's.
type badData struct{ msg string }

func (e *badData) Error() string { return e.msg }
func (e *badData) Unwrap() error { return tensorfeed.ErrBadData }

// ErrTooLarge is returned by Writer.Write for a payload of more than
// MaxRecordSize bytes.
var ErrTooLarge = errors.New("recordio: record too large")

// formatError returns the error about malformed input in file at byte
// offset off (-1 when unknown), in record rec (-1 when unknown): it wraps
// ErrFormat, and err when that is not nil (for example
// io.ErrUnexpectedEOF for a truncated file).
func formatError(file string, off, rec int64, err error, msg string) *tensorfeed.Error {
	return &tensorfeed.Error{Path: file, Offset: off, Record: rec, Err: cause.New(ErrFormat, err, msg)}
}

// partMsg prefixes msg with the offset of the part at fault when it is not
// the record's first.
func partMsg(part, start int64, msg string) string {
	if part == start {
		return msg
	}
	return fmt.Sprintf("part at byte %d: %s", part, msg)
}

// encodeLRec packs a continuation flag and a length into a length word.
func encodeLRec(cflag uint32, length int) uint32 { return cflag<<29 | uint32(length) }

// decodeLRec splits a length word into its continuation flag and length.
func decodeLRec(lrec uint32) (cflag uint32, length int) {
	return lrec >> 29, int(lrec & (1<<29 - 1))
}

// align4 rounds n up to a multiple of 4: every part is padded to it.
func align4[T int | int64](n T) T { return (n + 3) &^ 3 }
