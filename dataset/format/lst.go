package format

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// lstFormat is the lst format reading through storage with sopts: the
// .lst files of im2rec, one Record per entry, Data the line as it is
// (imagerec.ParseList parses it), Offset where the line starts. A line
// that does not parse, repeats an earlier index or names a path that is
// empty, absolute or climbs out of the image root with ".." ends the
// pass (see scanList). It has no magic: it is found by its name or its
// text.
func lstFormat(sopts []storage.Option) Format {
	return Format{
		Storage: func(so ...storage.Option) Format { return lstFormat(so) },
		Open: func(path string, _ *source.SkipPolicy) source.Reader[Record] {
			return funcReader(func(ctx context.Context, yield func(Record, error) bool) {
				var i int64
				err := scanList(ctx, path, sopts, func(r Record, err error) bool {
					if err != nil {
						yield(Record{}, err)
						return false
					}
					r.Index = i
					i++
					return yield(r, nil)
				})
				if err != nil {
					yield(Record{}, err)
				}
			})
		},
		Check: func(ctx context.Context, paths []string, out io.Writer, opts ...Option) error {
			return check(ctx, paths, out, append([]Option{Storage(sopts...)}, opts...), checkList)
		},
	}
}

// maxListLine bounds one .lst line, as imagerec.ParseList does, so that a
// file without newlines cannot make the scanner grow without end.
const maxListLine = 16 << 20

// scanList reads the .lst file at name line by line and calls f with
// each entry (its line as Data, its offset, its ListEntry's path as Key),
// or with the error of a line that is malformed: one that
// imagerec.ParseList rejects, whose index appeared on an earlier line, or
// whose path is empty, absolute or climbs out of the image root with "..".
// Each such error is a *tensorfeed.Error naming the line that wraps
// imagerec.ErrList. f returns false to stop. Blank lines are skipped. The
// error returned is one that ends the scan early: the file cannot be
// opened or read, or a line is longer than maxListLine.
//
// Memory holds one line plus, per entry, its index and line number: the
// repeated-index check needs them.
func scanList(ctx context.Context, name string, opts []storage.Option, f func(r Record, err error) bool) error {
	file, err := openFile(ctx, name, opts)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), maxListLine)
	var off, next int64
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		off, next = next, next+int64(adv)
		return adv, tok, err
	})
	first := map[uint64]int{} // index -> line it first appeared on
	line := 0
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line++
		s := sc.Text()
		if strings.TrimSpace(s) == "" {
			continue
		}
		// ParseList sees a one-line file; its error names line 1, so it
		// is given the real line here.
		es, err := imagerec.ParseList(strings.NewReader(s), name)
		var le *tensorfeed.Error
		switch {
		case errors.As(err, &le):
			le.Line = line
		case err != nil:
		case len(es) != 1:
			// A line that ParseList reads as several (a lone '\r'
			// inside it): report rather than guess.
			err = listError(name, line, "line holds a line break")
		case listPathProblem(es[0].Path) != "":
			err = listError(name, line, listPathProblem(es[0].Path))
		default:
			if prev, dup := first[es[0].Index]; dup {
				err = listError(name, line, fmt.Sprintf("index %d repeated: line %d has it too", es[0].Index, prev))
			} else {
				first[es[0].Index] = line
			}
		}
		if err != nil {
			if !f(Record{}, err) {
				return nil
			}
			continue
		}
		if !f(Record{Path: name, Offset: off, Key: es[0].Path, Data: []byte(s)}, nil) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return listError(name, line+1, fmt.Sprintf("line longer than %d bytes", maxListLine))
		}
		return &tensorfeed.Error{Path: name, Offset: -1, Record: -1, Line: line + 1, Err: err}
	}
	return nil
}

// listPathProblem returns why p cannot be an image path of a .lst file,
// or "". Paths are relative to the image root and must stay inside it: an
// absolute path or one with a ".." component would let a .lst file pack
// any file the user can read. The check is on the path's text; symbolic
// links inside the root are followed, as "im2rec list" follows them.
func listPathProblem(p string) string {
	if p == "" {
		return "empty image path"
	}
	// A .lst written on Windows may use backslashes.
	slashed := strings.ReplaceAll(p, `\`, "/")
	clipped := p
	if len(clipped) > 200 {
		clipped = clipped[:200] + "..."
	}
	if path.IsAbs(slashed) || (len(slashed) >= 2 && slashed[1] == ':') {
		return fmt.Sprintf("image path %q is absolute; paths are relative to the image root", clipped)
	}
	for _, c := range strings.Split(slashed, "/") {
		if c == ".." {
			return fmt.Sprintf("image path %q leaves the image root (a \"..\" component)", clipped)
		}
	}
	return ""
}

// listError returns the error about line of the .lst file name: what
// imagerec.ParseList would give, a *tensorfeed.Error wrapping
// imagerec.ErrList.
func listError(name string, line int, msg string) error {
	return &tensorfeed.Error{Path: name, Offset: -1, Record: -1, Line: line, Err: fmt.Errorf("%w: %s", imagerec.ErrList, msg)}
}

// checkList checks a .lst file line by line, as "im2rec pack" reads it
// (see scanList). Whether the images exist is not checked: the root is
// not known here.
func checkList(ctx context.Context, c *checker, stdout io.Writer) error {
	var labels checkstat.Labels
	n, width := 0, -1
	err := scanList(ctx, c.path, c.sopts, func(r Record, err error) bool {
		if err != nil {
			return c.report(err)
		}
		es, _ := imagerec.ParseList(strings.NewReader(string(r.Data)), c.path)
		e := es[0]
		n++
		switch {
		case width == -1:
			width = len(e.Labels)
		case width >= 0 && width != len(e.Labels):
			width = -2 // varying
		}
		if len(e.Labels) > 0 {
			labels.Add(float64(e.Labels[0]))
		}
		return true
	})
	if err != nil || c.bad() > 0 {
		return err
	}
	w := fmt.Sprint(width)
	if width == -2 {
		w = "varying"
	}
	fmt.Fprintf(stdout, "%s: .lst: %d images, %s labels each; first label: %s\n", c.path, n, w, &labels)
	return nil
}
