package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/source"
)

var checkCommand = command{
	name:    "check",
	args:    "[flags] PATH...",
	summary: "validate files tensorfeed reads, record by record, and print what they hold",
	doc: `Check reads every file to its end with the reader tensorfeed trains from and prints what it holds: IDX files (plain or gzip: records, shape, element type, labels), CSV (with the reader's flags below), RecordIO image records (every image decoded, and the .idx beside a .rec checked against it), im2rec .lst files, TFRecord (plain or gzip: every record's length and data checksums; the feature names and kinds of the records that are tf.train.Example) and WebDataset tar shards (plain or gzip: every tar header, the samples grouped, the fields counted; .npy, .cls and .json fields parsed and JPEG and PNG images decoded within the decoder's memory bound), MXNet mean image files (mean_img: the NDArray header checked against the bytes present, every value finite), Parquet files (the magics, the footer and every page header checked against the reader's limits, every page of every row group decoded; rows, row groups and the columns with their types), bare JPEG and PNG files (each decoded whole within the decoder's pixel and memory bounds, as image records are: its size and channels, or why it is bad: not an image, truncated, over the bound, unsupported or corrupt data) and folders of them, walked as "im2rec list" walks its ROOT (the .jpeg, .jpg and .png files, sub-folders included: a line per image, then "FOLDER: N images, B bad; images W-W x H-H pixels"), so that a bad photograph is found before it is packed, and, with --format csv --lines, text files as raw lines (none longer than 1 MiB), as "ls" and "convert" read the csv format. The format is found from the magic bytes, then the name and the text; --format sets it, with the format registry's names (idx, csv, recordio, tfrecord, wds, parquet) or lst, meanimg or image. Files one after the other of one registry format are checked together, so that a WebDataset sample split across two shards is refused as the readers refuse it. A PATH may be a local file, an s3://bucket/key object or an http(s):// URL; S3 is reached with the standard AWS_* environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_PROFILE), and AWS_ENDPOINT_URL names an S3-compatible server such as MinIO.

Each bad record goes to stderr as "PATH: offset N: why", "PATH: line L column C: why" or "PATH: record R: why". The first bad record of a file ends its check, unless --all, which lists every bad record that the reader can skip (a TFRecord data checksum, a WebDataset sample with a duplicate field or a field that does not parse, a raw line over the maximum, a mean value that is not finite, a Parquet row group whose pages do not decode); damage to the framing (a length or tar header that is wrong, a truncated file) always ends the check. Exit status 1 when any file is bad.`,
	setup: checkSetup,
}

// renamedFormats are names that --format took before it took the
// registry's: a user who gives one is told the new name.
var renamedFormats = map[string]string{"rec": "recordio", "imagerec": "recordio", "recidx": "recordio", "lines": "csv"}

// parseFormat returns the --format value s, a registered format's name
// ("" detects), or a usage error that lists them, naming the new name of
// an old one.
func parseFormat(s string) (string, error) {
	names := format.Default().Names()
	if _, ok := format.Default().Lookup(s); s == "" || ok {
		return s, nil
	}
	if n, ok := renamedFormats[s]; ok {
		if s == "lines" {
			n += " --lines"
		}
		return "", usagef("--format %s is now --format %s, the format registry's name (known: %s)", s, n, strings.Join(names, ", "))
	}
	return "", usagef("unknown --format %q (known: %s)", s, strings.Join(names, ", "))
}

// checkOptions are the flags of "check".
type checkOptions struct {
	format string // "" detects
	all    bool
	mixed  bool // TFRecord: records that are not tf.train.Example may sit among those that are
	lines  bool // CSV: the raw lines only, as the registry's csv format reads them
	csv    []csv.Option
}

