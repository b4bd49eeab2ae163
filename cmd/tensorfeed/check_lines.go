package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// checkLines reads a text file as the file-format registry's csv format
// does (dataset/format: raw lines, none longer than
// format.DefaultMaxLineBytes), without parsing fields. With --all, every
// line over the maximum is reported and stepped over.
func checkLines(ctx context.Context, path string, rep *reporter, stdout io.Writer) error {
	opts := []format.Option{format.Storage(rep.storage...)}
	if rep.all {
		opts = append(opts, format.OnBad(source.SkipBad(1, source.OnSkip(func(err error) { rep.report(err) }))))
	}
	n, longest := 0, 0
	spec := "csv:" + path
	if !storage.IsRemote(path) {
		spec = "csv:" + escapeGlob(path)
	}
	for r, err := range format.Open([]string{spec}, opts...).All(ctx) {
		if err != nil {
			return err
		}
		n++
		longest = max(longest, len(r.Data))
	}
	if rep.bad > 0 {
		return nil
	}
	fmt.Fprintf(stdout, "%s: lines: %d lines, the longest %d bytes\n", path, n, longest)
	return nil
}

// escapeGlob escapes the characters of path that filepath.Glob would take
// as a pattern, so that format.Open reads exactly that file.
func escapeGlob(path string) string {
	var b []byte
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, path[i])
	}
	return string(b)
}
