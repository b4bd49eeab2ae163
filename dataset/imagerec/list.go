package imagerec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/storage"
)

// ListEntry is one line of an im2rec .lst file: the image's index (the id
// its record carries), its labels and its path relative to the image root.
type ListEntry struct {
	Index  uint64
	Labels []float32
	Path   string
}

// ReadList reads the .lst file at path (see ParseList). path may be an
// s3:// or http(s):// URL, read through package storage with opts.
func ReadList(path string, opts ...storage.Option) ([]ListEntry, error) {
	f, err := storage.OpenFile(context.Background(), path, opts...)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseList(f, path)
}

// maxListLine bounds the length of a .lst line, and so the memory a file
// without newlines can claim.
const maxListLine = 16 << 20

// ParseList parses an im2rec .lst file: one image per line, tab-separated
// fields "index \t label_1 [\t label_k ...] \t path". Spaces around a field
// are stripped, as im2rec does; blank lines are skipped. Tabs are never
// stripped: a line that ends in a tab has an empty path, which is an error
// (stripping it would make the last label the path). A line with fewer than
// three fields, an empty path, an index that is not an unsigned integer or
// that an earlier line already has, or a label that is not a number gives a
// *tensorfeed.Error naming the line. name is used in errors.
func ParseList(r io.Reader, name string) ([]ListEntry, error) {
	var out []ListEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxListLine)
	line := 0
	lineOf := make(map[uint64]int)
	for sc.Scan() {
		line++
		s := strings.Trim(sc.Text(), " \r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		e, msg := parseListLine(s)
		if msg == "" {
			if first, dup := lineOf[e.Index]; dup {
				msg = fmt.Sprintf("index %d already on line %d: ids must be unique", e.Index, first)
			}
		}
		if msg != "" {
			return out, listError(name, line, msg)
		}
		lineOf[e.Index] = line
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return out, listError(name, line+1, fmt.Sprintf("line longer than %d bytes", maxListLine))
		}
		return out, fmt.Errorf("imagerec: %s: line %d: %w", name, line+1, err)
	}
	return out, nil
}

func parseListLine(s string) (ListEntry, string) {
	fields := strings.Split(s, "\t")
	if len(fields) < 3 {
		return ListEntry{}, fmt.Sprintf("%d tab-separated fields, want index, label(s) and path", len(fields))
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	idx, err := strconv.ParseUint(fields[0], 10, 64)
	if err != nil {
		return ListEntry{}, fmt.Sprintf("index %q is not an unsigned integer", clip(fields[0]))
	}
	labels := make([]float32, len(fields)-2)
	for i, f := range fields[1 : len(fields)-1] {
		v, err := strconv.ParseFloat(f, 32)
		if err != nil {
			return ListEntry{}, fmt.Sprintf("label %d: %q is not a number", i+1, clip(f))
		}
		labels[i] = float32(v)
	}
	path := fields[len(fields)-1]
	if path == "" {
		return ListEntry{}, "empty path: the last field must name the image"
	}
	return ListEntry{Index: idx, Labels: labels, Path: path}, ""
}

// appendListLine appends e as one .lst line, the way im2rec writes it:
// "index\tlabel\t...\tpath\n" with labels printed with 6 decimals.
func appendListLine(dst []byte, e ListEntry) []byte {
	dst = strconv.AppendUint(dst, e.Index, 10)
	for _, l := range e.Labels {
		dst = append(dst, '\t')
		dst = strconv.AppendFloat(dst, float64(l), 'f', 6, 32)
	}
	dst = append(dst, '\t')
	dst = append(dst, e.Path...)
	return append(dst, '\n')
}

// WriteList writes entries as a .lst file.
func WriteList(w io.Writer, entries []ListEntry) error {
	bw := bufio.NewWriter(w)
	var line []byte
	for _, e := range entries {
		line = appendListLine(line[:0], e)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// clip shortens a field quoted in an error message.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}
