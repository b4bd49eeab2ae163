//go:build turbojpeg && cgo

package decode

/*
#cgo LDFLAGS: -lturbojpeg -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <turbojpeg.h>
#include <jpeglib.h>

// tf_dec is a libjpeg decompressor with an error manager that returns to
// the C function that called libjpeg instead of exiting, and that keeps
// the first message (the error, or the first warning) as TurboJPEG does.
typedef struct {
	struct jpeg_decompress_struct d;
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	int warned;
	char msg[JMSG_LENGTH_MAX];
} tf_dec;

static void tf_error_exit(j_common_ptr c) {
	tf_dec *t = (tf_dec *)c->client_data;
	(*c->err->format_message)(c, t->msg);
	longjmp(t->jb, 1);
}

static void tf_emit_message(j_common_ptr c, int level) {
	tf_dec *t = (tf_dec *)c->client_data;
	if (level < 0 && !t->warned) {
		t->warned = 1;
		(*c->err->format_message)(c, t->msg);
	}
}

static void tf_output_message(j_common_ptr c) { (void)c; }

static tf_dec *tf_new(void) {
	tf_dec *t = calloc(1, sizeof *t);
	if (t == NULL) return NULL;
	t->d.err = jpeg_std_error(&t->pub);
	t->pub.error_exit = tf_error_exit;
	t->pub.emit_message = tf_emit_message;
	t->pub.output_message = tf_output_message;
	t->d.client_data = t;
	if (setjmp(t->jb)) {
		free(t);
		return NULL;
	}
	jpeg_create_decompress(&t->d);
	return t;
}

// tf_hdr is what tjDecompressHeader3 says, returned by value so that no Go
// variable escapes to the heap for C to write to.
typedef struct { int rc, w, h, subsamp, cs; } tf_hdr;

static tf_hdr tf_header(tjhandle h, const unsigned char *src, unsigned long size) {
	tf_hdr r;
	r.rc = tjDecompressHeader3(h, src, size, &r.w, &r.h, &r.subsamp, &r.cs);
	return r;
}

static void tf_free(tf_dec *t) {
	jpeg_destroy_decompress(&t->d);
	free(t);
}


// tf_planar is the conversion of tf_region's rows to CHW float32: value v
// of channel c becomes ((float)v - mean[c]) * mul[c] + bias[c], stored at
// dst[c*plane + y*cw + j], column x of the crop's row y going to j = x, or
// j = cw-1-x when mirror is set. x0 is the crop's first column in the
// decoded row.
typedef struct {
	float mean[3], mul[3], bias[3];
	int mirror, x0, cw, plane;
} tf_planar;

// tf_row returns the crop's row k (row stride bytes, its column 0 at
// src + 3*x0) and sets d to the three planes' rows y+k of dst.
static inline const unsigned char *tf_row(const tf_planar *p, float *dst, const unsigned char *src, size_t stride,
		int y, int k, float *d[3]) {
	d[0] = dst + (size_t)(y + k) * p->cw;
	d[1] = d[0] + p->plane;
	d[2] = d[1] + p->plane;
	return src + stride * (size_t)k + 3 * (size_t)p->x0;
}

// tf_planar_cols converts columns j0 .. j1-1 of the row s into d one value
// at a time.
static inline void tf_planar_cols(const tf_planar *p, const unsigned char *s, float *d[3], int j0, int j1) {
	int w = p->cw;
	for (int j = j0; j < j1; j++) {
		const unsigned char *q = s + 3 * (p->mirror ? w - 1 - j : j);
		for (int c = 0; c < 3; c++) {
			float f = (float)q[c] - p->mean[c];
			f = f * p->mul[c];
			d[c][j] = f + p->bias[c];
		}
	}
}

// tf_planar_rows_c converts rows y .. y+n-1 of the crop one value at a
// time.
static void tf_planar_rows_c(const tf_planar *p, float *dst, const unsigned char *src, size_t stride, int y, int n) {
	for (int k = 0; k < n; k++) {
		float *d[3];
		const unsigned char *s = tf_row(p, dst, src, stride, y, k, d);
		tf_planar_cols(p, s, d, 0, p->cw);
	}
}

// tf_simd is the conversion used: 0 one value at a time, 1 SSSE3, 2
// SSSE3 and AVX2; tf_cpu_simd is the best the processor has.
static int tf_simd, tf_cpu_simd;

// tf_set_simd sets the conversion, at most the processor's best, and
// returns the previous setting.
static int tf_set_simd(int level) {
	int old = tf_simd;
	tf_simd = level < tf_cpu_simd ? level : tf_cpu_simd;
	return old;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stdint.h>

// tf_masks[m][c][v] picks, with pshufb, the bytes of channel c of 16 RGB
// pixels from the v-th 16 bytes of their 48, in order (m = 0) or reversed
// (m = 1); 0x80 clears a byte.
static unsigned char tf_masks[2][3][3][16] __attribute__((aligned(16)));

__attribute__((constructor)) static void tf_planar_init(void) {
	for (int m = 0; m < 2; m++)
		for (int c = 0; c < 3; c++)
			for (int v = 0; v < 3; v++)
				for (int k = 0; k < 16; k++) {
					int i = 3 * (m ? 15 - k : k) + c;
					tf_masks[m][c][v][k] = i / 16 == v ? (unsigned char)(i % 16) : 0x80;
				}
	__builtin_cpu_init();
	tf_cpu_simd = __builtin_cpu_supports("ssse3") ? (__builtin_cpu_supports("avx2") ? 2 : 1) : 0;
	tf_simd = tf_cpu_simd;
}

// tf_load_masks loads the gather masks of every channel, mirrored (m = 1)
// or not.
__attribute__((target("ssse3"))) static inline void tf_load_masks(int m, __m128i mk[3][3]) {
	for (int c = 0; c < 3; c++)
		for (int v = 0; v < 3; v++) mk[c][v] = _mm_load_si128((const __m128i *)tf_masks[m][c][v]);
}

// tf_gather returns the bytes of channel c of the 16 RGB pixels in
// abc[0..2] (48 bytes), in the order of the masks mk.
__attribute__((target("ssse3"))) static inline __m128i tf_gather(const __m128i abc[3], const __m128i mk[3]) {
	return _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(abc[0], mk[0]), _mm_shuffle_epi8(abc[1], mk[1])),
		_mm_shuffle_epi8(abc[2], mk[2]));
}

// tf_load48 loads the 16 RGB pixels of output columns j .. j+15 of the
// row s (w wide): pixels j .. j+15, or w-16-j .. w-1-j when mirrored.
__attribute__((target("ssse3"))) static inline void tf_load48(const unsigned char *s, int w, int m, int j, __m128i abc[3]) {
	const unsigned char *q = s + 3 * (size_t)(m ? w - 16 - j : j);
	abc[0] = _mm_loadu_si128((const __m128i *)q);
	abc[1] = _mm_loadu_si128((const __m128i *)(q + 16));
	abc[2] = _mm_loadu_si128((const __m128i *)(q + 32));
}

// tf_planar_rows_ssse3 is tf_planar_rows_c 16 pixels at a time: the bytes
// of each channel gathered with pshufb (in reverse for a mirrored row),
// widened to float32 and converted with the same three roundings.
__attribute__((target("ssse3"))) static void tf_planar_rows_ssse3(const tf_planar *p, float *dst,
		const unsigned char *src, size_t stride, int y, int n) {
	int w = p->cw, m = p->mirror ? 1 : 0;
	__m128i z = _mm_setzero_si128(), mk[3][3];
	__m128 mean[3], mul[3], bias[3];
	tf_load_masks(m, mk);
	for (int c = 0; c < 3; c++) {
		mean[c] = _mm_set1_ps(p->mean[c]);
		mul[c] = _mm_set1_ps(p->mul[c]);
		bias[c] = _mm_set1_ps(p->bias[c]);
	}
	int body = w - w % 16;
	// Rows of whole 16-byte units at 16-byte boundaries are stored with
	// non-temporal stores: the tensor is far larger than the cache and is
	// read next by the consumer, so its lines are not read in first.
	int stream = ((uintptr_t)dst & 15) == 0 && w % 4 == 0 && p->plane % 4 == 0;
	for (int k = 0; k < n; k++) {
		float *d[3];
		const unsigned char *s = tf_row(p, dst, src, stride, y, k, d);
		for (int j = 0; j < body; j += 16) {
			__m128i abc[3];
			tf_load48(s, w, m, j, abc);
			for (int c = 0; c < 3; c++) {
				__m128i v = tf_gather(abc, mk[c]);
				__m128i lo = _mm_unpacklo_epi8(v, z), hi = _mm_unpackhi_epi8(v, z);
				__m128i q4[4] = {_mm_unpacklo_epi16(lo, z), _mm_unpackhi_epi16(lo, z),
					_mm_unpacklo_epi16(hi, z), _mm_unpackhi_epi16(hi, z)};
				for (int t = 0; t < 4; t++) {
					__m128 f = _mm_sub_ps(_mm_cvtepi32_ps(q4[t]), mean[c]);
					f = _mm_add_ps(_mm_mul_ps(f, mul[c]), bias[c]);
					if (stream) {
						_mm_stream_ps(d[c] + j + 4 * t, f);
					} else {
						_mm_storeu_ps(d[c] + j + 4 * t, f);
					}
				}
			}
		}
		tf_planar_cols(p, s, d, body, w);
	}
}

// tf_planar_rows_avx2 is tf_planar_rows_ssse3 with the bytes of each
// channel widened and converted 8 at a time, and stored, as there, with
// non-temporal stores where the planes' rows are 32-byte aligned: a row of
// a batch is written once and read by the consumer, so reading its lines
// in first (a third of the memory traffic of a cold store) is waste (with
// ordinary stores the image pipeline ran 0.89-0.97x its plain loop's time,
// with these 0.82-0.86x).
__attribute__((target("ssse3,avx2"))) static void tf_planar_rows_avx2(const tf_planar *p, float *dst,
		const unsigned char *src, size_t stride, int y, int n) {
	int w = p->cw, m = p->mirror ? 1 : 0;
	__m128i mk[3][3];
	__m256 mean[3], mul[3], bias[3];
	tf_load_masks(m, mk);
	int stream = ((uintptr_t)dst & 31) == 0 && w % 8 == 0 && p->plane % 8 == 0;
	for (int c = 0; c < 3; c++) {
		mean[c] = _mm256_set1_ps(p->mean[c]);
		mul[c] = _mm256_set1_ps(p->mul[c]);
		bias[c] = _mm256_set1_ps(p->bias[c]);
	}
	int body = w - w % 16;
	for (int k = 0; k < n; k++) {
		float *d[3];
		const unsigned char *s = tf_row(p, dst, src, stride, y, k, d);
		for (int j = 0; j < body; j += 16) {
			__m128i abc[3];
			tf_load48(s, w, m, j, abc);
			for (int c = 0; c < 3; c++) {
				__m128i v = tf_gather(abc, mk[c]);
				__m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
				__m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)));
				f0 = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(f0, mean[c]), mul[c]), bias[c]);
				f1 = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(f1, mean[c]), mul[c]), bias[c]);
				if (stream) {
					_mm256_stream_ps(d[c] + j, f0);
					_mm256_stream_ps(d[c] + j + 8, f1);
				} else {
					_mm256_storeu_ps(d[c] + j, f0);
					_mm256_storeu_ps(d[c] + j + 8, f1);
				}
			}
		}
		tf_planar_cols(p, s, d, body, w);
	}
}

static void tf_planar_rows(const tf_planar *p, float *dst, const unsigned char *src, size_t stride, int y, int n) {
	if (tf_simd == 2) {
		tf_planar_rows_avx2(p, dst, src, stride, y, n);
		_mm_sfence();
		return;
	}
	if (tf_simd == 1) {
		tf_planar_rows_ssse3(p, dst, src, stride, y, n);
		_mm_sfence();
		return;
	}
	tf_planar_rows_c(p, dst, src, stride, y, n);
}
#else
static void tf_planar_rows(const tf_planar *p, float *dst, const unsigned char *src, size_t stride, int y, int n) {
	tf_planar_rows_c(p, dst, src, stride, y, n);
}
#endif

// tf_region decodes rows [y0, y1) of the columns [*x, *x + *w) of a JPEG
// of w0 x h0 pixels to colour space cs with ch channels into out (room for
// cap bytes), rows packed. libjpeg widens the columns to whole iMCUs and
// sets *x and *w to those it decoded. The rows after y1 are still read
// (entropy-decoded, not transformed), so that damage anywhere in the
// stream is found as a full decode finds it. It returns 0, or -1 with the
// message in t->msg.
static int tf_region_at(tf_dec *t, const unsigned char *data, unsigned long size, int cs, int ch,
		int w0, int h0, unsigned int *x, unsigned int *w, int y0, int y1, unsigned char *out, size_t cap,
		tf_planar *pl, float *dst) {
	struct jpeg_decompress_struct *d = &t->d;
	t->warned = 0;
	t->msg[0] = 0;
	if (setjmp(t->jb)) {
		jpeg_abort_decompress(d);
		return -1;
	}
	jpeg_mem_src(d, data, size);
	jpeg_read_header(d, TRUE);
	if ((int)d->image_width != w0 || (int)d->image_height != h0) {
		snprintf(t->msg, sizeof t->msg, "frame header says %dx%d, expected %dx%d",
			(int)d->image_width, (int)d->image_height, w0, h0);
		jpeg_abort_decompress(d);
		return -1;
	}
	d->out_color_space = (J_COLOR_SPACE)cs;
	jpeg_start_decompress(d);
	if ((int)d->output_components != ch) {
		snprintf(t->msg, sizeof t->msg, "%d output components, expected %d", (int)d->output_components, ch);
		jpeg_abort_decompress(d);
		return -1;
	}
	if (*x != 0 || *w != d->output_width) {
		jpeg_crop_scanline(d, x, w);
	}
	size_t row = (size_t)d->output_width * ch;
	if (row * (size_t)(y1 - y0) > cap) {
		snprintf(t->msg, sizeof t->msg, "cropped rows of %d bytes overflow the buffer", (int)row);
		jpeg_abort_decompress(d);
		return -1;
	}
	if (y0 > 0) jpeg_skip_scanlines(d, (JDIMENSION)y0);
	JSAMPARRAY rows = (*d->mem->alloc_small)((j_common_ptr)d, JPOOL_IMAGE, sizeof(JSAMPROW) * (size_t)(y1 - y0));
	for (int y = 0; y < y1 - y0; y++) rows[y] = out + row * (size_t)y;
	if (dst != NULL) pl->x0 -= (int)*x; // the crop's first column among those decoded
	while ((int)d->output_scanline < y1) {
		int at = (int)d->output_scanline - y0;
		JDIMENSION got = jpeg_read_scanlines(d, rows + at, (JDIMENSION)(y1 - y0 - at));
		if (got == 0) {
			snprintf(t->msg, sizeof t->msg, "no scanline %d", (int)d->output_scanline);
			jpeg_abort_decompress(d);
			return -1;
		}
		// Converted while the rows are still in the cache.
		if (dst != NULL) tf_planar_rows(pl, dst, rows[at], row, at, (int)got);
	}
	if (d->output_scanline < d->output_height) {
		// Skipping to the very end would stop reading; skip all but the
		// last row, then read that one.
		JDIMENSION left = d->output_height - d->output_scanline;
		if (left > 1) jpeg_skip_scanlines(d, left - 1);
		JSAMPARRAY last = (*d->mem->alloc_sarray)((j_common_ptr)d, JPOOL_IMAGE, (JDIMENSION)row, 1);
		jpeg_read_scanlines(d, last, 1);
	}
	jpeg_finish_decompress(d);
	return t->warned ? -1 : 0;
}

// tf_cols is the result of tf_region: rc, and the columns decoded.
typedef struct { int rc; unsigned int x, w; } tf_cols;

// tf_region is tf_region_at with the columns passed and returned by value,
// writing no CHW tensor.
static tf_cols tf_region(tf_dec *t, const unsigned char *data, unsigned long size, int cs, int ch,
		int w0, int h0, unsigned int x, unsigned int w, int y0, int y1, unsigned char *out, size_t cap) {
	tf_cols c;
	c.x = x;
	c.w = w;
	c.rc = tf_region_at(t, data, size, cs, ch, w0, h0, &c.x, &c.w, y0, y1, out, cap, NULL, NULL);
	return c;
}

// tf_region_planar is tf_region for 3 channels that also converts the
// crop's rows into dst as pl says (pl.x0 the crop's first column in the
// image).
static tf_cols tf_region_planar(tf_dec *t, const unsigned char *data, unsigned long size, int cs,
		int w0, int h0, unsigned int x, unsigned int w, int y0, int y1, unsigned char *out, size_t cap,
		tf_planar pl, float *dst) {
	tf_cols c;
	c.x = x;
	c.w = w;
	c.rc = tf_region_at(t, data, size, cs, 3, w0, h0, &c.x, &c.w, y0, y1, out, cap, &pl, dst);
	return c;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
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

// pixBuf is a pixel buffer that DecodeRegion lends, with the release
// function that takes it back, made once with the buffer.
type pixBuf struct {
	b       []uint8
	release func()
}

// The idle buffers of DecodeRegion: a channel rather than a sync.Pool,
// which a collection empties, so that a steady stream of images of
// similar sizes allocates none. Buffers larger than maxIdleBufBytes are
// left to the garbage collector.
const (
	maxIdleBufs     = 16
	maxIdleBufBytes = 16 << 20
)

var idleBufs = make(chan *pixBuf, maxIdleBufs)

// getBuf returns an idle buffer of n bytes, or a new one.
func getBuf(n int) *pixBuf {
	select {
	case p := <-idleBufs:
		if cap(p.b) >= n {
			p.b = p.b[:n]
			return p
		}
		// Too small: replaced by a larger one below.
	default:
	}
	p := &pixBuf{b: make([]uint8, n, n+n/4)}
	p.release = func() { putBuf(p) }
	return p
}

func putBuf(p *pixBuf) {
	if cap(p.b) > maxIdleBufBytes {
		return
	}
	select {
	case idleBufs <- p:
	default:
	}
}

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
		img, _, _, err := turboDecodeFull(data, opts, func(n int) *pixBuf { return &pixBuf{b: make([]uint8, n)} })
		return img, err
	}
	full, r, release, err := turboDecoder{}.DecodeRegion(data, opts)
	if err != nil || (r.Dx() == full.Width && r.Dy() == full.Height) {
		return full, err // no copy: the image is the caller's, its buffer never goes back to the pool
	}
	out := cropCopy(full, r)
	release()
	return out, nil
}

// DecodeRegion decodes into a pooled buffer and returns an image holding
// the crop with the crop's rectangle in it; release hands the buffer back.
// It saves copying the crop out of the image. A crop of a JPEG decoded at
// full scale decodes only the pixels around the crop (see
// turboDecodeCrop).
func (turboDecoder) DecodeRegion(data []byte, opts Options) (sample.Image, image.Rectangle, func(), error) {
	checkChannels(opts.Channels)
	img, r, pooled, err := turboDecodeFull(data, opts, getBuf)
	if err != nil {
		return img, r, nil, err
	}
	if pooled == nil {
		return img, r, noRelease, nil
	}
	return img, r, pooled.release, nil
}

func noRelease() {}

// setPlanarSIMD sets DecodePlanar's conversion (0 one value at a time, 1
// SSSE3, 2 AVX2), at most the processor's best, and returns the previous
// setting (for tests of each conversion).
func setPlanarSIMD(level int) int {
	return int(C.tf_set_simd(C.int(level)))
}

// DecodePlanar implements PlanarDecoder for baseline and progressive RGB
// and gray JPEGs decoded to 3 channels at full scale: the rows of the crop
// come out of libjpeg as DecodeRegion decodes them (only the iMCU columns
// around the crop), and each group of rows is converted into dst while it
// is in the cache, 16 pixels at a time with SSSE3 and AVX2 where the
// processor has them. The pooled row buffer is the only memory it uses.
func (turboDecoder) DecodePlanar(data []byte, opts Options, dst []float32, planar func() Planar) (bool, error) {
	checkChannels(opts.Channels)
	if opts.Channels != 3 || opts.MinShorter > 0 || opts.Crop == nil || Sniff(data) != FormatJPEG {
		return false, nil
	}
	info, err := jpegHeader(data)
	if err != nil {
		return true, imageErr(FormatJPEG, err)
	}
	h, err := getHandle()
	if err != nil {
		return true, err
	}
	hdr := C.tf_header(h, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)))
	if hdr.rc != 0 {
		err := imageErr(FormatJPEG, tjError(h))
		C.tjDestroy(h)
		return true, err
	}
	putHandle(h)
	w, ht, cs := int(hdr.w), int(hdr.h), hdr.cs
	if w < 1 || ht < 1 {
		return true, imageErr(FormatJPEG, errors.New("no frame header (truncated data?)"))
	}
	if err := checkSize(FormatJPEG, &opts, w, ht); err != nil {
		return true, err
	}
	if cs == C.TJCS_CMYK || cs == C.TJCS_YCCK {
		return false, nil // decoded by the Go decoder
	}
	r, err := cropRect(&opts, w, ht)
	if err != nil {
		return true, err
	}
	if need := turboJPEGBytes(&info, w, ht, 3, int64(r.Dx())*int64(r.Dy())); need > opts.maxBytes() {
		return true, checkMemory(FormatJPEG, &opts, w, ht, info.kind(), need)
	}
	if len(dst) != 3*r.Dx()*r.Dy() {
		panic(fmt.Sprintf("decode: DecodePlanar: %d values for a %dx%d crop of 3 channels", len(dst), r.Dx(), r.Dy()))
	}
	pl := planar()
	_, _, buf, err := turboDecodeRows(data, w, ht, 3, C.TJPF_RGB, r, getBuf, &pl, dst)
	if err != nil {
		return true, err
	}
	putBuf(buf)
	return true, nil
}

// turboDecodeFull decodes a JPEG whole, into a buffer from get, and returns
// it with the crop rectangle and the buffer (nil when the image came from
// the Go decoder, already cropped). Other formats go to the Go decoder.
func turboDecodeFull(data []byte, opts Options, get func(n int) *pixBuf) (sample.Image, image.Rectangle, *pixBuf, error) {
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
func turboDecode(h C.tjhandle, data []byte, info *jpegInfo, opts Options, get func(n int) *pixBuf) (sample.Image, image.Rectangle, *pixBuf, error) {
	var none image.Rectangle
	src := (*C.uchar)(unsafe.Pointer(&data[0]))
	size := C.ulong(len(data))
	hdr := C.tf_header(h, src, size)
	if hdr.rc != 0 {
		return sample.Image{}, none, nil, imageErr(FormatJPEG, tjError(h))
	}
	w, ht, cs := hdr.w, hdr.h, hdr.cs
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
	if need := turboJPEGBytes(info, sw, sh, ch, crop); need > opts.maxBytes() {
		return sample.Image{}, none, nil, checkMemory(FormatJPEG, &opts, int(w), int(ht), info.kind(), need)
	}
	if opts.Crop != nil && sw == int(w) && sh == int(ht) && r != image.Rect(0, 0, sw, sh) {
		return turboDecodeCrop(data, sw, sh, ch, pf, r, get)
	}
	buf := get(sw * sh * ch)
	rc := C.tjDecompress2(h, src, size, (*C.uchar)(unsafe.Pointer(&buf.b[0])), C.int(sw), 0, C.int(sh), pf, 0)
	if rc != 0 {
		// Warnings (a truncated or corrupt stream that libjpeg-turbo
		// patched up) are errors too, as they are for image/jpeg.
		return sample.Image{}, none, nil, imageErr(FormatJPEG, tjError(h))
	}
	return sample.Image{Height: sh, Width: sw, Channels: ch, Pix: buf.b}, r, buf, nil
}

// decs holds idle libjpeg decompressors for cropped decodes, as handles
// holds TurboJPEG's.
var decs = make(chan *C.tf_dec, maxIdleHandles)

// colorSpaces maps a TurboJPEG pixel format to the libjpeg colour space
// TurboJPEG decodes it with.
var colorSpaces = map[C.int]C.int{C.TJPF_RGB: C.JCS_EXT_RGB, C.TJPF_GRAY: C.JCS_GRAYSCALE, C.TJPF_RGBA: C.JCS_EXT_RGBA}

// turboDecodeCrop decodes only what rectangle r of a w x h JPEG needs:
// libjpeg's jpeg_crop_scanline limits the inverse DCT, upsampling and
// colour conversion to the iMCU columns around r, and jpeg_skip_scanlines
// passes the rows above and below it without transforming them. Every row
// is still entropy-decoded, so a damaged stream is an error as in a full
// decode. The result is an image of r's rows and the decoded columns, with
// r's place in it.
//
// The pixels are those of a full decode, bit for bit: the decoder uses the
// same inverse DCT, fancy upsampling and colour conversion as TurboJPEG's
// tjDecompress2 without flags; the columns asked for reach one pixel past
// r on each side (where the image has one), since the upsampler
// replicates the edge of what it decodes where a full decode has a
// neighbour. TestDecodeCropIdentical checks it on every photo of the set.
func turboDecodeCrop(data []byte, w, h, ch int, pf C.int, r image.Rectangle, get func(n int) *pixBuf) (sample.Image, image.Rectangle, *pixBuf, error) {
	return turboDecodeRows(data, w, h, ch, pf, r, get, nil, nil)
}

// turboDecodeRows is turboDecodeCrop that, when dst is set (3 channels),
// also converts the crop's rows into dst as pl says, group by group as the
// decompressor gives them.
func turboDecodeRows(data []byte, w, h, ch int, pf C.int, r image.Rectangle, get func(n int) *pixBuf,
	pl *Planar, dst []float32) (sample.Image, image.Rectangle, *pixBuf, error) {
	var t *C.tf_dec
	select {
	case t = <-decs:
	default:
		if t = C.tf_new(); t == nil {
			return sample.Image{}, image.Rectangle{}, nil, errors.New("decode: creating a libjpeg decompressor failed")
		}
	}
	x0, x1 := max(0, r.Min.X-cropMargin), min(w, r.Max.X+cropMargin)
	rows := r.Dy()
	buf := get(w * rows * ch)
	var cols C.tf_cols
	if dst == nil {
		cols = C.tf_region(t, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), colorSpaces[pf], C.int(ch),
			C.int(w), C.int(h), C.uint(x0), C.uint(x1-x0), C.int(r.Min.Y), C.int(r.Max.Y),
			(*C.uchar)(unsafe.Pointer(&buf.b[0])), C.size_t(len(buf.b)))
	} else {
		cp := C.tf_planar{mirror: 0, x0: C.int(r.Min.X), cw: C.int(r.Dx()), plane: C.int(r.Dx() * r.Dy())}
		if pl.Mirror {
			cp.mirror = 1
		}
		for c := range 3 {
			cp.mean[c], cp.mul[c], cp.bias[c] = C.float(pl.Mean[c]), C.float(pl.Mul[c]), C.float(pl.Bias[c])
		}
		cols = C.tf_region_planar(t, (*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), colorSpaces[pf],
			C.int(w), C.int(h), C.uint(x0), C.uint(x1-x0), C.int(r.Min.Y), C.int(r.Max.Y),
			(*C.uchar)(unsafe.Pointer(&buf.b[0])), C.size_t(len(buf.b)), cp, (*C.float)(unsafe.Pointer(&dst[0])))
	}
	cx, cw := cols.x, cols.w
	if cols.rc != 0 {
		err := imageErr(FormatJPEG, errors.New(C.GoString(&t.msg[0])))
		C.tf_free(t) // never reused after a failure, as for TurboJPEG's handles
		return sample.Image{}, image.Rectangle{}, nil, err
	}
	select {
	case decs <- t:
	default:
		C.tf_free(t)
	}
	img := sample.Image{Height: rows, Width: int(cw), Channels: ch, Pix: buf.b[:int(cw)*rows*ch]}
	return img, r.Sub(image.Pt(int(cx), r.Min.Y)), buf, nil
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

// cropMargin is how many columns past a crop turboDecodeCrop decodes on
// each side: a whole iMCU of the largest sampling factor (2 x 8 pixels).
const cropMargin = 16
