package source_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.rec", "a.rec", "a.idx", ".hidden.rec"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.rec"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, b, idx := filepath.Join(dir, "a.rec"), filepath.Join(dir, "b.rec"), filepath.Join(dir, "a.idx")
	ctx := context.Background()
	cases := []struct {
		list, ext string
		want      []string
	}{
		{a, ".rec", []string{a}},
		{b + ";" + a, ".rec", []string{b, a}},
		{dir, ".rec", []string{a, b}},
		{dir, "", []string{idx, a, b}},
		{filepath.Join(dir, "*.rec"), "", []string{a, b}},
		{filepath.Join(dir, "?.idx") + ";" + dir, ".rec", []string{idx, a, b}},
		// A ';' in a URL's query stays in it; one before another URL
		// separates.
		{"http://127.0.0.1/x.rec?a=1;b=2", ".rec", []string{"http://127.0.0.1/x.rec?a=1;b=2"}},
		{"http://127.0.0.1/x.rec?a=1;b=2;https://127.0.0.1/y.rec", ".rec", []string{"http://127.0.0.1/x.rec?a=1;b=2", "https://127.0.0.1/y.rec"}},
		{a + ";http://127.0.0.1/x.rec?a=1;b", ".rec", []string{a, "http://127.0.0.1/x.rec?a=1;b"}},
		// A '?' of a query is not a glob.
		{"http://127.0.0.1/x.rec?v=1", "", []string{"http://127.0.0.1/x.rec?v=1"}},
		{"missing.rec", "", []string{"missing.rec"}},
	}
	for _, c := range cases {
		got, err := source.Paths(ctx, c.list, c.ext)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Paths(%q, %q) = %q, %v; want %q", c.list, c.ext, got, err, c.want)
		}
	}
	empty := t.TempDir()
	for _, list := range []string{"", a + ";", ";" + a, filepath.Join(dir, "*.none"), empty, filepath.Join(dir, "[")} {
		if got, err := source.Paths(ctx, list, ".rec"); err == nil {
			t.Errorf("Paths(%q) = %q, want an error", list, got)
		}
	}
	if _, err := source.Paths(ctx, empty, ".rec"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty directory: %v, want os.ErrNotExist", err)
	}
}
