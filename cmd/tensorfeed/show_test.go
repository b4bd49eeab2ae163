package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
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
	out := filepath.Join(t.TempDir(), "recs.png")
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
		{[]string{"show", "--grid", "o.png", "--shape", "28x28", "../../data/mnist/t10k-images-idx3-ubyte.gz"}, 2, "--shape is for image records of raw pixels; an IDX file says its shape"},
	} {
		code, _, stderr := runCmd(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: exit %d, %q", c.args, code, stderr)
		}
	}
}

// A --grid in a folder that does not exist is an error that names the
// folder, found before the data is read (the data here does not exist
// either), and no folder is made.
func TestShowGridFolderMissing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "no", "such")
	code, stdout, stderr := runCmd("show", "--grid", filepath.Join(dir, "x.png"), filepath.Join(root, "missing.rec"))
	if code != 1 || !strings.Contains(stderr, "the folder "+dir+" does not exist") || strings.Contains(stderr, "missing.rec") || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "no")); !os.IsNotExist(err) {
		t.Errorf("%s was made: %v", filepath.Join(root, "no"), err)
	}
	// A file where the folder should be.
	writeFile(t, filepath.Join(root, "file"), []byte("x"))
	code, _, stderr = runCmd("show", "--grid", filepath.Join(root, "file", "x.png"), filepath.Join(root, "missing.rec"))
	if code != 1 || !strings.Contains(stderr, "is not a folder") {
		t.Errorf("file as folder: exit %d, stderr %q", code, stderr)
	}
	// A folder where the file should be.
	code, _, stderr = runCmd("show", "--grid", root, filepath.Join(root, "missing.rec"))
	if code != 1 || !strings.Contains(stderr, "--grid "+root+": a folder, not a file") {
		t.Errorf("folder as file: exit %d, stderr %q", code, stderr)
	}
}

// -n and --scale are bounded, with a usage error above the bound rather
// than a grid of 457x90001 pixels; the help says the bounds.
func TestShowBounds(t *testing.T) {
	mnist := "../../data/mnist/t10k-images-idx3-ubyte.gz"
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-n", "100000"}, "-n 100000: show draws at most 1024 images"},
		{[]string{"-n", "1025"}, "at most 1024"},
		{[]string{"--scale", "17"}, "--scale 17: at most 16"},
	} {
		out := filepath.Join(t.TempDir(), "g.png")
		args := append(append([]string{"show", "--grid", out}, c.args...), mnist)
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: exit %d, stderr %q", c.args, code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%q: %s written", c.args, out)
		}
	}
	_, help, _ := runCmd("help", "show")
	if !strings.Contains(help, "at most 1024") || !strings.Contains(help, "at most 16") {
		t.Errorf("help does not give the bounds:\n%s", help)
	}
}