// checkSetup defines check's flags.
func checkSetup(fs *flag.FlagSet) runFunc {
	format := fs.String("format", "", "the files' `format`: the format registry's idx, csv (rows, read with the CSV flags below), recordio (image records decoded, else the framing; an .idx checked against the .rec beside it), tfrecord, wds (a WebDataset tar shard) or parquet, or lst (an im2rec list), meanimg (an MXNet mean image file) or image (a JPEG or PNG file, or a folder of them); detected when empty")
	all := fs.Bool("all", false, "report every bad record of a file, not only the first")
	mixed := fs.Bool("mixed", false, "TFRecord: the file mixes payloads: records that do not parse as tf.train.Example among those that do are counted, not reported")
	lines := fs.Bool("lines", false, "CSV: check the raw lines only (none longer than 1 MiB), as \"ls\" and \"convert\" read the csv format, without parsing fields")
	delim := fs.String("delimiter", ",", "CSV: the field separator, one `character` (\\t for tab)")
	header := fs.Bool("header", false, "CSV: the first row holds column names")
	skipRows := fs.Int("skip-rows", 0, "CSV: `lines` to skip before the header or the first row")
	comment := fs.String("comment", "", "CSV: lines starting with this `character` are comments")
	labelCols := fs.String("label-cols", "", "CSV: comma-separated label `columns` (indexes from 0, negative from the end, or names with --header); none by default")
	dataCols := fs.String("data-cols", "", "CSV: comma-separated data `columns`; by default every column that is not a label")
	classes := fs.String("classes", "", "CSV: comma-separated class `names` that string labels map to 0, 1, ...")
	finite := fs.Bool("finite", false, "CSV: inf and nan are bad values")
	maxLine := fs.Int("max-line-bytes", 1<<20, "CSV: the longest row accepted, in `bytes`") // csv.MaxLineBytes's default
	return func(ctx context.Context, paths []string, e *env) error {
		o := checkOptions{all: *all, mixed: *mixed, lines: *lines}
		if len(paths) == 0 {
			return usagef("check takes at least one file")
		}
		var err error
		if o.format, err = parseFormat(*format); err != nil {
			return err
		}
		d, err := oneRune("--delimiter", *delim)
		if err != nil {
			return err
		}
		o.csv = append(o.csv, csv.Delimiter(d))
		if *comment != "" {
			c, err := oneRune("--comment", *comment)
			if err != nil {
				return err
			}
			if c == d {
				return usagef("--comment and --delimiter are both %q", c)
			}
			o.csv = append(o.csv, csv.Comment(c))
		}
		if *header {
			o.csv = append(o.csv, csv.Header())
		}
		if *skipRows < 0 {
			return usagef("--skip-rows %d < 0", *skipRows)
		}
		if *skipRows > 0 {
			o.csv = append(o.csv, csv.SkipRows(*skipRows))
		}
		for _, f := range []struct {
			name, val string
			opt       func(...csv.Col) csv.Option
		}{{"--label-cols", *labelCols, csv.LabelColumns}, {"--data-cols", *dataCols, csv.DataColumns}} {
			if f.val == "" {
				continue
			}
			var cols []csv.Col
			for _, s := range strings.Split(f.val, ",") {
				s = strings.TrimSpace(s)
				if i, err := strconv.Atoi(s); err == nil {
					cols = append(cols, csv.Index(i))
				} else if *header && s != "" {
					cols = append(cols, csv.Name(s))
				} else {
					return usagef("%s: %q is not a column index (names need --header)", f.name, s)
				}
			}
			o.csv = append(o.csv, f.opt(cols...))
		}
		if *classes != "" {
			o.csv = append(o.csv, csv.Classes(strings.Split(*classes, ",")...))
		}
		if *finite {
			o.csv = append(o.csv, csv.Finite())
		}
		if *maxLine < 1 || *maxLine > 1<<30 {
			return usagef("--max-line-bytes must be in [1, 2^30]")
		}
		o.csv = append(o.csv, csv.MaxLineBytes(*maxLine))
		return runCheck(ctx, paths, o, e)
	}
}

