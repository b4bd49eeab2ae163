package mxnet

import (
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/source"
)

// The Iter refuses a bomb in a record with a *tensorfeed.Error naming the record,
// whatever the thread count, and SkipBad skips it.
func TestIterBomb(t *testing.T) {
	good := recimages.Records(t, tdPath(mnistJPG, ".rec"))
	h, _, err := imagerec.ParseRecord(good[1].Data)
	if err != nil {
		t.Fatal(err)
	}
	bomb := imagerec.AppendRecord(nil, h, fixture.JPEGBomb(8000, 8000, true))
	path, offs := recimages.WriteRec(t, good[0].Data, bomb, good[2].Data)
	var texts []string
	for _, threads := range []int{1, 2} {
		cfg := mnistConfig()
		cfg.Data.RecPath = path
		cfg.Batch = batchOptions{Size: 2, Last: batch.Keep}
		cfg.Backend.Threads = threads
		var err error
		n := fixture.Allocated(func() { err = passErr(newIter(t, cfg)) })
		var re *tensorfeed.Error
		if !errors.As(err, &re) || re.Record != 1 || re.Offset != offs[1] || !errors.Is(err, decode.ErrImage) {
			t.Fatalf("threads %d: %v, want a *tensorfeed.Error for record 1", threads, err)
		}
		if n > 64<<20 {
			t.Errorf("threads %d: %d bytes allocated", threads, n)
		}
		texts = append(texts, err.Error())
		cfg.Data.SkipBad = source.SkipBad(1)
		it := newIter(t, cfg)
		if got := pass(t, it); len(got) != 1 || got[0].Data[0].Shape[0] != 2 || it.Skipped() != 1 {
			t.Errorf("threads %d: SkipBad: %d batches, %d skipped", threads, len(got), it.Skipped())
		}
	}
	if texts[0] != texts[1] {
		t.Errorf("error text depends on the threads:\n%s\n%s", texts[0], texts[1])
	}
}
