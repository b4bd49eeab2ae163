package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// imageFormat is the image format reading through storage with sopts: a
// bare JPEG or PNG file is one Record whose Data is the file (at most
// decode.DefaultMaxBytes), found by its magic. A local folder is the
// files under it, in "im2rec list"'s order (listFiles): one Record per
// regular file, Key its slash-separated path under the folder, Offset
// -1 and Data nil (the files are named, not read). Its Check decodes each
// image whole with the bounds image records are decoded with, and of a
// folder every .jpeg, .jpg and .png file under it.
func imageFormat(sopts []storage.Option) Format {
	return Format{
		Detect:  isImage,
		Storage: func(so ...storage.Option) Format { return imageFormat(so) },
		Open: func(path string, _ *source.SkipPolicy) source.Reader[Record] {
			return funcReader(func(ctx context.Context, yield func(Record, error) bool) {
				if !isLocalDir(path) {
					data, err := readImageFile(ctx, path, sopts)
					if err == nil {
						yield(Record{Path: path, Data: data}, nil)
					} else {
						yield(Record{}, err)
					}
					return
				}
				files, err := listFiles(path)
				if err != nil {
					yield(Record{}, err)
					return
				}
				for i, rel := range files {
					if !yield(Record{Path: filepath.Join(path, filepath.FromSlash(rel)), Index: int64(i), Offset: -1, Key: rel}, nil) {
						return
					}
				}
			})
		},
		Check: func(ctx context.Context, paths []string, out io.Writer, opts ...Option) error {
			return check(ctx, paths, out, append([]Option{Storage(sopts...)}, opts...), checkImages)
		},
	}
}

// isImage reports whether head starts as a JPEG does (an SOI marker, FF D8,
// then the next marker's FF) or as a PNG does (the first 4 bytes of its
// signature, so that a file cut inside the signature is still checked, and
// found truncated, as an image).
func isImage(head []byte) bool {
	return len(head) >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff ||
		len(head) >= 4 && string(head[:4]) == "\x89PNG"
}

