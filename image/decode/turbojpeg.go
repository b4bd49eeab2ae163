//go:build turbojpeg && cgo

package decode

/*
#cgo LDFLAGS: -lturbojpeg
#include <stdlib.h>
#include <turbojpeg.h>
*/
import "C"

import (
	"errors"
	"image"
	"sync"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/sample"
)

// Default returns the fastest decoder this binary holds. Built
// with the tag turbojpeg, that decodes JPEG through libjpeg-turbo (Name
// "turbojpeg") and PNG, CMYK and YCCK JPEG through the Go decoder.
func Default() Decoder { return turboDecoder{} }

type turboDecoder struct{}

func (turboDecoder) Name() string { return "turbojpeg" }

// maxIdleHandles bounds the decompressor handles kept between calls.
const maxIdleHandles = 64

// handles holds idle TurboJPEG decompressors. A handle serves one call at a
// time; a channel rather than a sync.Pool, so that no handle is dropped
// without tjDestroy.
var handles = make(chan C.tjhandle, maxIdleHandles)

func getHandle() (C.tjhandle, error) {
	select {
	case h := <-handles:
		return h, nil
	default:
	}
	h := C.tjInitDecompress()
	if h == nil {
		return nil, errors.New("decode: tjInitDecompress failed")
	}
	return h, nil
}

func putHandle(h C.tjhandle) {
	select {
	case handles <- h:
	default:
		C.tjDestroy(h)
	}
}

// scratch holds full-size pixel buffers that a crop is copied out of.
var scratch sync.Pool

var scalingFactors = func() []C.tjscalingfactor {
	var n C.int
	p := C.tjGetScalingFactors(&n)
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice(p, int(n))
}()

// scaledSize returns the smallest size libjpeg-turbo can decode w x h to
// while keeping the shorter side at least minShorter (no scaling when
// minShorter <= 0). Only the factors 1/2, 1/4 and 1/8 are used: they have
// SIMD inverse DCTs, while the other eighths are slower than a full-size
// decode.
func scaledSize(w, h, minShorter int) (int, int) {
	if minShorter <= 0 {
		return w, h
	}
	short := min(w, h)
	bw, bh := w, h
	for _, sf := range scalingFactors {
		num, den := int(sf.num), int(sf.denom)
		if num != 1 || den == 1 {
			continue
		}
		if s := (short*num + den - 1) / den; s >= minShorter {
			sw, sh := (w*num+den-1)/den, (h*num+den-1)/den
			if sw*sh < bw*bh {
				bw, bh = sw, sh
			}
		}
	}
	return bw, bh
}

func (turboDecoder) Decode(data []byte, opts Options) (sample.Image, error) {
	checkChannels(opts.Channels)
	if opts.Crop == nil {
		img, _, _, err := turboDecodeFull(data, opts, func(n int) *[]uint8 { b := make([]uint8, n); return &b })
		return img, err
	}
	full, r, release, err := turboDecoder{}.DecodeRegion(data, opts)
	if err != nil || (r.Dx() == full.Width && r.Dy() == full.Height) {
		return full, err // no copy: release is nil or a no-op here
	}
	out := cropCopy(full, r)
	release()
	return out, nil
}

// DecodeRegion decodes into a pooled buffer and returns the whole image with
// the crop rectangle; release hands the buffer back. It saves copying the
// crop out of the image.
func (turboDecoder) DecodeRegion(data []byte, opts Options) (sample.Image, image.Rectangle, func(), error) {
	checkChannels(opts.Channels)
	img, r, pooled, err := turboDecodeFull(data, opts, getScratch)
	if err != nil {
		return img, r, nil, err
	}
	if pooled == nil {
		return img, r, func() {}, nil
	}
	return img, r, func() { scratch.Put(pooled) }, nil
}

func getScratch(n int) *[]uint8 {
	p, _ := scratch.Get().(*[]uint8)
	if p == nil || cap(*p) < n {
		b := make([]uint8, n)
		return &b
	}
	*p = (*p)[:n]
	return p
}

// turboDecodeFull decodes a JPEG whole, into a buffer from get, and returns
// it with the crop rectangle and the buffer (nil when the image came from
// the Go decoder, already cropped). Other formats go to the Go decoder.
func turboDecodeFull(data []byte, opts Options, get func(n int) *[]uint8) (sample.Image, image.Rectangle, *[]uint8, error) {
	if Sniff(data) != FormatJPEG {
		img, err := decodeGo(data, opts)
		return img, image.Rect(0, 0, img.Width, img.Height), nil, err
	}
	info, err := jpegHeader(data)
	if err != nil {
		return sample.Image{}, image.Rectangle{}, nil, imageErr(FormatJPEG, err)
	}
	h, err := getHandle()
	if err != nil {
		return sample.Image{}, image.Rectangle{}, nil, err
	}
	img, r, buf, err := turboDecode(h, data, &info, opts, get)
	if err != nil {
		// After a failure libjpeg-turbo 2.1 can leave the decompressor in
		// a state where the next header reads as 0x0 without an error:
		// never reuse it.
		C.tjDestroy(h)
		return img, r, nil, err
	}
	putHandle(h)
	return img, r, buf, nil
}

