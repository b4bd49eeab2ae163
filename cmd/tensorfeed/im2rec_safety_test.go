package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// packFixture makes ROOT with three PNG images a.png, b.png, c.png and a
// folder for the .lst, and returns both.
func packFixture(t *testing.T) (root, dir string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "images")
	dir = filepath.Join(base, "lists")
	for _, d := range []string{root, dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"a.png", "b.png", "c.png"} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, testImage(8, 6, i)); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, name), buf.Bytes())
	}
	return root, dir
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirFiles returns the names in dir, sorted.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// A pack that fails part-way leaves the .rec and .idx of an earlier pack
// exactly as they were, and no temporary file.
func TestIm2recPackFailureKeepsOldOutput(t *testing.T) {
	root, dir := packFixture(t)
	writeFile(t, filepath.Join(root, "b.png"), []byte("not an image"))
	prefix := filepath.Join(dir, "data")
	writeFile(t, prefix+".lst", []byte("0\t0\ta.png\n1\t1\tb.png\n2\t0\tc.png\n"))
	oldRec, oldIdx := []byte("old rec bytes"), []byte("0\t0\n")
	writeFile(t, prefix+".rec", oldRec)
	writeFile(t, prefix+".idx", oldIdx)

	code, _, stderr := runCmd("im2rec", "pack", "--threads", "1", prefix, root)
	if code != 1 || !strings.Contains(stderr, "b.png") {
		t.Fatalf("exit %d, stderr %q; want 1 naming b.png", code, stderr)
	}
	for name, want := range map[string][]byte{".rec": oldRec, ".idx": oldIdx} {
		got, err := os.ReadFile(prefix + name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s after a failed pack: %q, %v; want the old %q", name, got, err, want)
		}
	}
	if got, want := dirFiles(t, dir), []string{"data.idx", "data.lst", "data.rec"}; !slices.Equal(got, want) {
		t.Errorf("files after a failed pack: %q, want %q", got, want)
	}

	// Without earlier files, a failed pack leaves none either.
	os.Remove(prefix + ".rec")
	os.Remove(prefix + ".idx")
	if code, _, _ := runCmd("im2rec", "pack", prefix, root); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if got, want := dirFiles(t, dir), []string{"data.lst"}; !slices.Equal(got, want) {
		t.Errorf("files after a failed pack: %q, want %q", got, want)
	}

	// A good pack replaces both files, and leaves nothing else behind.
	writeFile(t, prefix+".rec", oldRec)
	writeFile(t, prefix+".idx", oldIdx)
	writeFile(t, prefix+".lst", []byte("0\t0\ta.png\n2\t0\tc.png\n"))
	if code, _, stderr := runCmd("im2rec", "pack", prefix, root); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if got, want := dirFiles(t, dir), []string{"data.idx", "data.lst", "data.rec"}; !slices.Equal(got, want) {
		t.Errorf("files after a pack: %q, want %q", got, want)
	}
	if code, stdout, stderr := runCmd("rec", "ls", "--no-header", prefix+".rec"); code != 0 || strings.Count(stdout, "\n") != 2 {
		t.Errorf("rec ls of the new pack: exit %d, %q, %q", code, stdout, stderr)
	}
	if idx, _ := os.ReadFile(prefix + ".idx"); bytes.Equal(idx, oldIdx) || !bytes.HasPrefix(idx, []byte("0\t0\n2\t")) {
		t.Errorf("new .idx = %q", idx)
	}
	if st, err := os.Stat(prefix + ".rec"); err != nil || st.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("new .rec mode: %v, %v; want readable by all, as os.Create makes it", st.Mode(), err)
	}
}

// .lst lines that pack must refuse before it writes anything: each error
// names the .lst file and the line(s).
func TestIm2recPackRejectsBadList(t *testing.T) {
	cases := []struct {
		name, lst string
		want      []string // parts of stderr
	}{
		{"repeated index", "0\t0\ta.png\n\n1\t0\tb.png\n0\t1\tc.png\n", []string{"data.lst: line 4:", "index 0 repeated", "line 1"}},
		{"dot-dot path", "0\t0\ta.png\n1\t0\t../secret.png\n", []string{"data.lst: line 2:", `"../secret.png"`, "leaves the image root"}},
		{"dot-dot inside path", "0\t0\tsub/../../secret.png\n", []string{"data.lst: line 1:", "leaves the image root"}},
		{"absolute path", "0\t0\ta.png\n1\t0\t" + "/SECRET\n", []string{"data.lst: line 2:", "absolute"}},
		{"backslash dot-dot", "0\t0\t..\\secret.png\n", []string{"data.lst: line 1:", "leaves the image root"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, dir := packFixture(t)
			secret := filepath.Join(filepath.Dir(root), "secret.png")
			data, _ := os.ReadFile(filepath.Join(root, "a.png"))
			writeFile(t, secret, data)
			prefix := filepath.Join(dir, "data")
			writeFile(t, prefix+".lst", []byte(strings.ReplaceAll(c.lst, "/SECRET", secret)))
			code, _, stderr := runCmd("im2rec", "pack", "--pass-through", prefix, root)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if got, want := dirFiles(t, dir), []string{"data.lst"}; !slices.Equal(got, want) {
				t.Errorf("files after a refused pack: %q, want %q", got, want)
			}
		})
	}
}
