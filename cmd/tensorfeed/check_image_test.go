package main

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

// testPhoto returns a w x h image with a pattern that compresses to more
// than a few bytes, so that a JPEG cut half-way is cut inside its scan.
func testPhoto(w, h int, gray bool) image.Image {
	return photo(w, h, gray, false)
}

// photo returns testPhoto's image, or with alpha one whose pixels are
// partly transparent.
func photo(w, h int, gray, alpha bool) image.Image {
	if alpha {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = uint8(i * 3)
		}
		return m
	}
	if gray {
		m := image.NewGray(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = uint8(i * 7)
		}
		return m
	}
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(x * 9), uint8(y * 5), uint8(x * y), 255})
		}
	}
	return m
}

func jpegFile(t *testing.T, w, h int, gray bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testPhoto(w, h, gray), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngFile(t *testing.T, w, h int, gray, alpha bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, photo(w, h, gray, alpha)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// corpusFiles returns the paths of the corpus's bare image cases by name.
func corpusFiles(t *testing.T) map[string]string {
	t.Helper()
	cases, err := badinput.Write(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, c := range cases {
		if c.Format == badinput.Image {
			byName[c.Name] = c.Path
		}
	}
	return byName
}

// A folder of photos, as "im2rec list" takes it, is checked image by
// image: sub-folders included, other files left alone, each image OK on
// stdout or its reason on stderr, in im2rec's order, then a summary; the
// exit status is 1.
func TestCheckImageFolder(t *testing.T) {
	corpus := corpusFiles(t)
	read := func(name string) []byte {
		b, err := os.ReadFile(corpus[name])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	root := t.TempDir()
	j := jpegFile(t, 40, 30, false)
	files := map[string][]byte{
		"cat/a.jpg":          jpegFile(t, 32, 24, false),
		"cat/b.PNG":          pngFile(t, 16, 20, false, true),
		"cat/c.jpg":          j[:len(j)/2],
		"cat/notes.txt":      []byte("not an image, not looked at"),
		"dog/d.jpeg":         jpegFile(t, 64, 48, true),
		"dog/e.png":          read("img_bare_corrupt_chunk_png"),
		"dog/puppy/f.png":    pngFile(t, 8, 10, true, false),
		"dog/puppy/huge.png": read("img_bare_png_100000"),
		"g.jpg":              []byte("GIF89a, named .jpg"),
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, data)
	}
	at := func(name string) string { return filepath.Join(root, filepath.FromSlash(name)) }
	code, stdout, stderr := runCmd("check", root)
	wantOut := []string{
		at("cat/a.jpg") + ": OK: JPEG 32x24 pixels, 3 channels",
		at("cat/b.PNG") + ": OK: PNG 16x20 pixels, 4 channels",
		at("dog/d.jpeg") + ": OK: JPEG 64x48 pixels, 1 channels",
		at("dog/puppy/f.png") + ": OK: PNG 8x10 pixels, 1 channels",
		root + ": 8 images, 4 bad; images 8-64 x 10-48 pixels (width x height), 2 with 1 channels, 1 with 3 channels, 1 with 4 channels",
	}
	// im2rec's order: a folder's files, then its sub-folders.
	wantErr := []*regexp.Regexp{
		regexp.MustCompile(`^` + regexp.QuoteMeta(at("g.jpg")) + `: byte 0: not an image: .*not a JPEG or PNG image \(starts with 47 49 46 38\)$`),
		regexp.MustCompile(`^` + regexp.QuoteMeta(at("cat/c.jpg")) + `: byte ` + strconv.Itoa(len(j)/2) + `: truncated \(no end-of-image marker after the last scan\): decode: bad image: jpeg: `),
		regexp.MustCompile(`^` + regexp.QuoteMeta(at("dog/e.png")) + `: byte 0: corrupt data: decode: bad image: png: .*(checksum|corrupt)`),
		regexp.MustCompile(`^` + regexp.QuoteMeta(at("dog/puppy/huge.png")) + `: byte 0: over the bound: decode: bad image: png: 100000x100000 image \(at most 67108864 pixels\)$`),
	}
	outLines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	errLines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 1 || len(outLines) != len(wantOut) || len(errLines) != len(wantErr) {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant 1, %d and %d lines", code, stdout, stderr, len(wantOut), len(wantErr))
	}
	for i, w := range wantOut {
		if outLines[i] != w {
			t.Errorf("stdout line %d = %q, want %q", i+1, outLines[i], w)
		}
	}
	for i, re := range wantErr {
		if !re.MatchString(errLines[i]) {
			t.Errorf("stderr line %d = %q, want %v", i+1, errLines[i], re)
		}
	}

	// Without the bad files the folder passes.
	for _, name := range []string{"g.jpg", "cat/c.jpg", "dog/e.png", "dog/puppy/huge.png"} {
		if err := os.Remove(at(name)); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = runCmd("check", "--format", "image", root)
	if code != 0 || stderr != "" || !strings.HasSuffix(stdout, root+": 4 images, 0 bad; images 8-64 x 10-48 pixels (width x height), 2 with 1 channels, 1 with 3 channels, 1 with 4 channels\n") {
		t.Errorf("good folder: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A folder without images is bad: the check was for images.
func TestCheckImageFolderEmpty(t *testing.T) {
	dir := writeFiles(t, map[string]string{"readme.txt": "photos go here\n"})
	code, stdout, stderr := runCmd("check", dir)
	if code != 1 || stdout != "" || stderr != dir+": no image (.jpeg, .jpg or .png file) under the folder\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Each bare image file of the corpus, given alone: found by its magic
// bytes (or its name, when they are not an image's), decoded, and reported
// with why it is bad; the errors wrap tensorfeed.ErrBadData.
func TestCheckImageFiles(t *testing.T) {
	corpus := corpusFiles(t)
	cases := []struct {
		name string
		code int
		out  string // the line on stdout, after the path
		err  string // a pattern for the line on stderr, after the path
	}{
		{"img_bare_good_jpeg", 0, ": OK: JPEG 16x12 pixels, 3 channels", ""},
		{"img_bare_good_png", 0, ": OK: PNG 8x6 pixels, 3 channels", ""},
		{"img_bare_truncated_jpeg", 1, "", `: byte \d+: truncated \(no end-of-image marker after the last scan\): decode: bad image: jpeg: \S`},
		{"img_bare_truncated_header", 1, "", `: byte 40: truncated \(the file ends inside the header\): decode: bad image: jpeg: \S`},
		{"img_bare_truncated_png", 1, "", `: byte \d+: truncated \(the chunks end before an IEND chunk\): decode: bad image: png: \S`},
		{"img_bare_corrupt_chunk_png", 1, "", `: byte 0: corrupt data: decode: bad image: png: .*(checksum|corrupt)`},
		{"img_bare_png_100000", 1, "", `: byte 0: over the bound: decode: bad image: png: 100000x100000 image \(at most 67108864 pixels\)$`},
		{"img_bare_sof2_8000", 1, "", `: byte 0: over the bound: decode: bad image: jpeg: 8000x8000 progressive 3-component image: decoding needs about \d+ MiB, more than the bound of 128 MiB`},
		{"img_bare_not_image", 1, "", `: byte 0: not an image: decode: bad image: unknown: not a JPEG or PNG image \(starts with 74 68 69 73\)$`},
		{"img_bare_gif", 1, "", `: byte 0: not an image: .*\(starts with 47 49 46 38\)$`},
	}
	for _, c := range cases {
		path := corpus[c.name]
		if path == "" {
			t.Fatalf("no corpus case %s", c.name)
		}
		code, stdout, stderr := runCmd("check", path)
		if code != c.code {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d", c.name, code, stdout, stderr, c.code)
			continue
		}
		if c.out != "" && (stdout != path+c.out+"\n" || stderr != "") {
			t.Errorf("%s: stdout %q, stderr %q; want %q", c.name, stdout, stderr, path+c.out)
		}
		if c.err != "" && (stdout != "" || !regexp.MustCompile(`^`+regexp.QuoteMeta(path)+c.err).MatchString(strings.TrimSuffix(stderr, "\n")) || strings.Count(stderr, "\n") != 1) {
			t.Errorf("%s: stdout %q, stderr %q; want %s", c.name, stdout, stderr, c.err)
		}
		if c.code != 0 {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			img, _ := format.Default().Lookup("image")
			err = img.Check(t.Context(), []string{path}, io.Discard)
			var pe *tensorfeed.Error
			if !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &pe) || pe.Path != path {
				t.Errorf("%s: error %v (%d bytes) does not wrap ErrBadData in a *tensorfeed.Error naming the file", c.name, err, len(data))
			}
		}
	}
}

// A file larger than the bound on one image file is refused before it is
// read.
func TestCheckImageFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jpg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: a JPEG's first bytes, then a hole up to the bound.
	if _, err := f.Write(jpegFile(t, 8, 8, false)); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(decode.DefaultMaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, _, stderr := runCmd("check", path)
	want := path + ": byte 0: over the bound: decode: bad image: a file of 134217729 bytes, larger than the bound of 128 MiB on one image file\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, stderr, want)
	}
}
