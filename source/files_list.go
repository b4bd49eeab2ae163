package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/storage"
)

// Paths expands a file list as dmlc-core's InputSplit reads one: list is
// one or more elements separated by ';', each
//
//   - a file's path or a URL (s3://bucket/key, http(s)://host/path): itself;
//   - a local directory, or an s3:// URL ending in '/': the files directly
//     in it whose names end in ext (every file when ext is ""), in name
//     order, skipping names that start with '.';
//   - a glob (a local filepath.Glob pattern, or s3://bucket/ and a key
//     glob as storage.List takes it): the files it matches, in lexical
//     order, skipping directories and, locally, names that start with '.'.
//
// The elements' files come in the order of the elements. A ';' inside a
// URL's query belongs to the query: after a '?', a ';' separates only when
// a URL (scheme://) follows it, so "http://h/a.rec?x=1;y=2;s3://b/c.rec"
// is two elements; write a local path before such a URL, not after it.
//
// An empty element, a directory or glob that yields no file, or a bad
// pattern is an error naming the element. A plain path is not checked
// here: opening it reports a missing file. opts say how to list s3://
// URLs (see package storage).
func Paths(ctx context.Context, list, ext string, opts ...storage.Option) ([]string, error) {
	var out []string
	for _, el := range splitList(list) {
		got, err := expandElement(ctx, el, ext, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// splitList cuts list at its ';', keeping a ';' of a URL's query in the
// URL (see Paths).
func splitList(list string) []string {
	var out []string
	for _, seg := range strings.Split(list, ";") {
		if n := len(out); n > 0 && storage.IsRemote(out[n-1]) && strings.Contains(out[n-1], "?") && !storage.IsRemote(seg) {
			out[n-1] += ";" + seg
			continue
		}
		out = append(out, seg)
	}
	return out
}

// expandElement expands one element of a list (see Paths).
func expandElement(ctx context.Context, el, ext string, opts []storage.Option) ([]string, error) {
	if strings.TrimSpace(el) == "" {
		return nil, fmt.Errorf("source: file list: an empty element")
	}
	if storage.IsRemote(el) {
		s3 := strings.HasPrefix(strings.ToLower(el), "s3://")
		query := strings.IndexByte(el, '?')
		glob := strings.ContainsAny(el, "*?[") && (query < 0 || strings.ContainsAny(el[:query], "*["))
		switch {
		case s3 && strings.HasSuffix(el, "/"):
			// path.Match's '*' does not cross a '/': the keys directly
			// under the prefix.
			got, err := storage.List(ctx, el+"*"+ext, opts...)
			return nonEmpty(el, got, err)
		case s3 && glob:
			got, err := storage.List(ctx, el, opts...)
			return nonEmpty(el, got, err)
		}
		return []string{el}, nil
	}
	if strings.ContainsAny(el, "*?[") {
		got, err := filepath.Glob(el)
		if err != nil {
			return nil, fmt.Errorf("source: file list: %q: %w", el, err)
		}
		// As a shell does, a glob skips directories and hidden files.
		got = slices.DeleteFunc(got, func(p string) bool {
			st, err := os.Stat(p)
			return strings.HasPrefix(filepath.Base(p), ".") || (err == nil && st.IsDir())
		})
		slices.Sort(got)
		return nonEmpty(el, got, nil)
	}
	st, err := os.Stat(el)
	if err != nil || !st.IsDir() {
		return []string{el}, nil
	}
	ents, err := os.ReadDir(el)
	if err != nil {
		return nil, err
	}
	var got []string
	for _, e := range ents {
		if name := e.Name(); e.Type().IsRegular() && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ext) {
			got = append(got, filepath.Join(el, name))
		}
	}
	return nonEmpty(el, got, nil)
}

// nonEmpty returns got, or an error when the listing failed or found
// nothing.
func nonEmpty(el string, got []string, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("source: file list: no file matches %q: %w", el, os.ErrNotExist)
	}
	return got, nil
}
