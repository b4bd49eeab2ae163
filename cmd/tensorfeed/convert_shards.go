package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

// targetLimits are the largest records the readers of each target accept
// by default, those "check" and "ls" read with: convert refuses a record
// over one before writing it, so that every shard it writes reads back.
type targetLimits struct {
	recordio  int64 // a payload (recordio.MaxRecordSize)
	tfrecord  int64 // a serialized tf.train.Example (tfrecord.MaxRecordBytes's default)
	wdsMember int64 // one member of a sample (webdataset.MaxMemberBytes's default)
	wdsSample int64 // the members of a sample together (webdataset.MaxSampleBytes's default)
	// parquetPage is the largest page (parquet.MaxPageBytes's default). A
	// page holds the values written since the last one until they pass
	// parquet-go's page buffer, so a value may share its page with up to
	// parquetPageSlack bytes.
	parquetPage int64
	// parquetGroup is the row bytes after which a Parquet row group ends:
	// parquet-go holds a row group in memory until it ends, and a reader
	// decodes one at a time.
	parquetGroup int64
}

// parquetPageSlack is what a Parquet value may share its page with:
// parquet-go's page buffer, the value's length prefix and the page's
// levels, rounded up.
const parquetPageSlack = pq.DefaultPageBufferSize + 4<<10

// limits are the limits convert enforces; tests lower them, and read the
// shards back with readers lowered alike.
var limits = targetLimits{
	recordio:     recordio.MaxRecordSize,
	tfrecord:     256 << 20, // tfrecord.MaxRecordBytes's default
	wdsMember:    64 << 20,  // webdataset.MaxMemberBytes's default
	wdsSample:    256 << 20, // webdataset.MaxSampleBytes's default
	parquetPage:  256 << 20, // parquet.MaxPageBytes's default
	parquetGroup: 64 << 20,
}

// tooLarge is the error of a record over a target's limit: where it was
// read, its size, the limit and the reader's option that sets it.
func tooLarge(it *convItem, sentinel error, what string, n, limit int64, option string) error {
	return fmt.Errorf("%s: %s is %d bytes, more than the %d that the reader accepts (%s): %w",
		it.where(), what, n, limit, option, sentinel)
}

// shardSet writes the shards of one conversion under temporary names in
// their folder; commit renames them all, abort removes them.
type shardSet struct {
	dir, prefix, to      string
	maxRecords, maxBytes int64
	cur                  *shard
	done                 []*shard // finished, waiting for commit
	committed            bool
}

// shard is one shard being written, or written under its temporary name.
type shard struct {
	final   string // the shard's name once committed
	f       *os.File
	bw      *bufio.Writer
	cw      *countWriter
	sink    recordSink
	idx     []byte // RecordIO: the .idx lines
	idxTmp  string // RecordIO: the temporary .idx, once written
	records int64
	bytes   int64 // the shard's size once finished
	// own says the sink writes the file itself (Parquet): f is then an
	// empty file that reserves the temporary name, which the sink's
	// writer replaces when it closes.
	own bool
}

