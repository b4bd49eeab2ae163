package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/format"
)

var lsCommand = command{
	name:    "ls",
	args:    "[--format F] [--no-header] PATH...",
	summary: "list the records of files of any format: file, index, offset, key, bytes, sha256",
	doc: `Ls prints a header row, then one tab-separated line per record of the files, in order: the file, the record's index in it (from 0), its byte offset (in the decompressed stream of a gzip file), its key ("-" when the format has none), and the length and SHA-256 of its payload. A WebDataset sample is one line: its key, the bytes of all its fields, and in the last column each field as NAME:BYTES:SHA256, comma-separated in name order.

PATHs are read as the format registry reads them: [tag:]glob specs (recordio:a-*.rec, csv:rows.csv, shards/*.tar), files without a tag recognised from their first bytes: RecordIO, TFRecord (plain or gzip), WebDataset tar shards (plain or gzip), IDX (one record per slice along the first dimension) and text files holding commas (one record per line). --format names the format of every PATH. PATHs may be URLs: s3://bucket/ followed by a key or a key glob (s3://bucket/train-*.rec), or http(s)://; a URL's scheme is never a format tag (recordio:s3://bucket/x.rec names the format of an object). S3 is reached with the standard AWS_* environment variables, and AWS_ENDPOINT_URL names an S3-compatible server such as MinIO. The lines listed before a bad record are printed, then the error. "rec ls" lists image record headers.`,
	setup: func(fs *flag.FlagSet) runFunc {
		tag := fs.String("format", "", "the `format` of every PATH: "+strings.Join(format.Default().Names(), ", ")+"; detected when empty")
		noHeader := fs.Bool("no-header", false, "leave out the header row (for scripts)")
		return func(ctx context.Context, pos []string, e *env) error {
			if len(pos) == 0 {
				return usagef("ls takes at least one file")
			}
			tag, err := parseFormat(*tag)
			if err != nil {
				return err
			}
			specs := slices.Clone(pos)
			for i, p := range specs {
				if tag != "" {
					specs[i] = tag + ":" + p
				}
			}
			return convertErr(ls(ctx, specs, !*noHeader, e))
		}
	},
}

// lsHeader is the header row of "ls".
const lsHeader = "file\tindex\toffset\tkey\tbytes\tsha256\n"

// ls lists the records of the files that specs name.
func ls(ctx context.Context, specs []string, header bool, e *env) error {
	w := bufio.NewWriter(e.stdout)
	if header {
		w.WriteString(lsHeader)
	}
	var err error
	for rec, rerr := range format.Open(specs, format.Storage(e.storage...)).All(ctx) {
		if err = rerr; err != nil {
			break
		}
		payload := sized(rec.Data, "\t")
		if rec.Fields != nil {
			total, fields := 0, []string{}
			for _, name := range slices.Sorted(maps.Keys(rec.Fields)) {
				total += len(rec.Fields[name])
				fields = append(fields, name+":"+sized(rec.Fields[name], ":"))
			}
			payload = fmt.Sprintf("%d\t%s", total, strings.Join(fields, ","))
		}
		if _, err = fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\n", rec.Path, rec.Index, rec.Offset, cmp.Or(rec.Key, "-"), payload); err != nil {
			break
		}
	}
	// Write what was listed before a bad record, then report it.
	return errors.Join(err, w.Flush())
}

// sized returns the length of data, sep and its SHA-256 in hex, as "ls"
// and "rec ls" print a payload.
func sized(data []byte, sep string) string {
	return fmt.Sprintf("%d%s%x", len(data), sep, sha256.Sum256(data))
}
