package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

// testImage draws a w x h picture whose colours depend on seed.
func testImage(w, h, seed int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x*8 + seed*40), uint8(y*8 + seed*10), uint8(seed * 60), 255})
		}
	}
	return m
}

// makeTree writes ROOT/{cat,dog,bird/small}/... images and returns ROOT
// and the files in the order im2rec lists them, with their labels.
func makeTree(t *testing.T) (string, []string, []float32) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "images")
	type file struct {
		path  string
		w, h  int
		gray  bool
		label float32
	}
	files := []file{
		// bird (label 0) has no image of its own, its sub-folder does.
		{"bird/small/b1.png", 30, 20, false, 0},
		{"cat/a.jpg", 40, 30, false, 1},
		{"cat/b.PNG", 20, 44, true, 1},
		{"cat/notes.txt", 0, 0, false, -1},
		{"dog/x y.jpeg", 36, 36, false, 2},
	}
	var paths []string
	var labels []float32
	for i, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		var img image.Image = testImage(f.w, f.h, i)
		if f.gray {
			g := image.NewGray(img.Bounds())
			for y := range f.h {
				for x := range f.w {
					g.Set(x, y, img.At(x, y))
				}
			}
			img = g
		}
		var err error
		switch strings.ToLower(filepath.Ext(f.path)) {
		case ".png":
			err = png.Encode(&buf, img)
		case ".jpg", ".jpeg":
			err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
		default:
			buf.WriteString("not an image")
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.label >= 0 {
			paths = append(paths, f.path)
			labels = append(labels, f.label)
		}
	}
	return root, paths, labels
}

