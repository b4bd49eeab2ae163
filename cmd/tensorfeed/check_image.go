package main

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
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/progress"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// maxImageFileBytes bounds the size of one bare image file. check holds the
// file in memory while it decodes it, so the file is bounded as the decode
// is (decode.DefaultMaxBytes): a JPEG or PNG that big would not decode
// within that bound anyway.
const maxImageFileBytes = decode.DefaultMaxBytes

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

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// imageFileError says why a bare JPEG or PNG file does not decode: it is
// the cause of a *tensorfeed.Error whose Offset is where the damage lies as
// far as check can tell: the end of the data for a truncated file, else 0,
// the image as a whole.
type imageFileError struct {
	Why    string // whyNotImage, whyTruncated, whyTooLarge or whyCorrupt
	Detail string // what check itself found, or ""
	// Err is the decoder's error (wrapping decode.ErrImage and so
	// tensorfeed.ErrBadData), or for a file too large to read, one
	// wrapping tensorfeed.ErrBadData.
	Err error
}

func (e *imageFileError) Error() string {
	why := e.Why
	if e.Detail != "" {
		why += " (" + e.Detail + ")"
	}
	return fmt.Sprintf("%s: %v", why, e.Err)
}

func (e *imageFileError) Unwrap() error { return e.Err }

// imageResult is what checking one image file found: its size, or why it
// is bad. It holds no pixels, so many can wait in a pipeline at little
// cost.
type imageResult struct {
	path   string
	format decode.Format
	w, h   int
	ch     int
	err    error
}

// ok is the line an image that decodes gets on stdout.
func (r *imageResult) ok() string {
	return fmt.Sprintf("%s: OK: %s %dx%d pixels, %d channels", r.path, strings.ToUpper(r.format.String()), r.w, r.h, r.ch)
}

// checkImageFile checks one bare JPEG or PNG file (a local path or a URL):
// it decodes it whole with the decoder and the bounds that image records
// are decoded with (decode.Default, decode.DefaultMaxPixels and
// decode.DefaultMaxBytes), and prints its size or why it is bad.
func checkImageFile(ctx context.Context, path string, rep *reporter, stdout io.Writer) error {
	r := checkOneImage(ctx, path, rep.storage)
	if r.err != nil {
		return r.err
	}
	fmt.Fprintln(stdout, r.ok())
	return nil
}

// checkImageDir checks every image under the local folder root, found
// as "im2rec list" finds them (listImages: the files named .jpeg, .jpg or
// .png, sub-folders included, links followed, in im2rec's order). Each file
// gets a line, "PATH: OK: ..." on stdout or the reason it is bad on stderr;
// a summary line follows. The images are decoded on GOMAXPROCS goroutines,
// each holding one file and its decode at a time.
func checkImageDir(ctx context.Context, root string, rep *reporter, stdout io.Writer) error {
	// imageExts (convert --from images) are "im2rec list"'s default
	// extensions: check sees what a pack would read.
	entries, _, err := listImages(root, true, imageExts)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("no image (.jpeg, .jpg or .png file) under the folder")
	}
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = filepath.Join(root, filepath.FromSlash(e.Path))
	}
	check := func(p string) (imageResult, error) { return checkOneImage(ctx, p, rep.storage), nil }
	bar := progress.New(rep.stderr, filepath.Base(root), int64(len(paths)), "images",
		progress.Terminal(rep.live), progress.Quiet())
	defer bar.Finish()
	var imgs checkstat.Images
	bad := 0
	for r, err := range stage.ParallelMap(source.Slice(paths), runtime.GOMAXPROCS(0), check).All(ctx) {
		if err != nil {
			return err
		}
		bar.Add(1)
		if r.err != nil {
			bad++
			rep.report(r.err)
			continue
		}
		imgs.Add(r.w, r.h, r.ch)
		fmt.Fprintln(stdout, r.ok())
	}
	bar.Finish() // before the summary
	fmt.Fprintf(stdout, "%s: %d images, %d bad; %s\n", root, len(paths), bad, &imgs)
	return nil
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
// maxImageFileBytes before reading it when its size is known.
func readImageFile(ctx context.Context, path string, opts []storage.Option) ([]byte, error) {
	f, err := openInput(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(size string) error {
		return &tensorfeed.Error{Path: path, Offset: 0, Record: -1, Err: &imageFileError{Why: whyTooLarge,
			Err: fmt.Errorf("%w: a file of %s, larger than the bound of %d MiB on one image file", decode.ErrImage, size, maxImageFileBytes>>20)}}
	}
	if n := f.Size(); n > maxImageFileBytes {
		return nil, tooLarge(fmt.Sprintf("%d bytes", n))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxImageFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxImageFileBytes {
		return nil, tooLarge(fmt.Sprintf("more than %d bytes", maxImageFileBytes))
	}
	return data, nil
}

// imageError says why data, which the decoder refused with err, is bad:
// not a JPEG or PNG, truncated, over the decoder's bounds, or corrupt. The
// decoder's own error does not tell these apart, so the file is looked at
// again: the magic bytes, the header as image/jpeg and image/png read it,
// and the end-of-image marker (JPEG) or IEND chunk (PNG).
func imageError(path string, data []byte, err error) error {
	e := &imageFileError{Why: whyCorrupt, Err: err}
	pe := &tensorfeed.Error{Path: path, Offset: 0, Record: -1, Err: e}
	f := decode.Sniff(data)
	if f == decode.FormatUnknown {
		e.Why = whyNotImage
		switch {
		case len(data) == 0:
			e.Detail = "the file is empty"
		case len(data) >= 4 && bytes.HasPrefix([]byte(pngSignature), data):
			e.Why, pe.Offset = whyTruncated, int64(len(data))
			e.Detail = "the file ends inside the PNG signature"
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
		e.Why, pe.Offset = whyTruncated, int64(len(data))
		e.Detail = "the file ends inside the header"
	case cerr == nil && int64(cfg.Width)*int64(cfg.Height) > decode.DefaultMaxPixels,
		strings.Contains(err.Error(), "more than the bound"):
		// The pixels, or the memory the decode would take as the
		// decoder computes it from the header, are over the bound; the
		// decoder's error gives the size and the bound.
		e.Why = whyTooLarge
	case f == decode.FormatJPEG && !jpegHasEnd(data):
		e.Why, pe.Offset = whyTruncated, int64(len(data))
		e.Detail = "no end-of-image marker after the last scan"
	case f == decode.FormatPNG && !pngHasEnd(data):
		e.Why, pe.Offset = whyTruncated, int64(len(data))
		e.Detail = "the chunks end before an IEND chunk"
	case strings.Contains(err.Error(), "unsupported"):
		e.Why = whyUnsupported
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

// isLocalDir reports whether path is a local folder.
func isLocalDir(path string) bool {
	if storage.IsRemote(path) {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