// runCheck checks every path and fails with exit status 1 when one is bad.
// Paths one after the other of one format go to its Check together, so
// that it sees their seams (a WebDataset sample split across two shards).
func runCheck(ctx context.Context, paths []string, o checkOptions, e *env) error {
	if e.progress {
		ctx = checkstat.WithMeter(ctx, func(name string, size int64) checkstat.Meter {
			return barMeter{progress.New(e.stderr, filepath.Base(name), size, "bytes", progress.Terminal(true), progress.Quiet())}
		})
	}
	kinds := make([]string, len(paths))
	whys := make([]error, len(paths)) // why a file's format is not known
	kind := func(i int) string {
		if kinds[i] == "" {
			kinds[i], whys[i] = o.format, nil
			if kinds[i] == "" {
				kinds[i], whys[i] = format.Default().Detect(ctx, paths[i], format.Storage(e.storage...))
			}
		}
		return kinds[i]
	}
	bad := 0
	for i := 0; i < len(paths); {
		k, j := kind(i), i+1
		for k != "" && j < len(paths) && kind(j) == k {
			j++
		}
		rep := &reporter{path: paths[i], all: o.all, stderr: e.stderr}
		if j > i+1 {
			rep.path = "" // the formats' errors name their files
		}
		err := whys[i]
		if k != "" {
			err = checkRegistered(ctx, k, paths[i:j], o, rep, e)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap() // one for each bad file
			}
			for _, err := range errs {
				rep.report(err)
			}
		}
		if rep.bad > 0 || err != nil {
			bad++
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		i = j
	}
	if bad > 0 {
		return errReported
	}
	return nil
}

// oneRune parses a one-character flag value, as encoding/csv accepts it.
func oneRune(flag, s string) (rune, error) {
	if s == `\t` {
		return '\t', nil
	}
	r, n := utf8.DecodeRuneInString(s)
	if n != len(s) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' || r == 0 {
		return 0, usagef("%s %q: want one character other than a quote or a line break", flag, s)
	}
	return r, nil
}

// reporter prints the bad records of one file to stderr and says whether
// to go on looking for more.
type reporter struct {
	path   string
	all    bool
	stderr io.Writer
	bad    int
}

// report prints err, positioned, and returns whether the check goes on.
func (r *reporter) report(err error) bool {
	r.bad++
	msg := positioned(r.path, err)
	if errors.Is(err, csv.ErrFormat) {
		msg = csvFlagNames.Replace(msg)
	}
	fmt.Fprintln(r.stderr, msg)
	return r.all
}

// csvFlagNames turns the hints of dataset/csv's messages, which name its
// Go options, into the flags of check that set them, or into words where
// check has no flag.
var csvFlagNames = strings.NewReplacer(
	"(string labels need Classes)", "(string labels need --classes)",
	"is not finite (Finite)", "is not finite (--finite)",
	"bytes (MaxLineBytes)", "bytes (--max-line-bytes)",
	"bytes (MaxFieldBytes)", "bytes, the most a field may hold",
)

// checkRegistered checks paths with the Check of the format registered
// under name, each bad record reported and, with --all, stepped over;
// --mixed is format.Mixed, and the CSV flags format.Rows unless --lines.
func checkRegistered(ctx context.Context, name string, paths []string, o checkOptions, rep *reporter, e *env) error {
	f, _ := format.Default().Lookup(name)
	if f.Check == nil {
		return usagef("format %q cannot be checked", name)
	}
	opts := []format.Option{format.Storage(e.storage...)}
	if o.mixed {
		opts = append(opts, format.Mixed())
	}
	if !o.lines {
		opts = append(opts, format.Rows(o.csv...))
	}
	if rep.all {
		opts = append(opts, format.OnBad(source.SkipBad(1, source.OnSkip(func(err error) { rep.report(err) }))))
	}
	return f.Check(ctx, paths, e.stdout, opts...)
}

// barMeter draws the bytes a check reads as a progress bar.
type barMeter struct{ *progress.Bar }

func (b barMeter) Finish() { b.Bar.Finish() }

// positioned formats err as "FILE: POSITION: why" from its
// *tensorfeed.Error, whatever the format; path is the file when the error
// names none, or has no position.
func positioned(path string, err error) string {
	var e *tensorfeed.Error
	if errors.As(err, &e) {
		if e.Path == "" {
			c := *e
			c.Path = path
			e = &c
		}
		return e.Error()
	}
	// Not about a position in the data: the file cannot be opened or
	// read. An error that names the file already is printed as it is.
	if path == "" || strings.HasPrefix(err.Error(), path+":") {
		return err.Error()
	}
	return fmt.Sprintf("%s: %v", path, err)
}
