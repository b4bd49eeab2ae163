package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readPNG decodes the PNG file at path.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// hasLabelColour reports whether img has a pixel in the labels' colour
// (light yellow) inside r.
func hasLabelColour(img image.Image, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.R > 200 && c.G > 180 && c.B < 160 {
				return true
			}
		}
	}
	return false
}

// The first MNIST test digits, with the labels of the file beside them.
func TestShowMNIST(t *testing.T) {
	out := filepath.Join(t.TempDir(), "digits.png")
	code, stdout, stderr := runCmd("show", "-n", "16", "--grid", out, "../../data/mnist/t10k-images-idx3-ubyte.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "16 images 28x28, labels from ../../data/mnist/t10k-labels-idx1-ubyte.gz") {
		t.Errorf("stdout %q", stdout)
	}
	img := readPNG(t, out)
	// 8 columns of 28*2 pixels and a border; 2 rows of 56 pixels, a label
	// strip of 15 and a border.
	if b := img.Bounds(); b.Dx() != 8*57+1 || b.Dy() != 2*(56+15+1)+1 {
		t.Errorf("size %v", b)
	}
	// The first digit (a 7) has white strokes; its label strip has text.
	if !hasLabelColour(img, image.Rect(1, 57, 57, 72)) {
		t.Error("no label under the first digit")
	}
	white := 0
	for y := 1; y < 57; y++ {
		for x := 1; x < 57; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r>>8 > 200 {
				white++
			}
		}
	}
	if white < 100 {
		t.Errorf("the first digit has %d white pixels", white)
	}
}

// A .rec packed here: every image resized to the first's size, labelled.
func TestShowRec(t *testing.T) {
	root, _, _ := makeTree(t)
	prefix := filepath.Join(t.TempDir(), "data")
	if code, _, stderr := runCmd("im2rec", "list", "--shuffle=false", prefix, root); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCmd("im2rec", "pack", prefix, root); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(t.TempDir(), "sub", "recs.png")
	code, stdout, stderr := runCmd("show", prefix+".rec", "--grid", out, "--cols", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 4 images, the first 30x20, drawn at scale 2 (64/30).
	if !strings.Contains(stdout, "4 images drawn at 30x20, labels from the record headers") {
		t.Errorf("stdout %q", stdout)
	}
	img := readPNG(t, out)
	if b := img.Bounds(); b.Dx() != 2*61+1 || b.Dy() != 2*(40+15+1)+1 {
		t.Errorf("size %v", b)
	}
	if !hasLabelColour(img, image.Rect(1, 41, 61, 56)) {
		t.Error("no label under the first image")
	}
}

func TestShowUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"show", "x.rec"}, 2, "needs --grid"},
		{[]string{"show", "--grid", "o.png"}, 2, "show takes one file"},
		{[]string{"show", "-n", "0", "--grid", "o.png", "x"}, 2, "-n >= 1"},
		{[]string{"show", "--grid", "o.png", "no/such.rec"}, 1, "no/such.rec"},
		{[]string{"show", "--grid", "o.png", "--format", "csv", "x.csv"}, 2, "IDX images or image records"},
	} {
		code, _, stderr := runCmd(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: exit %d, %q", c.args, code, stderr)
		}
	}
}