// isLocalDir reports whether path is a local folder.
func isLocalDir(path string) bool {
	if storage.IsRemote(path) {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// listFiles lists the regular files under root in im2rec.py's order: a
// folder's files sorted by name, then its sub-folders in name order,
// symbolic links followed (a link back up the tree is not walked twice).
// The paths are slash-separated and relative to root.
func listFiles(root string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	var walk func(dir string) error
	walk = func(dir string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return err
		}
		if seen[real] {
			return nil
		}
		seen[real] = true
		des, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		var subdirs []string
		for _, de := range des { // ReadDir sorts by name
			p := filepath.Join(dir, de.Name())
			st, err := os.Stat(p) // follows links, as im2rec's os.walk(followlinks=True)
			if err != nil {
				return err
			}
			if st.IsDir() {
				subdirs = append(subdirs, p)
			} else if st.Mode().IsRegular() {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				files = append(files, filepath.ToSlash(rel))
			}
		}
		for _, s := range subdirs {
			if err := walk(s); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return files, nil
}

// What is wrong with an image file, the first word of its report.
const (
	whyNotImage  = "not an image"
	whyTruncated = "truncated"
	whyTooLarge  = "over the bound"
	whyCorrupt   = "corrupt data"
	// whyUnsupported is a file the decoder cannot read although it may be
	// valid: a JPEG with arithmetic coding or 12-bit samples for
	// image/jpeg.
	whyUnsupported = "unsupported"
)

// imageFileError says why a bare JPEG or PNG file does not decode: it is
// the cause of a *tensorfeed.Error whose Offset is where the damage lies as
// far as the check can tell: the end of the data for a truncated file,
// else 0, the image as a whole.
type imageFileError struct {
	why    string // whyNotImage, whyTruncated, ...
	detail string // what the check itself found, or ""
	// err is the decoder's error (wrapping decode.ErrImage and so
	// tensorfeed.ErrBadData), or for a file too large to read, one
	// wrapping tensorfeed.ErrBadData.
	err error
}

func (e *imageFileError) Error() string {
	why := e.why
	if e.detail != "" {
		why += " (" + e.detail + ")"
	}
	return fmt.Sprintf("%s: %v", why, e.err)
}

func (e *imageFileError) Unwrap() error { return e.err }

// imageResult is what checking one image file found: its size, or why it
// is bad. It holds no pixels, so many can wait in a pipeline at little
// cost.
type imageResult struct {
	path     string
	format   decode.Format
	w, h, ch int
	err      error
}

// ok is the line an image that decodes gets.
func (r *imageResult) ok() string {
	return fmt.Sprintf("%s: OK: %s %dx%d pixels, %d channels", r.path, strings.ToUpper(r.format.String()), r.w, r.h, r.ch)
}

// imageExts are the files of a folder that are images.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true}

// checkImages checks the image file of c, or every image under the local
// folder of c: each file gets a line, "PATH: OK: ..." on stdout or its
// error (every one, under OnBad or not: an image does not hide the next),
// then a folder's summary line. The images of a folder are decoded on
// GOMAXPROCS goroutines, each holding one file and its decode at a time.
func checkImages(ctx context.Context, c *checker, stdout io.Writer) error {
	if !isLocalDir(c.path) {
		r := checkOneImage(ctx, c.path, c.sopts)
		if r.err != nil {
			return r.err
		}
		fmt.Fprintln(stdout, r.ok())
		return nil
	}
	files, err := listFiles(c.path)
	if err != nil {
		return err
	}
	var paths []string
	for _, f := range files {
		if imageExts[strings.ToLower(filepath.Ext(f))] {
			paths = append(paths, filepath.Join(c.path, filepath.FromSlash(f)))
		}
	}
	if len(paths) == 0 {
		return fmt.Errorf("no image (.jpeg, .jpg or .png file) under the folder")
	}
	one := func(p string) (imageResult, error) { return checkOneImage(ctx, p, c.sopts), nil }
	bar := checkstat.Bar(ctx, c.path, int64(len(paths)))
	defer bar.Finish()
	var imgs checkstat.Images
	var errs []error
	for r, err := range stage.ParallelMap(source.Slice(paths), runtime.GOMAXPROCS(0), one).All(ctx) {
		if err != nil {
			return err
		}
		bar.Add(1)
		if r.err != nil {
			if c.policy == nil || !c.report(r.err) {
				errs = append(errs, r.err)
			}
			continue
		}
		imgs.Add(r.w, r.h, r.ch)
		fmt.Fprintln(stdout, r.ok())
	}
	bar.Finish() // before the summary
	fmt.Fprintf(stdout, "%s: %d images, %d bad; %s\n", c.path, len(paths), len(paths)-imgs.N, &imgs)
	return errors.Join(errs...)
}

// checkOneImage reads and decodes the image file at path.
func checkOneImage(ctx context.Context, path string, opts []storage.Option) imageResult {
	r := imageResult{path: path}
	data, err := readImageFile(ctx, path, opts)
	if err != nil {
		r.err = err
		return r
	}
	r.format = decode.Sniff(data)
	img, err := decode.Default().Decode(data, decode.Options{})
	if err != nil {
		r.err = imageError(path, data, err)
		return r
	}
	r.w, r.h, r.ch = img.Width, img.Height, img.Channels
	return r
}

// readImageFile reads a whole image file, refusing one over
// decode.DefaultMaxBytes (a JPEG or PNG that big would not decode within
// that bound anyway) before reading it when its size is known.
func readImageFile(ctx context.Context, path string, opts []storage.Option) ([]byte, error) {
	const limit = decode.DefaultMaxBytes
	tooLarge := func(size string) error {
		return &tensorfeed.Error{Path: path, Offset: 0, Record: -1, Err: &imageFileError{why: whyTooLarge,
			err: fmt.Errorf("%w: a file of %s, larger than the bound of %d MiB on one image file", decode.ErrImage, size, limit>>20)}}
	}
	return readBounded(ctx, path, opts, limit, tooLarge)
}

// readBounded reads the whole file at path, or returns tooLarge's error
// for one over limit bytes: at once when its size is known.
func readBounded(ctx context.Context, path string, opts []storage.Option, limit int64, tooLarge func(size string) error) ([]byte, error) {
	f, err := checkstat.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n := f.Size(); n > limit {
		return nil, tooLarge(fmt.Sprintf("%d bytes", n))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(fmt.Sprintf("more than %d bytes", limit))
	}
	return data, nil
}

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// imageError says why data, which the decoder refused with err, is bad:
// not a JPEG or PNG, truncated, over the decoder's bounds, or corrupt. The
// decoder's own error does not tell these apart, so the file is looked at
// again: the magic bytes, the header as image/jpeg and image/png read it,
// and the end-of-image marker (JPEG) or IEND chunk (PNG).
func imageError(path string, data []byte, err error) error {
	e := &imageFileError{why: whyCorrupt, err: err}
	pe := &tensorfeed.Error{Path: path, Offset: 0, Record: -1, Err: e}
	truncated := func(detail string) {
		e.why, e.detail, pe.Offset = whyTruncated, detail, int64(len(data))
	}
	f := decode.Sniff(data)
	if f == decode.FormatUnknown {
		e.why = whyNotImage
		switch {
		case len(data) == 0:
			e.detail = "the file is empty"
		case len(data) >= 4 && bytes.HasPrefix([]byte(pngSignature), data):
			truncated("the file ends inside the PNG signature")
		}
		return pe
	}
	var cfg image.Config
	var cerr error
	if f == decode.FormatJPEG {
		cfg, cerr = jpeg.DecodeConfig(bytes.NewReader(data))
	} else {
		cfg, cerr = png.DecodeConfig(bytes.NewReader(data))
	}
	switch {
	case errors.Is(cerr, io.ErrUnexpectedEOF) || errors.Is(cerr, io.EOF):
		truncated("the file ends inside the header")
	case cerr == nil && int64(cfg.Width)*int64(cfg.Height) > decode.DefaultMaxPixels,
		strings.Contains(err.Error(), "more than the bound"):
		// The pixels, or the memory the decode would take as the
		// decoder computes it from the header, are over the bound; the
		// decoder's error gives the size and the bound.
		e.why = whyTooLarge
	case f == decode.FormatJPEG && !jpegHasEnd(data):
		truncated("no end-of-image marker after the last scan")
	case f == decode.FormatPNG && !pngHasEnd(data):
		truncated("the chunks end before an IEND chunk")
	case strings.Contains(err.Error(), "unsupported"):
		e.why = whyUnsupported
	}
	return pe
}

// jpegHasEnd reports whether an end-of-image marker (FF D9) follows the
// last start-of-scan marker (FF DA). Entropy-coded data never holds FF D9
// (an FF byte there is followed by 00 or a restart marker), so a file cut
// inside its last scan has none.
func jpegHasEnd(data []byte) bool {
	sos := bytes.LastIndex(data, []byte{0xff, 0xda})
	return sos >= 0 && bytes.Contains(data[sos:], []byte{0xff, 0xd9})
}

// pngHasEnd reports whether the chunks of a PNG, walked by their lengths,
// reach an IEND chunk inside data.
func pngHasEnd(data []byte) bool {
	for i := int64(8); i+8 <= int64(len(data)); {
		n := int64(binary.BigEndian.Uint32(data[i:]))
		if string(data[i+4:i+8]) == "IEND" {
			return i+12+n <= int64(len(data))
		}
		i += 12 + n
	}
	return false
}

// meanImageMagic starts an MXNet NDArray list file, as a mean image is
// saved.
const meanImageMagic = 0x112

// maxMeanImageBytes bounds the mean image files read: a mean image of 3 x
// 2048 x 2048 float32 values is 48 MiB.
const maxMeanImageBytes = 128 << 20

// meanImageFormat is the meanimg format reading through storage with
// sopts: an MXNet NDArray mean image file (imagerec's mean_img), found
// by its list magic, one Record whose Data is the file. Its Check parses
// it with imagerec.ParseMeanImage, which checks every count against the
// bytes present, and then checks that every value is finite: a NaN or an
// infinity in the mean would turn every pixel at its place into one.
func meanImageFormat(sopts []storage.Option) Format {
	read := func(ctx context.Context, path string) ([]byte, error) {
		return readBounded(ctx, path, sopts, maxMeanImageBytes, func(string) error {
			return checkError(path, maxMeanImageBytes, fmt.Sprintf("larger than the %d MiB a mean image file may be here", maxMeanImageBytes>>20))
		})
	}
	return Format{
		Detect:  func(head []byte) bool { return len(head) >= 8 && binary.LittleEndian.Uint64(head) == meanImageMagic },
		Storage: func(so ...storage.Option) Format { return meanImageFormat(so) },
		Open: func(path string, _ *source.SkipPolicy) source.Reader[Record] {
			return funcReader(func(ctx context.Context, yield func(Record, error) bool) {
				data, err := read(ctx, path)
				if err == nil {
					yield(Record{Path: path, Data: data}, nil)
				} else {
					yield(Record{}, err)
				}
			})
		},
		Check: func(ctx context.Context, paths []string, out io.Writer, opts ...Option) error {
			return check(ctx, paths, out, append([]Option{Storage(sopts...)}, opts...), func(ctx context.Context, c *checker, out io.Writer) error {
				data, err := read(ctx, c.path)
				if err != nil {
					return err
				}
				return checkMeanImage(c, data, out)
			})
		},
	}
}

// checkMeanImage checks the mean image file data of c.
func checkMeanImage(c *checker, data []byte, stdout io.Writer) error {
	shape, mean, err := imagerec.ParseMeanImage(data, c.path)
	if err != nil {
		return err
	}
	start := meanDataOffset(data, len(shape))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range mean {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			if !c.report(checkError(c.path, int64(start+4*i), fmt.Sprintf("value %d of the mean is %v", i, v))) {
				return nil
			}
			continue
		}
		lo, hi = min(lo, float64(v)), max(hi, float64(v))
	}
	if c.bad() > 0 {
		return nil
	}
	fmt.Fprintf(stdout, "%s: mean image: shape %v, %d float32 values in [%g, %g]\n", c.path, shape, len(mean), lo, hi)
	return nil
}

// meanDataOffset returns where the values of a parsed mean image file
// start: after the list header (24 bytes) and the array's header, whose
// layout depends on its version (see imagerec's meanimg.go).
func meanDataOffset(data []byte, ndim int) int {
	const list = 24
	switch binary.LittleEndian.Uint32(data[list:]) {
	case 0xF993fac9, 0xF993faca: // V2, V3: magic, storage type, ndim, int64 dims
		return list + 12 + 8*ndim + 12
	case 0xF993fac8: // V1: magic, ndim, int64 dims
		return list + 8 + 8*ndim + 12
	}
	return list + 4 + 4*ndim + 12 // the first format: ndim, uint32 dims
}

// checkError returns a bad-data error that a check itself found in path
// at byte offset off: a *tensorfeed.Error, as the readers' are, whose
// cause reads msg and wraps tensorfeed.ErrBadData.
func checkError(path string, off int64, msg string) error {
	return &tensorfeed.Error{Path: path, Offset: off, Record: -1, Err: cause.Prefixed("", tensorfeed.ErrBadData, errors.New(msg))}
}
