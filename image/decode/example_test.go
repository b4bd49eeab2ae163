package decode_test

import (
	"context"
	"fmt"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/source"
)

// A decoder can convert only a crop of the image.
func ExampleDecoder() {
	recs, _ := source.Collect(context.Background(), stage.Take(recordio.Open("../../dataset/imagerec/testdata/mnist_t10k_1000_png_gray.rec"), 1))
	_, data, _ := imagerec.ParseRecord(recs[0].Data)
	dec := decode.Default() // "go", or "turbojpeg" when built with -tags turbojpeg
	img, err := dec.Decode(data, decode.Options{Channels: 3, Crop: augment.CenterRect(4, 2)})
	fmt.Println(decode.Sniff(data), img.Shape(), img.Pix[:6], err)
	// Output:
	// png [2 4 3] [0 0 0 0 0 0] <nil>
}

func ExampleSniff() {
	fmt.Println(decode.Sniff([]byte{0xff, 0xd8, 0xff, 0xe1}), decode.Sniff([]byte("\x89PNG\r\n\x1a\n")), decode.Sniff([]byte("GIF8")))
	// Output: jpeg png unknown
}
