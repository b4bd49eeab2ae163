package format

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Detect returns the name of the format of the file at path (a local
// path or a URL, read through the Storage in opts; the other options are
// not used), found from its first bytes and its name as Open finds it
// (see the package doc), or a *tensorfeed.Error wrapping
// errUnknownFormat that says why none fits. A local folder is the image
// format's, when it is registered.
func (r *Registry) Detect(ctx context.Context, path string, opts ...Option) (string, error) {
	if _, ok := r.Lookup("image"); ok && isLocalDir(path) {
		return "image", nil
	}
	var cfg config
	option.Apply(&cfg, opts)
	f, err := checkstat.Open(ctx, path, cfg.storage)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, headSize)
	var n int
	if storage.IsRemote(path) {
		n, err = f.ReadAt(head[:min(headSize, f.Size())], 0)
	} else {
		n, err = io.ReadFull(f, head)
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", err
	}
	return r.detect(path, head[:n])
}

// detect returns the format of the file name whose first bytes are head
// (at most headSize). Magic numbers come first, user formats before the
// built-in ones, so that a misnamed binary file is still recognised; then
// the name (a gzip file's, an extension) and, for text, the first line.
// It is a pure function of its arguments.
func (r *Registry) detect(name string, head []byte) (string, error) {
	n, err := r.detectName(name, head)
	if _, ok := r.Lookup(n); err == nil && !ok {
		return "", &tensorfeed.Error{Path: name, Offset: -1, Record: -1,
			Err: cause.Prefixed("format: unknown format: ", errUnknownFormat, fmt.Errorf("it looks like %s, which is not registered; name its format with a tag", n))}
	}
	return n, err
}

// detectName is detect without the check that the format is registered.
func (r *Registry) detectName(name string, head []byte) (string, error) {
	for _, n := range r.Names() {
		f, _ := r.Lookup(n)
		if n != "csv" && f.Detect != nil && f.Detect(head) {
			return n, nil
		}
	}
	lower := strings.ToLower(filepath.Base(name))
	ext := filepath.Ext(lower)
	trimmed := strings.TrimSuffix(lower, ".gz")
	unknown := func(msg string, args ...any) (string, error) {
		// The head, from byte 0, is what does not fit.
		return "", &tensorfeed.Error{Path: name, Offset: 0, Record: -1,
			Err: cause.Prefixed("format: unknown format: ", errUnknownFormat, fmt.Errorf(msg, args...))}
	}
	byName := func() string {
		switch {
		case strings.HasSuffix(trimmed, ".tfrecord") || strings.HasSuffix(trimmed, ".tfrecords"):
			return "tfrecord"
		case strings.HasSuffix(lower, ".tar") || strings.HasSuffix(lower, ".tar.gz") || strings.HasSuffix(lower, ".tgz"):
			return "wds"
		}
		return ""
	}
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		// gzip: IDX, TFRecord or a tar shard inside. What the head
		// decompresses to is looked at first, then the name.
		if n := byName(); n != "" {
			return n, nil
		}
		if inner := gunzipHead(head); len(inner) >= 2 && (inner[0] != 0 || inner[1] != 0) {
			return unknown("a gzip stream that holds neither an IDX file, TFRecord nor a tar shard (it starts % x)", inner[:min(len(inner), 4)])
		}
		// An IDX magic, or a stream cut or corrupt before one: the IDX
		// reader says where it breaks.
		return "idx", nil
	case byName() != "":
		return byName(), nil
	case len(head) >= 2 && head[0] == 0 && head[1] == 0,
		strings.Contains(trimmed, "-ubyte") || strings.HasSuffix(trimmed, "ubyte") ||
			strings.Contains(trimmed, ".idx1") || strings.Contains(trimmed, ".idx2") ||
			strings.Contains(trimmed, ".idx3") || strings.Contains(trimmed, ".idx4"):
		return "idx", nil
	case ext == ".rec":
		return "recordio", nil
	case ext == ".parquet":
		return "parquet", nil // the reader says what is wrong with its magic
	case len(head) > 0 && (ext == ".jpg" || ext == ".jpeg" || ext == ".png"):
		return "image", nil // the image check says what is wrong with its magic
	}
	if !looksText(head) {
		if len(head) == 0 {
			return unknown("an empty file")
		}
		return unknown("binary data starting % x, neither IDX (00 00 type dims), gzip (1f 8b), RecordIO (0a 23 d7 ce), TFRecord (a length whose CRC verifies), tar (ustar at offset 257) nor Parquet (PAR1), JPEG (ff d8 ff) nor PNG (89 50 4e 47)", head[:min(len(head), 4)])
	}
	switch ext {
	case ".lst":
		return "lst", nil
	case ".idx":
		return "recordio", nil
	case ".csv", ".tsv", ".txt", ".data":
		return "csv", nil
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	fields := strings.Split(strings.TrimSpace(string(line)), "\t")
	if _, err := strconv.ParseUint(strings.TrimSpace(fields[0]), 10, 64); err == nil {
		switch {
		case len(fields) >= 3:
			return "lst", nil
		case len(fields) == 2:
			if _, err := strconv.ParseInt(strings.TrimSpace(fields[1]), 10, 64); err == nil {
				return "recordio", nil
			}
		}
	}
	if len(bytes.TrimSpace(head)) > 0 && bytes.ContainsAny(line, ",;0123456789") {
		return "csv", nil
	}
	return unknown("text that is neither CSV nor a .lst or .idx file; name its format (csv:PATH)")
}

// looksText reports whether head is UTF-8 text without control bytes other
// than tab, CR, LF and form feed. A rune cut at the end of head is allowed.
func looksText(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			return !utf8.FullRune(head[i:]) // a rune cut by the end of head is text
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			return false
		}
		i += n
	}
	return true
}
