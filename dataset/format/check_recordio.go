package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/storage"
)

// checkRecordIOFile checks the file of c: a RecordIO file with the .idx
// beside it when there is one, or an index (a name ending in .idx, or a
// file that starts with an index line, "ID<tab>OFFSET") against the .rec
// beside it.
func checkRecordIOFile(ctx context.Context, c *checker, stdout io.Writer) error {
	if strings.HasSuffix(c.path, ".idx") || isIndexText(ctx, c) {
		return checkRecIndex(ctx, c, stdout)
	}
	idx := strings.TrimSuffix(c.path, ".rec") + ".idx"
	if idx == c.path || !checkstat.Exists(ctx, idx, c.sopts) {
		idx = ""
	}
	return checkRecordIO(ctx, c, c.path, idx, true, stdout)
}

// isIndexText reports whether the file of c starts with a line of a
// RecordIO index: two decimal integers separated by a tab.
func isIndexText(ctx context.Context, c *checker) bool {
	head, err := readHead(ctx, c.path, c.sopts)
	if err != nil {
		return false
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	id, off, ok := strings.Cut(strings.TrimSpace(string(line)), "\t")
	_, err1 := strconv.ParseUint(id, 10, 64)
	_, err2 := strconv.ParseUint(off, 10, 64)
	return ok && err1 == nil && err2 == nil
}

// checkRecordIO reads a RecordIO file record by record. With images, the
// first record says what the file holds, since dmlc's RecordIO framing does
// not: when it is an image record (MXNet's header, then bytes starting
// with JPEG's or PNG's magic, see imageRecordHead), every payload is parsed
// as an image record and its image decoded, within imagerec's pixel bound;
// a record that fails is reported and, under OnBad, the check goes on with
// the next one. Otherwise (records "convert" writes from MNIST's raw
// pixels or from other formats' payloads, any RecordIO file of other
// data), only the framing is checked, as without images, and the summary
// says why the records were not taken for images. An error in the framing
// ends the check, since the next record cannot be found. When idx is not
// "", the index is then checked against the file (recordio.ValidateIndex).
//
// Memory holds one record and one decoded image at a time.
func checkRecordIO(ctx context.Context, c *checker, path, idx string, images bool, stdout io.Writer) error {
	f, err := checkstat.Open(ctx, path, c.sopts)
	if err != nil {
		return err
	}
	defer f.Close()
	bar := checkstat.Bar(ctx, path, f.Size())
	defer bar.Finish()
	rd := recordio.NewReader(checkstat.Counting(f, bar), path)
	dec := decode.Default()
	var labels checkstat.Labels
	var imgs checkstat.Images
	var lbuf []float32
	var notImages string // why the records are not taken for image records
	n := 0
	var payloadBytes int64
	for ; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		payload, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		payloadBytes += int64(len(payload))
		if n == 0 && images {
			if why := imageRecordHead(payload); why != "" {
				images, notImages = false, why
			}
		}
		if !images {
			continue
		}
		ex, err := imagerec.DecodeRecord(recordio.Record{File: path, Offset: rd.Offset(), Index: n, Data: payload}, dec, decode.Options{})
		if err != nil {
			if !c.report(err) {
				return nil
			}
			continue
		}
		imgs.Add(ex.Image.Width, ex.Image.Height, ex.Image.Channels)
		lbuf = append(lbuf[:0], ex.Label...)
		if len(lbuf) > 0 {
			labels.Add(float64(lbuf[0]))
		}
	}
	if idx != "" {
		if err := checkIndexAgainst(ctx, f, path, idx, c.sopts); err != nil {
			return err
		}
	}
	bar.Finish() // before the summary
	if c.bad() > 0 {
		return nil
	}
	if images {
		fmt.Fprintf(stdout, "%s: image records: %d records; %s; first label: %s", path, n, &imgs, &labels)
	} else {
		fmt.Fprintf(stdout, "%s: RecordIO: %d records, %d payload bytes", path, n, payloadBytes)
		if notImages != "" {
			fmt.Fprintf(stdout, "; framing only, not image records: %s", notImages)
		}
	}
	if idx != "" {
		fmt.Fprintf(stdout, "; index %s matches", idx)
	}
	fmt.Fprintln(stdout)
	return nil
}

// imageRecordHead returns "" when payload, a file's first record, is an
// image record: MXNet's header parses and the bytes after it (and after
// its labels) start with a JPEG (FF D8) or PNG magic, as every image record
// that im2rec and "convert --from images" write does. Otherwise it says
// why not, for the summary. A record that would be an image record but for
// bad image bytes after the magic is taken for one, so that its decoding
// fails; only a file whose first record holds no image at all is taken for
// raw records.
func imageRecordHead(payload []byte) string {
	_, img, err := imagerec.ParseRecord(payload)
	if err != nil {
		return fmt.Sprintf("the first record (%d bytes) is not an image record", len(payload))
	}
	if decode.Sniff(img) != decode.FormatUnknown {
		return ""
	}
	return fmt.Sprintf("the first record's bytes after the image record header start % x, neither JPEG (ff d8) nor PNG (89 50 4e 47)", img[:min(len(img), 4)])
}

// checkIndexAgainst reads the .idx at idx and checks it against the open
// .rec file f.
func checkIndexAgainst(ctx context.Context, f storage.File, recPath, idx string, opts []storage.Option) error {
	ix, err := recordio.ReadIndex(ctx, idx, recordio.Storage(opts...))
	if err != nil {
		return err
	}
	return recordio.ValidateIndex(f, f.Size(), recPath, ix)
}

// checkRecIndex checks an .idx file: its lines, and, when the .rec beside
// it exists, that it matches that file's records.
func checkRecIndex(ctx context.Context, c *checker, stdout io.Writer) error {
	path := c.path
	rec := strings.TrimSuffix(path, ".idx") + ".rec"
	if rec == path || !checkstat.Exists(ctx, rec, c.sopts) {
		ix, err := recordio.ReadIndex(ctx, path, recordio.Storage(c.sopts...))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: RecordIO index: %d entries (no .rec beside it to check them against)\n", path, ix.Len())
		return nil
	}
	err := checkRecordIO(ctx, c, rec, path, false, stdout)
	var fe *tensorfeed.Error
	if errors.As(err, &fe) && fe.Path == "" {
		fe.Path = rec
	}
	return err
}