// turboDecode decodes a JPEG with handle h.
func turboDecode(h C.tjhandle, data []byte, info *jpegInfo, opts Options, get func(n int) *[]uint8) (sample.Image, image.Rectangle, *[]uint8, error) {
	var none image.Rectangle
	src := (*C.uchar)(unsafe.Pointer(&data[0]))
	size := C.ulong(len(data))
	var w, ht, subsamp, cs C.int
	if C.tjDecompressHeader3(h, src, size, &w, &ht, &subsamp, &cs) != 0 {
		return sample.Image{}, none, nil, imageErr(FormatJPEG, tjError(h))
	}
	if w < 1 || ht < 1 {
		return sample.Image{}, none, nil, imageErr(FormatJPEG, errors.New("no frame header (truncated data?)"))
	}
	if err := checkSize(FormatJPEG, &opts, int(w), int(ht)); err != nil {
		return sample.Image{}, none, nil, err
	}
	if cs == C.TJCS_CMYK || cs == C.TJCS_YCCK {
		// libjpeg-turbo decodes these only to CMYK.
		img, err := decodeGo(data, opts)
		return img, image.Rect(0, 0, img.Width, img.Height), nil, err
	}
	ch := opts.Channels
	if ch == 0 {
		ch = 3
		if cs == C.TJCS_GRAY {
			ch = 1
		}
	}
	pf := C.int(C.TJPF_RGB)
	switch ch {
	case 1:
		pf = C.TJPF_GRAY
	case 4:
		pf = C.TJPF_RGBA
	}
	sw, sh := scaledSize(int(w), int(ht), opts.MinShorter)
	r, err := cropRect(&opts, sw, sh)
	if err != nil {
		return sample.Image{}, none, nil, err
	}
	var crop int64
	if opts.Crop != nil {
		crop = int64(r.Dx()) * int64(r.Dy()) // Decode copies the crop out
	}
	if err := checkMemory(FormatJPEG, &opts, int(w), int(ht), info.kind(),
		turboJPEGBytes(info, sw, sh, ch, crop)); err != nil {
		return sample.Image{}, none, nil, err
	}
	buf := get(sw * sh * ch)
	rc := C.tjDecompress2(h, src, size, (*C.uchar)(unsafe.Pointer(&(*buf)[0])), C.int(sw), 0, C.int(sh), pf, 0)
	if rc != 0 {
		// Warnings (a truncated or corrupt stream that libjpeg-turbo
		// patched up) are errors too, as they are for image/jpeg.
		return sample.Image{}, none, nil, imageErr(FormatJPEG, tjError(h))
	}
	return sample.Image{Height: sh, Width: sw, Channels: ch, Pix: *buf}, r, buf, nil
}

func tjError(h C.tjhandle) error {
	return errors.New(C.GoString(C.tjGetErrorStr2(h)))
}

// turboJPEGBytes is what libjpeg-turbo needs to decode the image to a
// sw x sh, ch-channel buffer, plus a copy of crop pixels: the buffer, the
// whole-image coefficient arrays of a progressive image (64 int16 per
// block) and its row buffers (a few MCU rows of every component).
func turboJPEGBytes(j *jpegInfo, sw, sh, ch int, crop int64) int64 {
	need := int64(sw)*int64(sh)*int64(ch) + crop*int64(ch) + decodeOverhead
	need += 64 * int64(j.width) * int64(j.comps)
	if j.progressive {
		for c := range j.comps {
			need += 64 * 2 * j.blocks(c)
		}
	}
	return need
}

// cropCopy returns a copy of rectangle r of img, which holds it.
func cropCopy(img sample.Image, r image.Rectangle) sample.Image {
	out := sample.NewImage(r.Dy(), r.Dx(), img.Channels)
	rowLen := r.Dx() * img.Channels
	for y := range r.Dy() {
		o := ((r.Min.Y+y)*img.Width + r.Min.X) * img.Channels
		copy(out.Pix[y*rowLen:(y+1)*rowLen], img.Pix[o:o+rowLen])
	}
	return out
}
