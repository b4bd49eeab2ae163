package recordio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// copyLimit is the payload size up to which a record is assembled in memory
// and handed to the underlying writer in one Write call. Larger payloads are
// written part by part, without a copy.
const copyLimit = 1 << 20

// Writer writes records in dmlc-core's RecordIO framing, byte for byte as
// dmlc::RecordIOWriter does: a payload that holds the magic word at a 4-byte
// aligned offset is split there into several parts and the magic words are
// dropped, to be re-inserted by the reader; every part is padded with zeros
// to a multiple of 4 bytes.
//
// A record of up to 1 MiB reaches the underlying writer in a single Write
// call; wrap it in a bufio.Writer when records are small and many.
type Writer struct {
	w      io.Writer
	n      int64
	splits int
	buf    []byte
	err    error
}

// NewWriter returns a Writer that writes records to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes one record holding p. A payload of more than MaxRecordSize
// bytes gives an error wrapping ErrTooLarge and writes nothing. After an
// error from the underlying writer, every later call returns that error.
func (w *Writer) Write(p []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(p) > MaxRecordSize {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(p), MaxRecordSize)
	}
	w.buf = w.buf[:0]
	direct := len(p) > copyLimit
	done := 0              // payload bytes already framed, plus the dropped magics
	aligned := len(p) &^ 3 // only whole aligned words are searched
	for from := 0; from < aligned; {
		i := bytes.Index(p[from:aligned], magicBytes)
		if i < 0 {
			break
		}
		i += from
		if i%4 != 0 {
			from = i + 1
			continue
		}
		cflag := uint32(flagMiddle)
		if done == 0 {
			cflag = flagFirst
		}
		if err := w.part(cflag, p[done:i], direct); err != nil {
			return err
		}
		done = i + 4
		from = done
		w.splits++
	}
	cflag := uint32(flagWhole)
	if done != 0 {
		cflag = flagLast
	}
	if err := w.part(cflag, p[done:], direct); err != nil {
		return err
	}
	return w.write(w.buf)
}

var zeros [4]byte

// part frames one part: magic, length word, data, zero padding. It appends
// them to w.buf, or, when direct, writes them out at once.
func (w *Writer) part(cflag uint32, data []byte, direct bool) error {
	w.buf = binary.LittleEndian.AppendUint32(w.buf, Magic)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, encodeLRec(cflag, len(data)))
	pad := zeros[:align4(len(data))-len(data)]
	if !direct {
		w.buf = append(append(w.buf, data...), pad...)
		return nil
	}
	if err := w.write(w.buf); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	if err := w.write(data); err != nil {
		return err
	}
	return w.write(pad)
}

func (w *Writer) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	n, err := w.w.Write(b)
	w.n += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("recordio: write at offset %d: %w", w.n, err)
		return w.err
	}
	return nil
}

// Tell returns the number of bytes written so far, which is the offset at
// which the next record starts (when the output started empty). An .idx file
// stores this value, taken before each Write, as the record's position.
func (w *Writer) Tell() int64 { return w.n }