// writeRec writes a RecordIO file of image records, each payload's bytes
// after a header with the record's index as label.
func writeRec(t *testing.T, path string, payloads ...[]byte) {
	t.Helper()
	var b bytes.Buffer
	w := recordio.NewWriter(&b)
	for i, p := range payloads {
		if err := w.Write(imagerec.AppendRecord(nil, imagerec.Header{ID: uint64(i), Label: float32(i)}, p)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, path, b.Bytes())
}

// grey returns the grey level of img at (x, y).
func grey(img image.Image, x, y int) (uint8, bool) {
	c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
	return c.R, c.R == c.G && c.G == c.B
}

// The RecordIO records convert writes from MNIST hold raw pixels after the
// image record header: show draws them as 28x28 grey images, each pixel
// as it is, with the labels of the headers.
func TestShowRawMNISTRecords(t *testing.T) {
	dir := t.TempDir()
	const n = 3
	pix := make([]byte, n*28*28)
	for i := range pix {
		pix[i] = byte(i * 7)
	}
	writeIDX(t, filepath.Join(dir, "train-images-idx3-ubyte"), []int{n, 28, 28}, pix)
	writeIDX(t, filepath.Join(dir, "train-labels-idx1-ubyte"), []int{n}, []byte{7, 2, 1})
	out := t.TempDir()
	if code, _, stderr := runCmd("convert", "--from", "mnist", "--to", "recordio", "--out", out, "--prefix", "m", dir); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	rec := filepath.Join(out, "m-00000.rec")
	png := filepath.Join(out, "m.png")
	code, stdout, stderr := runCmd("show", "--grid", png, rec)
	if code != 0 || !strings.Contains(stdout, "3 images of raw pixels 28x28 drawn at 28x28, labels from the record headers") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	img := readPNG(t, png)
	// 3 columns of 28*2 pixels and a border; a row of 56, a label strip of
	// 15 and a border.
	if b := img.Bounds(); b.Dx() != 3*57+1 || b.Dy() != 56+15+1+1 {
		t.Fatalf("size %v", img.Bounds())
	}
	for k := range n {
		for _, p := range [][2]int{{0, 0}, {10, 3}, {27, 27}, {14, 20}} {
			y, x := p[0], p[1]
			want := pix[k*784+y*28+x]
			if g, ok := grey(img, 1+k*57+2*x+1, 1+2*y+1); !ok || g != want {
				t.Errorf("image %d (%d, %d): %d (grey %v), want %d", k, y, x, g, ok, want)
			}
		}
		if !hasLabelColour(img, image.Rect(1+k*57, 57, 57+k*57, 72)) {
			t.Errorf("no label under image %d", k)
		}
	}
}

// Raw pixels of other shapes: 3 times a square is RGB; other lengths need
// --shape, and every record must have the first one's length.
func TestShowRawShapes(t *testing.T) {
	dir := t.TempDir()
	rgb := make([]byte, 4*4*3)
	for i := range 4 * 4 {
		rgb[3*i], rgb[3*i+1], rgb[3*i+2] = 200, 100, 50
	}
	writeRec(t, filepath.Join(dir, "rgb.rec"), rgb, rgb)
	odd := make([]byte, 2*5)
	writeRec(t, filepath.Join(dir, "odd.rec"), odd, odd)
	writeRec(t, filepath.Join(dir, "uneven.rec"), make([]byte, 16), make([]byte, 25))
	png := filepath.Join(dir, "g.png")

	code, stdout, stderr := runCmd("show", "--grid", png, filepath.Join(dir, "rgb.rec"))
	if code != 0 || !strings.Contains(stdout, "2 images of raw pixels 4x4x3 drawn at 4x4") {
		t.Fatalf("rgb: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if c := color.RGBAModel.Convert(readPNG(t, png).At(2, 2)).(color.RGBA); c.R != 200 || c.G != 100 || c.B != 50 {
		t.Errorf("rgb: pixel %v", c)
	}

	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout, or stderr when the exit is not 0
	}{
		{[]string{"odd.rec"}, 2, "holds 10 bytes after its header, neither a JPEG, a PNG nor raw pixels of a square image (a square number of bytes, or 3 times one): give --shape HxW or HxWxC"},
		{[]string{"--shape", "2x5", "odd.rec"}, 0, "2 images of raw pixels 2x5 drawn at 5x2"},
		{[]string{"--shape", "5x2x1", "odd.rec"}, 0, "2 images of raw pixels 5x2 drawn at 2x5"},
		{[]string{"--shape", "3x3", "odd.rec"}, 1, "record 0 at byte 0: tensorfeed: bad data: 10 bytes of pixels after the image record header, not the 9 of 3x3"},
		{[]string{"--shape", "2x5x2", "odd.rec"}, 2, "C is 1 (grey) or 3 (RGB), not 2"},
		{[]string{"--shape", "2by5", "odd.rec"}, 2, "want HxW or HxWxC"},
		{[]string{"--shape", "0x5", "odd.rec"}, 2, "each a number from 1"},
		{[]string{"uneven.rec"}, 1, "record 1 at byte 48: tensorfeed: bad data: 25 bytes of pixels after the image record header, not the 16 of 4x4"},
	} {
		args := append([]string{"show", "--grid", png}, c.args...)
		args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
		code, stdout, stderr := runCmd(args...)
		got := stdout
		if c.code != 0 {
			got = stderr
		}
		if code != c.code || !strings.Contains(got, c.out) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
	}

	// --shape is for raw pixels, not for records of JPEG or PNG images.
	root, _, _ := makeTree(t)
	if code, _, stderr := runCmd("convert", "--from", "images", "--to", "recordio", "--out", dir, "--prefix", "p", root); code != 0 {
		t.Fatalf("convert images: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCmd("show", "--grid", png, "--shape", "2x2", filepath.Join(dir, "p-00000.rec"))
	if code != 2 || !strings.Contains(stderr, "--shape 2x2 is for raw pixels, and the image record holds a ") {
		t.Errorf("--shape of images: exit %d, stderr %q", code, stderr)
	}
}

// A grid of more than 64 Mi pixels is refused before it is drawn, for an
// IDX file before its images are read: -n and --scale within their bounds
// could otherwise ask for gigabytes.
func TestShowGridPixelBound(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "big-images-idx3-ubyte")
	writeIDX(t, idx, []int{2, 600, 600}, make([]byte, 2*600*600))
	out := filepath.Join(dir, "g.png")
	code, _, stderr := runCmd("show", "--scale", "16", "--grid", out, idx)
	if code != 2 || !strings.Contains(stderr, "2 images of 600x600 pixels drawn at scale 16 are more than the 67108864 pixels a grid holds: give a smaller -n or --scale") {
		t.Errorf("idx: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCmd("show", "--scale", "1", "--grid", out, idx); code != 0 {
		t.Errorf("idx at scale 1: exit %d, stderr %q", code, stderr)
	}

	recs := make([][]byte, 17)
	for i := range recs {
		recs[i] = make([]byte, 128*128)
	}
	rec := filepath.Join(dir, "big.rec")
	writeRec(t, rec, recs...)
	code, _, stderr = runCmd("show", "--scale", "16", "--grid", out, rec)
	if code != 2 || !strings.Contains(stderr, "17 images of 128x128 pixels drawn at scale 16 are more than") {
		t.Errorf("rec: exit %d, stderr %q", code, stderr)
	}
}
