package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/storage"
)

// listLine is one entry of a .lst file with the line it is on, so that
// errors found after parsing (a repeated index, a path outside the image
// root) can still name the line.
type listLine struct {
	imagerec.ListEntry
	Line int
}

// maxListLine bounds one .lst line, as imagerec.ParseList does, so that a
// file without newlines cannot make the scanner grow without end.
const maxListLine = 16 << 20

// scanList reads the .lst file at name (a local path, or an s3:// or
// http(s):// URL read through package storage with opts) line by line and calls f with each
// entry, or with the error of a line that is malformed: one that
// imagerec.ParseList rejects, whose index appeared on an earlier line, or
// whose path is empty, absolute or climbs out of the image root with "..".
// Each such error is a *tensorfeed.Error naming the line that wraps imagerec.ErrList. f returns
// false to stop. Blank lines are skipped. The error returned is one that
// ends the scan early: the file cannot be opened or read, or a line is
// longer than maxListLine (such an error too).
//
// Memory holds one line plus, per entry, its index and line number: the
// repeated-index check needs them.
func scanList(ctx context.Context, name string, opts []storage.Option, f func(e listLine, err error) bool) error {
	file, err := openInput(ctx, name, opts)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), maxListLine)
	first := map[uint64]int{} // index -> line it first appeared on
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if strings.TrimSpace(s) == "" {
			continue
		}
		// ParseList sees a one-line file; its error names line 1, so it
		// is given the real line here.
		es, err := imagerec.ParseList(strings.NewReader(s), name)
		if err != nil {
			if le, ok := err.(*tensorfeed.Error); ok {
				le.Line = line
			}
			if !f(listLine{Line: line}, err) {
				return nil
			}
			continue
		}
		if len(es) != 1 {
			// A line that ParseList reads as several (a lone '\r'
			// inside it): report rather than guess.
			if !f(listLine{Line: line}, listError(name, line, "line holds a line break")) {
				return nil
			}
			continue
		}
		e := listLine{ListEntry: es[0], Line: line}
		if msg := checkListPath(e.Path); msg != "" {
			if !f(e, listError(name, line, msg)) {
				return nil
			}
			continue
		}
		if prev, dup := first[e.Index]; dup {
			err := listError(name, line, fmt.Sprintf("index %d repeated: line %d has it too", e.Index, prev))
			if !f(e, err) {
				return nil
			}
			continue
		}
		first[e.Index] = line
		if !f(e, nil) {
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

// readList reads every entry of the .lst file at name and stops at the
// first malformed line (see scanList).
func readList(ctx context.Context, name string, opts []storage.Option) ([]listLine, error) {
	var out []listLine
	var bad error
	err := scanList(ctx, name, opts, func(e listLine, err error) bool {
		if err != nil {
			bad = err
			return false
		}
		out = append(out, e)
		return true
	})
	if bad != nil {
		return nil, bad
	}
	return out, err
}

// checkListPath returns why p cannot be an image path of a .lst file, or
// "". Paths are relative to the image root and must stay inside it: an
// absolute path or one with a ".." component would let a .lst file pack
// any file the user can read. The check is on the path's text; symbolic
// links inside the root are followed, as "im2rec list" follows them when it
// lists the images.
func checkListPath(p string) string {
	if p == "" {
		return "empty image path"
	}
	// A .lst written on Windows may use backslashes.
	slashed := strings.ReplaceAll(p, `\`, "/")
	if path.IsAbs(slashed) || (len(slashed) >= 2 && slashed[1] == ':') {
		return fmt.Sprintf("image path %q is absolute; paths are relative to the image root", clipPath(p))
	}
	for _, c := range strings.Split(slashed, "/") {
		if c == ".." {
			return fmt.Sprintf("image path %q leaves the image root (a \"..\" component)", clipPath(p))
		}
	}
	return ""
}

// clipPath shortens a path quoted in an error message.
func clipPath(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// listError returns the error about line of the .lst file name: what
// imagerec.ParseList would give, a *tensorfeed.Error wrapping
// imagerec.ErrList.
func listError(name string, line int, msg string) error {
	return &tensorfeed.Error{Path: name, Offset: -1, Record: -1, Line: line, Err: fmt.Errorf("%w: %s", imagerec.ErrList, msg)}
}
