package decode_test

import (
	"context"
	"fmt"
	"image"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// A planar decoder writes a crop straight into a float32 CHW tensor, with
// the mean and scale of each channel and the mirror chosen after the crop;
// a decoder without it (or data it does not decode itself) declines, and
// the caller decodes and converts as usual.
func ExamplePlanarDecoder() {
	recs, _ := source.Collect(context.Background(), stage.Take(recordio.Open("../../dataset/imagerec/testdata/mnist_t10k_1000_jpg.rec"), 1))
	_, data, _ := imagerec.ParseRecord(recs[0].Data)
	norm := augment.Normalize{Mean: [4]float32{127.5, 127.5, 127.5}, Std: [4]float32{127.5, 127.5, 127.5}}
	opts := decode.Options{Channels: 3, Crop: augment.CenterRect(8, 8)}
	dst := make([]float32, 3*8*8)
	ok := false
	if pd, is := decode.Default().(decode.PlanarDecoder); is {
		var err error
		ok, err = pd.DecodePlanar(data, opts, dst, func() decode.Planar {
			mul, bias := norm.Linear(3, nil)
			return decode.Planar{Mean: norm.Mean, Mul: mul, Bias: bias, Mirror: true}
		})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	if !ok {
		img, err := decode.Default().Decode(data, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		norm.IntoRect(dst, img, image.Rect(0, 0, img.Width, img.Height), true, nil)
	}
	lo, hi := dst[0], dst[0]
	for _, v := range dst {
		lo, hi = min(lo, v), max(hi, v)
	}
	fmt.Println(len(dst), lo >= -1, hi <= 1)
	// Output:
	// 192 true true
}
