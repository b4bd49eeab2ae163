//go:build turbojpeg && cgo

package imagerec

/*
#cgo LDFLAGS: -lturbojpeg
#include <stdlib.h>
#include <turbojpeg.h>
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/sample"
)

// DefaultDecoder returns the fastest decoder this binary holds. Built
// with the tag turbojpeg, that decodes JPEG through libjpeg-turbo (Name
// "turbojpeg") and PNG, CMYK and YCCK JPEG through the Go decoder.
func DefaultDecoder() Decoder { return turboDecoder{} }

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
		return nil, errors.New("imagerec: tjInitDecompress failed")
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

func (turboDecoder) Decode(data []byte, opts DecodeOptions) (sample.Image, error) {
	checkChannels(opts.Channels)
	if Sniff(data) != FormatJPEG {
		return decodeGo(data, opts)
	}
	h, err := getHandle()
	if err != nil {
		return sample.Image{}, err
	}
	img, err := turboDecode(h, data, opts)
	if err != nil {
		// After a failure libjpeg-turbo 2.1 can leave the decompressor in
		// a state where the next header reads as 0x0 without an error:
		// never reuse it.
		C.tjDestroy(h)
		return img, err
	}
	putHandle(h)
	return img, nil
}

// turboDecode decodes a JPEG with handle h.
func turboDecode(h C.tjhandle, data []byte, opts DecodeOptions) (sample.Image, error) {
	src := (*C.uchar)(unsafe.Pointer(&data[0]))
	size := C.ulong(len(data))
	var w, ht, subsamp, cs C.int
	if C.tjDecompressHeader3(h, src, size, &w, &ht, &subsamp, &cs) != 0 {
		return sample.Image{}, imageErr(FormatJPEG, tjError(h))
	}
	if w < 1 || ht < 1 {
		return sample.Image{}, imageErr(FormatJPEG, errors.New("no frame header (truncated data?)"))
	}
	if err := checkSize(FormatJPEG, &opts, int(w), int(ht)); err != nil {
		return sample.Image{}, err
	}
	if cs == C.TJCS_CMYK || cs == C.TJCS_YCCK {
		return decodeGo(data, opts) // libjpeg-turbo decodes these only to CMYK
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
		return sample.Image{}, err
	}
	full := r.Dx() == sw && r.Dy() == sh
	n := sw * sh * ch
	var buf []uint8
	var pooled *[]uint8
	if full {
		buf = make([]uint8, n)
	} else {
		pooled, _ = scratch.Get().(*[]uint8)
		if pooled == nil || cap(*pooled) < n {
			b := make([]uint8, n)
			pooled = &b
		}
		buf = (*pooled)[:n]
	}
	rc := C.tjDecompress2(h, src, size, (*C.uchar)(unsafe.Pointer(&buf[0])), C.int(sw), 0, C.int(sh), pf, 0)
	if rc != 0 {
		// Warnings (a truncated or corrupt stream that libjpeg-turbo
		// patched up) are errors too, as they are for image/jpeg.
		err := imageErr(FormatJPEG, tjError(h))
		if pooled != nil {
			scratch.Put(pooled)
		}
		return sample.Image{}, err
	}
	if full {
		return sample.Image{Height: sh, Width: sw, Channels: ch, Pix: buf}, nil
	}
	out := sample.NewImage(r.Dy(), r.Dx(), ch)
	rowLen := r.Dx() * ch
	for y := range r.Dy() {
		o := ((r.Min.Y+y)*sw + r.Min.X) * ch
		copy(out.Pix[y*rowLen:(y+1)*rowLen], buf[o:o+rowLen])
	}
	scratch.Put(pooled)
	return out, nil
}

func tjError(h C.tjhandle) error {
	return errors.New(C.GoString(C.tjGetErrorStr2(h)))
}
