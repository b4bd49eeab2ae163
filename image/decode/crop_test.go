package decode_test

import (
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/imagegeom"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
)

// A decoder that decodes only around a crop (libjpeg-turbo's) gives the
// pixels of the same rectangle of the full image, bit for bit, on every
// photo of the set, for crops at the edges, inside, one pixel wide and
// whole-width, in 1, 3 and 4 channels, through Decode and DecodeRegion.
func TestDecodeCropIdentical(t *testing.T) {
	photos := recimages.ImageBytes(t, recimages.Photos(t))
	step := 11 // 1 checks all 1536 (about a minute)
	if testing.Short() {
		step = 53
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dec := range recimages.Decoders() {
		rd, ok := dec.(decode.RegionDecoder)
		if !ok {
			continue // it converts what it decodes whole: TestDecodeCrop covers it
		}
		for i := 0; i < len(photos); i += step {
			data := photos[i]
			ch := []int{3, 3, 1, 4}[i%4]
			full, err := dec.Decode(data, decode.Options{Channels: ch})
			if err != nil {
				t.Fatalf("%s: photo %d: %v", dec.Name(), i, err)
			}
			w, h := full.Width, full.Height
			rects := []image.Rectangle{
				image.Rect(0, 0, 224, 224), image.Rect(w-224, h-224, w, h),
				image.Rect(0, h-1, w, h), image.Rect(w-1, 0, w, h), image.Rect(1, 1, 2, 2),
			}
			for range 3 {
				x, y := rng.IntN(w-224+1), rng.IntN(h-224+1)
				rects = append(rects, image.Rect(x, y, x+224, y+224))
				x0, y0 := rng.IntN(w), rng.IntN(h)
				rects = append(rects, image.Rect(x0, y0, x0+1+rng.IntN(w-x0), y0+1+rng.IntN(h-y0)))
			}
			for _, r := range rects {
				opts := decode.Options{Channels: ch, Crop: func(int, int) (image.Rectangle, error) { return r, nil }}
				want := augment.CropImage(full, r)
				got, err := dec.Decode(data, opts)
				if err != nil {
					t.Fatalf("%s: photo %d, crop %v: %v", dec.Name(), i, r, err)
				}
				if !sameImage(got, want) {
					t.Fatalf("%s: photo %d, %d channels: crop %v differs from the full decode's", dec.Name(), i, ch, r)
				}
				img, rect, release, err := rd.DecodeRegion(data, opts)
				if err != nil {
					t.Fatalf("%s: photo %d, crop %v: %v", dec.Name(), i, r, err)
				}
				if rect.Size() != r.Size() || !sameImage(augment.CropImage(img, rect), want) {
					t.Fatalf("%s: photo %d, %d channels: region crop %v (%v of %dx%d) differs from the full decode's",
						dec.Name(), i, ch, r, rect, img.Width, img.Height)
				}
				release()
			}
		}
	}
}

// A stream damaged after a crop's rows is an error for a cropped decode as
// for a full one, through Decode and DecodeRegion.
func TestDecodeCropDamagedTail(t *testing.T) {
	data := recimages.ImageBytes(t, recimages.Photos(t))[0]
	top := func(int, int) (image.Rectangle, error) { return image.Rect(0, 0, 224, 16), nil }
	for _, dec := range recimages.Decoders() {
		for _, cut := range []int{len(data) * 3 / 4, len(data) - 2} {
			for _, crop := range []func(int, int) (image.Rectangle, error){nil, top} {
				_, err := dec.Decode(data[:cut:cut], decode.Options{Channels: 3, Crop: crop})
				if !errors.Is(err, decode.ErrImage) {
					t.Errorf("%s: cut at %d of %d, crop %v: error %v, want ErrImage", dec.Name(), cut, len(data), crop != nil, err)
				}
				rd, ok := dec.(decode.RegionDecoder)
				if !ok {
					continue
				}
				if _, _, _, err := rd.DecodeRegion(data[:cut:cut], decode.Options{Channels: 3, Crop: crop}); !errors.Is(err, decode.ErrImage) {
					t.Errorf("%s: DecodeRegion, cut at %d, crop %v: error %v, want ErrImage", dec.Name(), cut, crop != nil, err)
				}
			}
		}
		// Entropy-coded data damaged below the crop.
		bad := append([]byte(nil), data...)
		for i := len(bad) * 3 / 4; i < len(bad)*3/4+64; i++ {
			bad[i] = 0xff
		}
		full, errFull := dec.Decode(bad, decode.Options{Channels: 3})
		_, errCrop := dec.Decode(bad, decode.Options{Channels: 3, Crop: top})
		if (errFull == nil) != (errCrop == nil) {
			t.Errorf("%s: damaged stream: full decode error %v (%dx%d), crop error %v", dec.Name(), errFull, full.Width, full.Height, errCrop)
		}
	}
}

// BenchmarkDecodeRegion decodes the photos for a random 224 x 224 crop:
// whole (Crop nil, the crop then read from the full image) or only around
// the crop, into pooled buffers.
func BenchmarkDecodeRegion(b *testing.B) {
	photos := recimages.ImageBytes(b, recimages.Photos(b))
	for _, dec := range recimages.Decoders() {
		rd, ok := dec.(decode.RegionDecoder)
		if !ok {
			continue
		}
		for _, crop := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/crop=%v", dec.Name(), crop), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				opts := decode.Options{Channels: 3}
				if crop {
					opts.Crop = func(w, h int) (image.Rectangle, error) { return imagegeom.RandomRect(w, h, 224, 224, rng) }
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					_, _, release, err := rd.DecodeRegion(photos[i%len(photos)], opts)
					if err != nil {
						b.Fatal(err)
					}
					release()
				}
			})
		}
	}
}
