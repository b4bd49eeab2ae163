package tfrecord

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

// WriterOption configures NewWriter.
type WriterOption = option.Option[writerConfig]

type writerConfig struct {
	gzip  bool
	level int
}

// GzipLevel makes the writer compress its output with gzip at level
// (gzip.DefaultCompression, or gzip.NoCompression to gzip.BestCompression),
// as TensorFlow's TFRecordWriter with compression_type "GZIP" does. It panics
// on an invalid level.
func GzipLevel(level int) WriterOption {
	if level < gzip.HuffmanOnly || level > gzip.BestCompression {
		panic(fmt.Sprintf("tfrecord: GzipLevel(%d): invalid gzip level", level))
	}
	return option.New(func(c *writerConfig) { c.gzip, c.level = true, level })
}

// Writer writes records in the TFRecord framing: for each record its length
// (uint64, little-endian), the masked CRC32C of those 8 bytes, the data and
// the masked CRC32C of the data. Output is buffered; Close flushes it.
type Writer struct {
	bw  *bufio.Writer
	zw  *gzip.Writer
	hdr [headerSize]byte
	err error
}

// NewWriter returns a Writer that writes records to w. Close must be called
// to flush the output (and end the gzip stream); it does not close w.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	var c writerConfig
	option.Apply(&c, opts)
	wr := &Writer{}
	if c.gzip {
		zw, _ := gzip.NewWriterLevel(w, c.level) // the level was checked by GzipLevel
		wr.zw = zw
		w = zw
	}
	wr.bw = bufio.NewWriterSize(w, 64<<10)
	return wr
}

// Write writes one record holding data. After an error of the underlying
// writer every later call returns it.
func (w *Writer) Write(data []byte) error {
	if w.err != nil {
		return w.err
	}
	binary.LittleEndian.PutUint64(w.hdr[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(w.hdr[8:], MaskedCRC(w.hdr[:8]))
	var foot [footerSize]byte
	binary.LittleEndian.PutUint32(foot[:], MaskedCRC(data))
	_, _ = w.bw.Write(w.hdr[:])
	_, _ = w.bw.Write(data)
	_, err := w.bw.Write(foot[:])
	return w.keep(err)
}

// keep makes err, if any, the error every later call returns, and returns
// it.
func (w *Writer) keep(err error) error {
	if err != nil {
		w.err = err
	}
	return err
}

// Flush writes buffered records to the underlying writer; with gzip, they
// are flushed through the compressor too, so that a reader sees them.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	err := w.bw.Flush()
	if err == nil && w.zw != nil {
		err = w.zw.Flush()
	}
	return w.keep(err)
}

// Close flushes the records and ends the gzip stream, if any. It does not
// close the underlying writer. Writing after Close is an error.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	err := w.bw.Flush()
	if w.zw != nil {
		if cerr := w.zw.Close(); err == nil {
			err = cerr
		}
	}
	w.err = err
	if err == nil {
		w.err = errClosed
	}
	return err
}

var errClosed = fmt.Errorf("tfrecord: write after Close")