func TestIm2recList(t *testing.T) {
	root, paths, labels := makeTree(t)
	prefix := filepath.Join(t.TempDir(), "data")
	code, stdout, stderr := runCmd("im2rec", "list", "--shuffle=false", prefix, root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "bird/small\t0\ncat\t1\ndog\t2\n"; stdout != want {
		t.Errorf("class listing %q, want %q", stdout, want)
	}
	entries, err := imagerec.ReadList(prefix + ".lst")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(paths) {
		t.Fatalf("%d entries, want %d", len(entries), len(paths))
	}
	for i, e := range entries {
		if e.Index != uint64(i) || e.Path != paths[i] || !slices.Equal(e.Labels, []float32{labels[i]}) {
			t.Errorf("entry %d = %+v, want %d %q %v", i, e, i, paths[i], labels[i])
		}
	}
	// Shuffled with a seed: a permutation, the same for the same seed.
	read := func(p string) []imagerec.ListEntry {
		es, err := imagerec.ReadList(p)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	runCmd("im2rec", "list", "--seed", "3", prefix+"a", root)
	runCmd("im2rec", "list", "--seed", "3", prefix+"b", root)
	a, b := read(prefix+"a.lst"), read(prefix+"b.lst")
	if len(a) != len(entries) || !slices.EqualFunc(a, b, func(x, y imagerec.ListEntry) bool { return x.Path == y.Path && x.Index == y.Index }) {
		t.Error("same seed, different lists")
	}
	// Train/val/test split.
	if code, _, stderr := runCmd("im2rec", "list", "--train-ratio", "0.5", "--test-ratio", "0.25", prefix+"s", root); code != 0 {
		t.Fatal(stderr)
	}
	tr, va, te := read(prefix+"s_train.lst"), read(prefix+"s_val.lst"), read(prefix+"s_test.lst")
	if len(tr) != 2 || len(te) != 1 || len(va) != 1 {
		t.Errorf("split %d/%d/%d, want 2/1/1", len(tr), len(va), len(te))
	}
	// Not recursive: only ROOT's own images (none here).
	if code, _, stderr := runCmd("im2rec", "list", "--recursive=false", prefix+"n", root); code != 1 || !strings.Contains(stderr, "no image") {
		t.Errorf("non-recursive on a tree without top-level images: exit %d, %q", code, stderr)
	}
}

// Pack a folder made here and read it back with recordio and imagerec:
// ids, labels and pixels match.
func TestIm2recPack(t *testing.T) {
	root, paths, labels := makeTree(t)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "data")
	if code, _, stderr := runCmd("im2rec", "list", "--shuffle=false", prefix, root); code != 0 {
		t.Fatal(stderr)
	}
	decodeImage := func(data []byte, ch int) sample.Image {
		t.Helper()
		img, err := decode.Default().Decode(data, decode.Options{Channels: ch}) // as pack decodes
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	for _, c := range []struct {
		name  string
		flags []string
		check func(t *testing.T, i int, orig []byte, h imagerec.Header, img []byte)
	}{
		{"png lossless", []string{"--encoding", ".png", "--threads", "3"}, func(t *testing.T, i int, orig []byte, h imagerec.Header, img []byte) {
			if decode.Sniff(img) != decode.FormatPNG {
				t.Errorf("record %d is not PNG", i)
			}
			want := decodeImage(orig, 3)
			if got := decodeImage(img, 0); got.Channels != 3 || !bytes.Equal(got.Pix, want.Pix) {
				t.Errorf("record %d: pixels differ from the file's", i)
			}
		}},
		{"pass through", []string{"--pass-through"}, func(t *testing.T, i int, orig []byte, h imagerec.Header, img []byte) {
			if !bytes.Equal(img, orig) {
				t.Errorf("record %d: bytes differ from the file", i)
			}
		}},
		{"resize gray jpeg", []string{"--resize", "16", "--center-crop", "--color", "0", "--quality", "90", "--interp", "area"}, func(t *testing.T, i int, orig []byte, h imagerec.Header, img []byte) {
			got := decodeImage(img, 0)
			if decode.Sniff(img) != decode.FormatJPEG || got.Width != 16 || got.Height != 16 || got.Channels != 1 {
				t.Errorf("record %d: %v %v, want a 16x16 gray JPEG", i, decode.Sniff(img), got.Shape())
			}
		}},
		{"resize keeps aspect", []string{"--resize", "10"}, func(t *testing.T, i int, orig []byte, h imagerec.Header, img []byte) {
			src, got := decodeImage(orig, 3), decodeImage(img, 0)
			w, hh := augment.ShorterSide(src.Width, src.Height, 10)
			if got.Width != w || got.Height != hh || got.Channels != 3 {
				t.Errorf("record %d: %dx%d from %dx%d, want %dx%d", i, got.Width, got.Height, src.Width, src.Height, w, hh)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(append(append([]string{"im2rec", "pack"}, c.flags...), prefix, root)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "4 records") {
				t.Errorf("stdout %q", stdout)
			}
			recs, err := source.Collect(context.Background(), recordio.Open(prefix+".rec"))
			if err != nil {
				t.Fatal(err)
			}
			idx, err := recordio.ReadIndex(context.Background(), prefix+".idx")
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(paths) || idx.Len() != len(paths) {
				t.Fatalf("%d records, %d index entries, want %d", len(recs), idx.Len(), len(paths))
			}
			for i, r := range recs {
				h, img, err := imagerec.ParseRecord(r.Data)
				if err != nil {
					t.Fatal(err)
				}
				if h.ID != uint64(i) || h.Flag != 0 || h.Label != labels[i] {
					t.Errorf("record %d: id %d flag %d label %v, want id %d label %v", i, h.ID, h.Flag, h.Label, i, labels[i])
				}
				if e := idx.Entry(i); e.Key != int64(h.ID) || e.Offset != r.Offset {
					t.Errorf("index entry %d = %+v, record at %d", i, e, r.Offset)
				}
				orig, err := os.ReadFile(filepath.Join(root, paths[i]))
				if err != nil {
					t.Fatal(err)
				}
				c.check(t, i, orig, h, img)
			}
		})
	}
}

// Several labels per image are packed as a label array with --pack-label;
// the .lst's ids, not their order, become the record ids.
func TestIm2recPackLabels(t *testing.T) {
	root, paths, _ := makeTree(t)
	dir := t.TempDir()
	var entries []imagerec.ListEntry
	for i, p := range paths {
		entries = append(entries, imagerec.ListEntry{Index: uint64(100 - i), Labels: []float32{float32(i), 0.5, -2}, Path: p})
	}
	var buf bytes.Buffer
	if err := imagerec.WriteList(&buf, entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.lst"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd("im2rec", "pack", "--pack-label", dir, root); code != 0 { // PREFIX may be a folder
		t.Fatal(stderr)
	}
	// Read back through ImageRecordIter with the labels from the record headers.
	it, err := mxnet.ImageRecordIter(context.Background(), mxnet.Params{"path_imgrec": filepath.Join(dir, "m.rec"),
		"data_shape": "(3, 16, 16)", "label_width": 3, "batch_size": 4, "round_batch": batch.Keep})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for b, err := range it.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Label[0].Shape[0] {
			if got := b.Label[0].F32[3*i : 3*i+3]; !slices.Equal(got, entries[n].Labels) {
				t.Errorf("image %d: labels %v, want %v", n, got, entries[n].Labels)
			}
			n++
		}
	}
	if n != len(paths) {
		t.Errorf("%d images, want %d", n, len(paths))
	}
	recs, err := source.Collect(context.Background(), recordio.Open(filepath.Join(dir, "m.rec")))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if h, _, _ := imagerec.ParseRecord(r.Data); h.ID != uint64(100-i) || h.Flag != 3 {
			t.Errorf("record %d: id %d flag %d", i, h.ID, h.Flag)
		}
	}
}

func TestIm2recBadImage(t *testing.T) {
	root, paths, _ := makeTree(t)
	if err := os.WriteFile(filepath.Join(root, paths[1]), []byte("\xff\xd8broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "d")
	runCmd("im2rec", "list", "--shuffle=false", prefix, root)
	code, _, stderr := runCmd("im2rec", "pack", prefix, root)
	if code != 1 || !strings.Contains(stderr, paths[1]) || !strings.Contains(stderr, "bad image") {
		t.Errorf("broken image: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runCmd("im2rec", "pack", "--skip-bad", prefix, root)
	if code != 0 || !strings.Contains(stdout, "3 records") || !strings.Contains(stdout, "1 images skipped") || !strings.Contains(stderr, "skipping") {
		t.Errorf("--skip-bad: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestIm2recUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"im2rec"}, "missing subcommand"},
		{[]string{"im2rec", "zip"}, `unknown subcommand "zip"`},
		{[]string{"im2rec", "list", "x"}, "takes PREFIX and ROOT"},
		{[]string{"im2rec", "list", "--chunks", "0", "p", "r"}, "--chunks"},
		{[]string{"im2rec", "pack", "--encoding", ".gif", "p", "r"}, "--encoding"},
		{[]string{"im2rec", "pack", "--color", "2", "p", "r"}, "--color"},
		{[]string{"im2rec", "pack", "--interp", "magic", "p", "r"}, "--interp"},
	} {
		code, _, stderr := runCmd(c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) || !regexp.MustCompile(`usage:\s+tensorfeed im2rec (list|pack|<subcommand>)`).MatchString(stderr) {
			t.Errorf("%q: exit %d, stderr %q", c.args, code, stderr)
		}
	}
}
