package main

import (
	"context"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "photos")
	n, err := write(context.Background(), cli.RepoPath("data/mnist"), dir, 100)
	if err != nil || n != 100 {
		t.Fatalf("wrote %d: %v", n, err)
	}
	classes, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range classes {
		files, err := os.ReadDir(filepath.Join(dir, c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			fh, err := os.Open(filepath.Join(dir, c.Name(), f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m, err := jpeg.Decode(fh)
			fh.Close()
			if err != nil {
				t.Fatalf("%s/%s: %v", c.Name(), f.Name(), err)
			}
			if b := m.Bounds(); b.Dx() != 112 || b.Dy() != 112 {
				t.Errorf("%s/%s: %v", c.Name(), f.Name(), b)
			}
			total++
		}
	}
	if total != 100 || len(classes) != 10 {
		t.Errorf("%d files in %d class folders, want 100 in 10", total, len(classes))
	}
	if _, err := write(context.Background(), cli.RepoPath("data/mnist"), dir, 5); err == nil {
		t.Error("a folder that is not empty was written into")
	}
}
