package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
)

var im2recListCommand = command{
	name:    "im2rec list",
	args:    "[flags] PREFIX ROOT",
	summary: "write PREFIX.lst (or PREFIX_train.lst, PREFIX_val.lst) listing the images under ROOT",
	doc: `List finds the images under the folder ROOT and writes them to .lst files, as MXNet's "im2rec.py --list" does: one line per image with its index, its label and its path relative to ROOT. Each sub-folder holding images is a class, labelled 0, 1, ... in name order; the classes are printed with their labels.

PREFIX is a path prefix, not a folder: the list goes to PREFIX.lst, or, with --train-ratio below 1, to PREFIX_train.lst and PREFIX_val.lst (and PREFIX_test.lst with --test-ratio). With --chunks N each chunk gets its own files, PREFIX_0.lst and so on. "im2rec pack" with the same PREFIX and ROOT packs them.

Example:
  tensorfeed im2rec list --train-ratio 0.9 photos photos/   # photos_train.lst, photos_val.lst`,
	setup: func(fs *flag.FlagSet) runFunc {
		exts := fs.String("exts", ".jpeg,.jpg,.png", "comma-separated image file `extensions`")
		var o listOptions
		fs.BoolVar(&o.recursive, "recursive", true, "label the images of each sub-folder (false: only ROOT's own images, all label 0)")
		fs.BoolVar(&o.shuffle, "shuffle", true, "shuffle the list")
		fs.Uint64Var(&o.seed, "seed", 0, "`seed` of the shuffle")
		fs.Float64Var(&o.trainRatio, "train-ratio", 1, "`fraction` of each chunk for training; below 1 the rest is validation (and test)")
		fs.Float64Var(&o.testRatio, "test-ratio", 0, "`fraction` of each chunk for testing")
		fs.IntVar(&o.chunks, "chunks", 1, "split the list into `N` chunks, each with its own files")
		return func(ctx context.Context, pos []string, e *env) error {
			if len(pos) != 2 {
				return usagef("im2rec list takes PREFIX and ROOT, got %d arguments", len(pos))
			}
			if o.chunks < 1 || o.trainRatio < 0 || o.testRatio < 0 || o.trainRatio+o.testRatio > 1 {
				return usagef("need --chunks >= 1 and ratios >= 0 adding up to at most 1")
			}
			o.exts = map[string]bool{}
			for _, e := range strings.Split(*exts, ",") {
				if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
					if !strings.HasPrefix(e, ".") {
						e = "." + e
					}
					o.exts[e] = true
				}
			}
			return makeLists(ctx, pos[0], pos[1], o, e.stdout)
		}
	},
}

// listOptions are the flags of "im2rec list".
type listOptions struct {
	exts                  map[string]bool
	recursive, shuffle    bool
	seed                  uint64
	trainRatio, testRatio float64
	chunks                int
}

// makeLists writes the .lst file(s) for the images under root, as
// im2rec.py --list does, and prints each class folder with its label.
func makeLists(ctx context.Context, prefix, root string, o listOptions, stdout io.Writer) error {
	entries, classes, err := listImages(ctx, root, o.recursive, o.exts)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("no image with extension %v under %s", slices.Sorted(maps.Keys(o.exts)), root)
	}
	w := bufio.NewWriter(stdout)
	for i, c := range classes {
		fmt.Fprintf(w, "%s\t%d\n", c, i)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if o.shuffle {
		r := source.NewRand(o.seed, 0, -1)
		r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	}
	n := len(entries)
	size := (n + o.chunks - 1) / o.chunks
	for c := range o.chunks {
		chunk := entries[min(c*size, n):min((c+1)*size, n)]
		name := prefix
		if o.chunks > 1 {
			name += fmt.Sprintf("_%d", c)
		}
		// As im2rec.py splits a chunk: test, then train, then validation.
		test := int(float64(size) * o.testRatio)
		train := test + int(float64(size)*o.trainRatio)
		files := map[string][2]int{".lst": {0, len(chunk)}}
		if o.trainRatio < 1 {
			files = map[string][2]int{"_train.lst": {test, train}}
			if o.testRatio > 0 {
				files["_test.lst"] = [2]int{0, test}
			}
			if o.trainRatio+o.testRatio < 1 {
				files["_val.lst"] = [2]int{train, len(chunk)}
			}
		}
		for _, suffix := range slices.Sorted(maps.Keys(files)) {
			r := files[suffix]
			if err := writeListFile(name+suffix, chunk[min(r[0], len(chunk)):min(r[1], len(chunk))]); err != nil {
				return err
			}
		}
	}
	return nil
}

