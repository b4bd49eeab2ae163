package imagerec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/internal/option"
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
// s3:// or http(s):// URL, read through package storage as [Storage] says
// (the other options do not apply).
func ReadList(path string, opts ...Option) ([]ListEntry, error) {
	var c config
	option.Apply(&c, opts)
	return readList(context.Background(), path, c.storage)
}

// readList reads the .lst file at path, a URL through storage with sopts.
func readList(ctx context.Context, path string, sopts []storage.Option) ([]ListEntry, error) {
	f, err := openFile(ctx, path, sopts)
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

// AppendListLine appends e as one .lst line, the way im2rec writes it:
// "index\tlabel\t...\tpath\n" with labels printed with 6 decimals.
func AppendListLine(dst []byte, e ListEntry) []byte {
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
		line = AppendListLine(line[:0], e)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Labels maps an image id to its labels: what ImageRecordIter does with a
// .lst file (path_imglist), so that labels come from the list by the id a
// record carries, not by the record's position.
type Labels struct {
	width int
	byID  map[uint64][]float32
}

// NewLabels keeps the first width labels of every entry. An entry with
// fewer than width labels, or an index that appears twice, is an error
// wrapping ErrList. NewLabels panics if width < 1.
func NewLabels(entries []ListEntry, width int) (*Labels, error) {
	if width < 1 {
		panic(fmt.Sprintf("imagerec: NewLabels: label width %d < 1", width))
	}
	flat := make([]float32, 0, len(entries)*width)
	m := make(map[uint64][]float32, len(entries))
	for i, e := range entries {
		if len(e.Labels) < width {
			return nil, fmt.Errorf("%w: entry %d (index %d) has %d labels, label width is %d",
				ErrList, i, e.Index, len(e.Labels), width)
		}
		if _, dup := m[e.Index]; dup {
			return nil, fmt.Errorf("%w: index %d appears twice", ErrList, e.Index)
		}
		n := len(flat)
		flat = append(flat, e.Labels[:width]...)
		m[e.Index] = flat[n : n+width : n+width]
	}
	return &Labels{width: width, byID: m}, nil
}

// Width returns the number of labels per image.
func (l *Labels) Width() int { return l.width }

// Len returns the number of images.
func (l *Labels) Len() int { return len(l.byID) }

// Lookup returns the labels of the image with the given id. The slice is
// shared: do not modify it.
func (l *Labels) Lookup(id uint64) ([]float32, bool) {
	v, ok := l.byID[id]
	return v, ok
}

// clip shortens a field quoted in an error message.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}
