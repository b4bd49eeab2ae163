package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
)

var recLsCommand = command{
	name:    "rec ls",
	args:    "[--raw] [--no-header] FILE.rec",
	summary: "list the records of a .rec file: offset, id, flag, labels, bytes, sha256",
	doc: `Ls prints a header row, then one tab-separated line per record of an image record file, in file order: its byte offset, the id and flag of its header, its labels (comma-separated), and the length and SHA-256 of its image.

With --raw the payloads are opaque bytes, not image records, and each line holds the offset, the payload's length and its SHA-256. The lines listed before a bad record are printed, then the error.

FILE.rec may be an s3://bucket/key object or an http(s):// URL, read as a stream with read-ahead. S3 is reached with the standard AWS_* environment variables, and AWS_ENDPOINT_URL names an S3-compatible server such as MinIO.`,
	setup: func(fs *flag.FlagSet) runFunc {
		raw := fs.Bool("raw", false, "treat payloads as opaque bytes, without an image record header")
		noHeader := fs.Bool("no-header", false, "leave out the header row (for scripts)")
		return func(ctx context.Context, pos []string, e *env) error {
			if len(pos) != 1 {
				return usagef("rec ls takes one file, got %d arguments", len(pos))
			}
			return recLs(ctx, pos[0], *raw, !*noHeader, e)
		}
	},
}

var recCatCommand = command{
	name:    "rec cat",
	args:    "[--raw] FILE.rec N",
	summary: "write the image of record N (from 0, in file order) to stdout",
	doc:     `Cat writes the image bytes of record N of an image record file to stdout, as they are stored (a JPEG or PNG file): "tensorfeed rec cat data.rec 0 > first.jpg". Records count from 0 in file order. With --raw it writes the whole payload, header included. FILE.rec may be an s3://bucket/key object or an http(s):// URL, as for "rec ls".`,
	setup: func(fs *flag.FlagSet) runFunc {
		raw := fs.Bool("raw", false, "write the whole payload, without parsing an image record header")
		return func(ctx context.Context, pos []string, e *env) error {
			if len(pos) != 2 {
				return usagef("rec cat takes a file and a record number, got %d arguments", len(pos))
			}
			n, err := strconv.Atoi(pos[1])
			if err != nil || n < 0 {
				return usagef("bad record number %q", pos[1])
			}
			return recCat(ctx, pos[0], n, *raw, e)
		}
	},
}

// recLsHeader and recLsRawHeader are the header rows of "rec ls".
const (
	recLsHeader    = "offset\tid\tflag\tlabels\tbytes\tsha256\n"
	recLsRawHeader = "offset\tbytes\tsha256\n"
)

func recLs(ctx context.Context, path string, raw, header bool, e *env) error {
	w := bufio.NewWriter(e.stdout)
	head := recLsHeader
	if raw {
		head = recLsRawHeader
	}
	var h imagerec.Header
	var err error
	for rec, rerr := range openAs(ctx, "recordio", path, e.storage) {
		if err = rerr; err != nil {
			break
		}
		if header { // once the file is open
			header = false
			w.WriteString(head)
		}
		data, cols := rec.Data, ""
		if !raw {
			if data, err = imagerec.ParseRecordInto(&h, rec.Data); err != nil {
				err = recordError(rec, err)
				break
			}
			cols = fmt.Sprintf("\t%d\t%d\t%s", h.ID, h.Flag, labelsText(h))
		}
		if _, err = fmt.Fprintf(w, "%d%s\t%s\n", rec.Offset, cols, sized(data, "\t")); err != nil {
			break
		}
	}
	if err == nil && header {
		w.WriteString(head) // a file without records
	}
	// Write what was listed before a bad record, then report it.
	return errors.Join(err, w.Flush())
}

// recordError positions err, about the payload of rec, at rec.
func recordError(rec format.Record, err error) error {
	return &tensorfeed.Error{Path: rec.Path, Offset: rec.Offset, Record: rec.Index, Err: err}
}

// labelsText returns the record's labels, comma-separated: the array when
// flag > 0, else the single header label.
func labelsText(h imagerec.Header) string {
	var buf [8]float32
	var labels []string
	for _, l := range h.AppendLabels(buf[:0]) {
		labels = append(labels, strconv.FormatFloat(float64(l), 'g', -1, 32))
	}
	return strings.Join(labels, ",")
}

func recCat(ctx context.Context, path string, n int, raw bool, e *env) error {
	count := 0 // records read
	for rec, err := range openAs(ctx, "recordio", path, e.storage) {
		if err != nil {
			return err
		}
		if count++; rec.Index < int64(n) {
			continue
		}
		payload := rec.Data
		if !raw {
			if _, payload, err = imagerec.ParseRecord(rec.Data); err != nil {
				return recordError(rec, err)
			}
		}
		_, err = e.stdout.Write(payload)
		return err
	}
	return fmt.Errorf("%s: no record %d: the file has %d records", path, n, count)
}