// listImages lists the images under root (files with one of exts) in
// im2rec.py's order, as the registry's image format lists a folder: a
// folder's files sorted by name, then its sub-folders in name order. With
// recursive, every folder holding an image gets the next label, in that
// order; else only root's own images are listed, with label 0. The
// entries' indices follow the listing order.
func listImages(ctx context.Context, root string, recursive bool, exts map[string]bool) ([]imagerec.ListEntry, []string, error) {
	var entries []imagerec.ListEntry
	var classes []string
	labels := map[string]int{} // folder -> label
	for rec, err := range openAs(ctx, "image", root, nil) {
		if err != nil {
			return nil, nil, err
		}
		dir, _ := path.Split(rec.Key)
		if !exts[strings.ToLower(path.Ext(rec.Key))] || !recursive && dir != "" {
			continue
		}
		label := 0
		if recursive {
			dir = path.Clean(dir)
			l, ok := labels[dir]
			if !ok {
				l = len(classes)
				labels[dir] = l
				classes = append(classes, dir)
			}
			label = l
		}
		entries = append(entries, imagerec.ListEntry{Index: uint64(len(entries)), Labels: []float32{float32(label)}, Path: rec.Key})
	}
	return entries, classes, nil
}

func writeListFile(path string, entries []imagerec.ListEntry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := imagerec.WriteList(f, entries); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// packOptions are the flags of "im2rec pack".
type packOptions struct {
	resize      int
	centerCrop  bool
	quality     int
	encoding    string
	color       int
	interp      augment.Interp
	passThrough bool
	packLabel   bool
	threads     int
	skipBad     bool
}

var im2recPackCommand = command{
	name:    "im2rec pack",
	args:    "[flags] PREFIX ROOT",
	summary: "pack the images of every PREFIX*.lst into a .rec and an .idx file each",
	doc: `Pack reads the images listed in every .lst file whose path starts with PREFIX (PREFIX.lst, PREFIX_train.lst, PREFIX_val.lst, ...), their paths relative to the folder ROOT, and writes each list's images as RecordIO image records beside it: PREFIX_train.lst gives PREFIX_train.rec and PREFIX_train.idx, the files MXNet's ImageRecordIter and tensorfeed's imagerec read. When PREFIX is a folder holding .lst files (or ends with a slash), every .lst in it is packed.

Images are decoded, optionally cropped and resized, and encoded again (JPEG by default); --pass-through stores the files' bytes unchanged. A pack that fails leaves no partial file and any earlier .rec as it was. A progress bar is drawn on stderr when stdout and stderr are terminals.

Example:
  tensorfeed im2rec pack --resize 256 photos photos/   # photos_train.rec/.idx, photos_val.rec/.idx`,
	setup: func(fs *flag.FlagSet) runFunc {
		var o packOptions
		fs.IntVar(&o.resize, "resize", 0, "resize the shorter side to `N` pixels (0: keep the size)")
		fs.BoolVar(&o.centerCrop, "center-crop", false, "crop the centred square first")
		fs.IntVar(&o.quality, "quality", 95, "JPEG `quality` 1-100, or PNG compression: 1-3 fast, 7-9 best")
		fs.StringVar(&o.encoding, "encoding", ".jpg", "image `encoding` of the records: .jpg or .png")
		fs.IntVar(&o.color, "color", 1, "colour `mode`: 1 colour, 0 gray, -1 as stored (keeps alpha with .png)")
		interp := fs.String("interp", "bilinear", "resize `interpolation`: nearest, bilinear, bicubic, area, lanczos or auto")
		fs.BoolVar(&o.passThrough, "pass-through", false, "store the files' bytes unchanged (no decoding, resizing or encoding)")
		fs.BoolVar(&o.packLabel, "pack-label", false, "store every label of the .lst as a label array (else only the first)")
		fs.IntVar(&o.threads, "threads", runtime.GOMAXPROCS(0), "`N` goroutines decoding and encoding images")
		fs.BoolVar(&o.skipBad, "skip-bad", false, "skip unreadable images (each is reported) instead of stopping")
		return func(ctx context.Context, pos []string, e *env) error {
			if len(pos) != 2 {
				return usagef("im2rec pack takes PREFIX and ROOT, got %d arguments", len(pos))
			}
			var err error
			o.interp, err = oneOf("--interp", *interp, []string{"nearest", "bilinear", "bicubic", "area", "lanczos", "auto"},
				augment.Nearest, augment.Bilinear, augment.Bicubic, augment.Area, augment.Lanczos, augment.AutoInterp)
			if err != nil {
				return err
			}
			switch {
			case o.encoding != ".jpg" && o.encoding != ".png":
				return usagef("--encoding must be .jpg or .png, not %q", o.encoding)
			case o.color < -1 || o.color > 1:
				return usagef("--color must be 1, 0 or -1")
			case o.quality < 1 || (o.encoding == ".jpg" && o.quality > 100):
				return usagef("--quality %d out of range", o.quality)
			case o.resize < 0 || o.threads < 1:
				return usagef("need --resize >= 0 and --threads >= 1")
			}
			lists, err := findLists(pos[0])
			if err != nil {
				return err
			}
			for _, lst := range lists {
				if err := packList(ctx, lst, pos[1], o, e); err != nil {
					return err
				}
			}
			return nil
		}
	},
}

// findLists returns the .lst files that PREFIX names, as im2rec.py finds
// them: the .lst files whose path starts with PREFIX ("photos" finds
// photos.lst, photos_train.lst and photos_val.lst beside the folder
// photos). When there are none and PREFIX is a folder, or when PREFIX ends
// with a slash, it is every .lst in that folder.
func findLists(prefix string) ([]string, error) {
	match := func(dir, base string) ([]string, error) {
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, de := range des {
			if n := de.Name(); !de.IsDir() && strings.HasPrefix(n, base) && strings.HasSuffix(n, ".lst") {
				out = append(out, filepath.Join(dir, n))
			}
		}
		return out, nil
	}
	// "photos" looks in the current folder, "data/" in data for every .lst.
	dir, base := filepath.Split(prefix)
	out, err := match(cmp.Or(dir, "."), base)
	if st, serr := os.Stat(prefix); len(out) == 0 && serr == nil && st.IsDir() {
		out, err = match(prefix, "")
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no .lst file starts with %s (make one with \"tensorfeed im2rec list %s ROOT\")", prefix, prefix)
	}
	return out, nil
}

// packed is one encoded record, or the error that stopped it.
type packed struct {
	entry imagerec.ListEntry
	rec   format.Record
	err   error
}

// packList writes LST.rec and LST.idx next to the .lst file lst. The whole
// .lst is checked before anything is written, and both files are written
// under temporary names in their folder and renamed only once the pack has
// succeeded: a failed pack leaves the files of an earlier pack as they were
// and no partial file behind.
func packList(ctx context.Context, lst, root string, o packOptions, e *env) error {
	stdout, stderr := e.stdout, e.stderr
	entries, err := readList(ctx, lst, e.storage)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(lst, ".lst")
	rec, _ := format.Default().Lookup("recordio")
	out, err := newShardSet(filepath.Dir(base), rec, func(int) string { return filepath.Base(base) + ".rec" }, 0, 0)
	if err != nil {
		return err
	}
	defer out.abort()
	encode := func(e imagerec.ListEntry) (packed, error) {
		rec, err := packEntry(e, root, o)
		if err != nil && !o.skipBad {
			return packed{}, err
		}
		return packed{entry: e, rec: rec, err: err}, nil
	}
	n, skipped := 0, 0
	bar := progress.New(stderr, filepath.Base(lst), int64(len(entries)), "images", progress.Terminal(e.progress), progress.Quiet())
	defer bar.Finish()
	for p, err := range stage.ParallelMap(source.Slice(entries), o.threads, encode).All(ctx) {
		if err != nil {
			return fmt.Errorf("%s: %w", lst, err)
		}
		bar.Add(1)
		if p.err != nil {
			fmt.Fprintf(stderr, "im2rec: skipping %v\n", p.err)
			skipped++
			continue
		}
		where := func() string { return fmt.Sprintf("%s: image %s", lst, p.entry.Path) }
		if err := out.write(p.rec, where); err != nil {
			return err
		}
		n++
	}
	if err := out.commit(); err != nil {
		return err
	}
	bar.Finish() // before the summary
	fmt.Fprintf(stdout, "%s: %d records in %s.rec", lst, n, base)
	if skipped > 0 {
		fmt.Fprintf(stdout, ", %d images skipped", skipped)
	}
	fmt.Fprintln(stdout)
	return nil
}

// packEntry reads, transforms and encodes one image into the record that
// the recordio format writes as an image record: its index as the id, its
// first label, or with --pack-label all of them, in the header.
func packEntry(e imagerec.ListEntry, root string, o packOptions) (format.Record, error) {
	// scanList has checked that the path stays inside root, and that a
	// line holds at least one label.
	path := filepath.Join(root, filepath.FromSlash(e.Path))
	rec := format.Record{Index: int64(e.Index), Labels: e.Labels}
	if !o.packLabel {
		rec.Labels = e.Labels[:1]
	}
	data, err := os.ReadFile(path)
	if err != nil || o.passThrough {
		rec.Data = data
		return rec, err
	}
	ch := map[int]int{1: 3, 0: 1, -1: 0}[o.color]
	// When resizing, libjpeg-turbo may decode big photos at 1/2, 1/4 or 1/8
	// scale first, which is much faster and still leaves the shorter side
	// at least --resize pixels (a centre crop keeps the shorter side).
	img, err := decode.Default().Decode(data, decode.Options{Channels: ch, MinShorter: o.resize})
	if err != nil {
		return rec, fmt.Errorf("%s: %w", path, err)
	}
	if o.centerCrop && img.Width != img.Height {
		s := min(img.Width, img.Height)
		x, y := (img.Width-s)/2, (img.Height-s)/2
		img = augment.CropImage(img, image.Rect(x, y, x+s, y+s))
	}
	if o.resize > 0 {
		w, h := augment.ShorterSide(img.Width, img.Height, o.resize)
		img = augment.ResizeImage(img, w, h, o.interp)
	}
	if rec.Data, err = encodeImage(img, o.encoding, o.quality); err != nil {
		return rec, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// encodeImage encodes img as JPEG (alpha dropped) or PNG.
func encodeImage(img sample.Image, encoding string, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if encoding == ".jpg" {
		err := jpeg.Encode(&buf, toGoImage(img, true), &jpeg.Options{Quality: quality})
		return buf.Bytes(), err
	}
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	switch {
	case quality <= 3:
		enc.CompressionLevel = png.BestSpeed
	case quality >= 7:
		enc.CompressionLevel = png.BestCompression
	}
	err := enc.Encode(&buf, toGoImage(img, false))
	return buf.Bytes(), err
}

// toGoImage wraps or converts img for the image encoders; opaque drops
// an alpha channel (JPEG has none), keeping the colour values as they are
// rather than premultiplying them.
func toGoImage(img sample.Image, opaque bool) image.Image {
	r, c := image.Rect(0, 0, img.Width, img.Height), img.Channels
	switch {
	case c == 1:
		return &image.Gray{Pix: img.Pix, Stride: img.Width, Rect: r}
	case c == 4 && !opaque:
		return &image.NRGBA{Pix: img.Pix, Stride: 4 * img.Width, Rect: r}
	}
	m := image.NewRGBA(r) // from 3 channels, or 4 with the alpha dropped
	for i := range img.Height * img.Width {
		copy(m.Pix[4*i:4*i+3], img.Pix[c*i:c*i+3])
		m.Pix[4*i+3] = 255
	}
	return m
}