// recordSink writes records in one format.
type recordSink interface {
	write(it convItem, sh *shard) error
	// size returns the bytes of the records written so far, those the
	// format's writer still buffers included.
	size() int64
	close() error // ends the shard's stream (tar trailer, gzip, ...)
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// write adds it to the current shard, first starting a new shard when the
// current one has reached a limit.
func (s *shardSet) write(it convItem) error {
	if s.cur != nil && (s.maxRecords > 0 && s.cur.records >= s.maxRecords || s.maxBytes > 0 && s.cur.sink.size() >= s.maxBytes) {
		if err := s.finish(); err != nil {
			return err
		}
	}
	if s.cur == nil {
		if err := s.start(it); err != nil {
			return err
		}
	}
	if err := s.cur.sink.write(it, s.cur); err != nil {
		return err
	}
	s.cur.records++
	return nil
}

// start opens the next shard under a temporary name; first, the shard's
// first record, sets the columns of a Parquet shard.
func (s *shardSet) start(first convItem) error {
	name := fmt.Sprintf("%s-%05d%s", s.prefix, len(s.done), outFormats[s.to])
	f, err := os.CreateTemp(s.dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	sh := &shard{final: filepath.Join(s.dir, name), f: f}
	sh.bw = bufio.NewWriterSize(f, 1<<20)
	sh.cw = &countWriter{w: sh.bw}
	switch s.to {
	case "recordio":
		sh.sink = &recSink{w: recordio.NewWriter(sh.cw)}
	case "tfrecord":
		sh.sink = &tfSink{w: tfrecord.NewWriter(sh.cw)}
	case "wds":
		sh.sink = &wdsSink{w: webdataset.NewWriter(sh.cw), cw: sh.cw}
	case "parquet":
		sh.own = true
		if err := f.Close(); err != nil {
			os.Remove(f.Name())
			return err
		}
		if sh.sink, err = newParquetSink(f.Name(), first); err != nil {
			os.Remove(f.Name())
			return err
		}
	}
	s.cur = sh
	return nil
}

// finish ends the current shard and closes its temporary file.
func (s *shardSet) finish() error {
	sh := s.cur
	s.cur = nil
	s.done = append(s.done, sh) // abort removes it whatever happens next
	if sh.own {
		if err := sh.sink.close(); err != nil {
			return err
		}
		st, err := os.Stat(sh.f.Name())
		if err != nil {
			return err
		}
		sh.bytes = st.Size()
		return os.Chmod(sh.f.Name(), 0o644)
	}
	err := errors.Join(sh.sink.close(), sh.bw.Flush())
	if err == nil {
		err = sh.f.Sync()
	}
	err = errors.Join(err, sh.f.Close(), os.Chmod(sh.f.Name(), 0o644))
	if err != nil {
		return err
	}
	sh.bytes = sh.cw.n
	if s.to == "recordio" {
		idx, err := os.CreateTemp(s.dir, "."+filepath.Base(sh.final)+".idx.tmp*")
		if err != nil {
			return err
		}
		sh.idxTmp = idx.Name()
		_, err = idx.Write(sh.idx)
		if err = errors.Join(err, idx.Close(), os.Chmod(idx.Name(), 0o644)); err != nil {
			return err
		}
	}
	return nil
}

// commit finishes the last shard and renames every shard to its final
// name. A RecordIO shard's old .idx is removed before its .rec is renamed
// and the new .idx renamed last, as "im2rec pack" does, so that a new .rec
// never sits beside an old .idx.
func (s *shardSet) commit() error {
	if s.cur != nil {
		if err := s.finish(); err != nil {
			return err
		}
	}
	for _, sh := range s.done {
		if sh.idxTmp != "" {
			idx := strings.TrimSuffix(sh.final, ".rec") + ".idx"
			if err := os.Remove(idx); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if err := os.Rename(sh.f.Name(), sh.final); err != nil {
				return err
			}
			if err := os.Rename(sh.idxTmp, idx); err != nil {
				return err
			}
			continue
		}
		if err := os.Rename(sh.f.Name(), sh.final); err != nil {
			return err
		}
	}
	s.committed = true
	return nil
}

// abort removes the temporary files unless commit has renamed them. It is
// deferred, so every failure path cleans up.
func (s *shardSet) abort() {
	if s.committed {
		return
	}
	if s.cur != nil {
		if a, ok := s.cur.sink.(interface{ abort() }); ok {
			a.abort()
		}
		s.cur.f.Close()
		s.done = append(s.done, s.cur)
	}
	for _, sh := range s.done {
		os.Remove(sh.f.Name()) // a shard already renamed is gone from there
		if sh.idxTmp != "" {
			os.Remove(sh.idxTmp)
		}
	}
}

// recSink writes RecordIO records: image records (MXNet's header with the
// id and labels, then the bytes) for inputs with labels, the payload as it
// is otherwise; the .idx maps each record's id to its offset.
type recSink struct {
	w   *recordio.Writer
	buf []byte
}

func (r *recSink) write(it convItem, sh *shard) error {
	if it.fields != nil {
		return fmt.Errorf("%s: sample %q: %s, and a RecordIO record holds one payload: convert it to tfrecord or wds", it.where(), it.key, fieldsWhat)
	}
	payload := it.data
	if it.labels != nil {
		h := imagerec.Header{ID: it.id}
		if len(it.labels) == 1 {
			h.Label = it.labels[0]
		} else {
			h.Labels = it.labels
		}
		r.buf = imagerec.AppendRecord(r.buf[:0], h, it.data)
		payload = r.buf
	}
	if int64(len(payload)) > limits.recordio {
		return tooLarge(&it, recordio.ErrTooLarge, "the RecordIO payload", int64(len(payload)), limits.recordio, "recordio.MaxRecordSize")
	}
	sh.idx = recordio.AppendIndexLine(sh.idx, int64(it.id), r.w.Tell())
	return r.w.Write(payload)
}

func (r *recSink) size() int64  { return r.w.Tell() }
func (r *recSink) close() error { return nil }

// fieldsWhat says what a record with fields is, for the targets that
// cannot hold one.
const fieldsWhat = "its fields (a WebDataset sample's members, a Parquet row's columns) have names"

// tfSink writes tf.train.Example records.
type tfSink struct {
	w   *tfrecord.Writer
	buf []byte
	n   int64 // bytes written: a length, its CRC, the data and its CRC each
}

func (t *tfSink) write(it convItem, _ *shard) error {
	var ex tfrecord.Example
	if it.fields != nil {
		for _, name := range sortedNames(it.fields) {
			ex.SetBytes(name, it.fields[name])
		}
	} else {
		ex.SetBytes(it.name, it.data)
	}
	if it.labels != nil {
		if integral(it.labels) {
			v := make([]int64, len(it.labels))
			for i, l := range it.labels {
				v[i] = int64(l)
			}
			ex.SetInt64s("label", v...)
		} else {
			ex.SetFloat32s("label", it.labels...)
		}
	}
	if _, taken := it.fields["key"]; !taken {
		ex.SetBytes("key", []byte(it.key))
	}
	t.buf = ex.AppendMarshal(t.buf[:0])
	if int64(len(t.buf)) > limits.tfrecord {
		return tooLarge(&it, tfrecord.ErrTooLarge, "the tf.train.Example", int64(len(t.buf)), limits.tfrecord, "tfrecord.MaxRecordBytes")
	}
	t.n += 8 + 4 + int64(len(t.buf)) + 4
	return t.w.Write(t.buf)
}

func (t *tfSink) size() int64  { return t.n }
func (t *tfSink) close() error { return t.w.Close() }

// wdsSink writes WebDataset samples.
type wdsSink struct {
	w  *webdataset.Writer
	cw *countWriter // what the writer has written, which it does not buffer
}

func (s *wdsSink) write(it convItem, _ *shard) error {
	fields := it.fields
	if fields == nil {
		fields = map[string][]byte{it.ext: it.data}
		if it.labels != nil {
			field := "cls"
			if len(it.labels) != 1 || !integral(it.labels) {
				field = "json"
			}
			fields[field] = appendLabelsText(nil, it.labels)
		}
	}
	var total int64
	for _, name := range sortedNames(fields) {
		n := int64(len(fields[name]))
		if n > limits.wdsMember {
			return tooLarge(&it, webdataset.ErrTooLarge, fmt.Sprintf("the member %s.%s", it.key, name), n, limits.wdsMember, "webdataset.MaxMemberBytes")
		}
		total += n
	}
	if total > limits.wdsSample {
		return tooLarge(&it, webdataset.ErrTooLarge, fmt.Sprintf("the sample %q", it.key), total, limits.wdsSample, "webdataset.MaxSampleBytes")
	}
	return s.w.Write(webdataset.Sample{Key: it.key, Fields: fields})
}

func (s *wdsSink) size() int64  { return s.cw.n }
func (s *wdsSink) close() error { return s.w.Close() }

// parquetRow is a row of the Parquet shards convert writes from images
// with labels (mnist, images): the image's bytes and its label, with its
// key.
type parquetRow struct {
	Key   string `parquet:"key"`
	Image []byte `parquet:"image"`
	Label int64  `parquet:"label"`
}

// parquetDataRow is a row of the Parquet shards convert writes from the
// registry's records: the record's payload, with its key.
type parquetDataRow struct {
	Key  string `parquet:"key"`
	Data []byte `parquet:"data"`
}

// parquetSink writes Parquet rows of type T through dataset/parquet, which
// writes the file whole or not at all. A shard has the columns of what it
// holds, images or payloads, and no column that would stay empty.
type parquetSink[T any] struct {
	w     *parquet.Writer[T]
	row   func(it *convItem) (T, error)
	n     int64 // the rows' bytes before encoding
	group int64 // the bytes of n in the current row group
}

// newParquetSink starts a Parquet shard at path whose columns are those of
// first: key, image and label for an image with labels, key and data for a
// record's payload.
func newParquetSink(path string, first convItem) (recordSink, error) {
	if first.labels == nil {
		w, err := parquet.Create[parquetDataRow](path)
		if err != nil {
			return nil, err
		}
		return &parquetSink[parquetDataRow]{w: w, row: func(it *convItem) (parquetDataRow, error) {
			if it.labels != nil {
				return parquetDataRow{}, fmt.Errorf("%s: record %q: labels %v in a shard of payloads without labels", it.where(), it.key, it.labels)
			}
			return parquetDataRow{Key: it.key, Data: it.data}, nil
		}}, nil
	}
	w, err := parquet.Create[parquetRow](path)
	if err != nil {
		return nil, err
	}
	return &parquetSink[parquetRow]{w: w, row: func(it *convItem) (parquetRow, error) {
		if len(it.labels) != 1 || !integral(it.labels) {
			return parquetRow{}, fmt.Errorf("record %q: labels %v: a Parquet shard holds one integer label per image; convert to tfrecord or wds", it.key, it.labels)
		}
		return parquetRow{Key: it.key, Image: it.data, Label: int64(it.labels[0])}, nil
	}}, nil
}

func (p *parquetSink[T]) write(it convItem, _ *shard) error {
	if it.fields != nil {
		return fmt.Errorf("%s: sample %q: %s (%s), and the Parquet shards convert writes have fixed columns (key and data for a payload; key, image and label for an image), not a column for each field: convert it to tfrecord or wds", it.where(), it.key, fieldsWhat, strings.Join(sortedNames(it.fields), ", "))
	}
	row, err := p.row(&it)
	if err != nil {
		return err
	}
	for _, v := range [][]byte{[]byte(it.key), it.data} {
		if n := int64(len(v)); n+parquetPageSlack > limits.parquetPage {
			what := fmt.Sprintf("a Parquet page holding its %d-byte value (and up to %d bytes of others)", n, parquetPageSlack)
			return tooLarge(&it, parquet.ErrTooLarge, what, n+parquetPageSlack, limits.parquetPage, "parquet.MaxPageBytes")
		}
	}
	size := int64(len(it.key) + len(it.data) + 8)
	if p.group > 0 && p.group+size > limits.parquetGroup {
		if err := p.w.Flush(); err != nil {
			return err
		}
		p.group = 0
	}
	p.n += size
	p.group += size
	return p.w.Write(row)
}

func (p *parquetSink[T]) size() int64  { return p.n }
func (p *parquetSink[T]) close() error { return p.w.Close() }
func (p *parquetSink[T]) abort()       { p.w.Abort() }
