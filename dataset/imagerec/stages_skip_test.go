package imagerec_test

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/source"
)

const mnistJPG = "mnist_t10k_1000_jpg"

// Decode with OnBad lists every bad record through OnSkip and yields the
// good ones in order; without it the first bad
// record ends the pass; a framing error ends it whatever the policy.
func TestDecodeSkipBad(t *testing.T) {
	bad := []int{2, 5, 9}
	rec, offs := mixedRec(t, 12, bad...)
	for _, threads := range []int{1} { // one goroutine: Decode has no others
		var reported []int
		policy := source.SkipBad(1, source.OnSkip(func(err error) {
			var re *tensorfeed.Error
			if !errors.As(err, &re) || re.Offset != offs[int(re.Record)] || re.Path != rec {
				t.Errorf("skipped %v: not a *tensorfeed.Error for its record", err)
			}
			reported = append(reported, int(re.Record))
		}))
		d := imagerec.Decode(recordio.Open(rec), nil, decode.Options{}, policy)
		exs, err := source.Collect(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, ex := range exs {
			got = append(got, ex.Index)
		}
		var want []int
		for i := range 12 {
			if !slices.Contains(bad, i) {
				want = append(want, i)
			}
		}
		if !slices.Equal(got, want) || !slices.Equal(reported, bad) {
			t.Errorf("threads %d: decoded %v, skipped %v; want %v and %v", threads, got, reported, want, bad)
		}
		if sc, ok := d.(source.SkipCounted); !ok || sc.Skipped() != int64(len(bad)) {
			t.Errorf("threads %d: Skipped() = %v", threads, d)
		}

		_, err = source.Collect(t.Context(), imagerec.Decode(recordio.Open(rec), nil, decode.Options{}, nil))
		var re *tensorfeed.Error
		if !errors.As(err, &re) || re.Record != 2 {
			t.Errorf("threads %d, no policy: %v, want the error of record 2", threads, err)
		}
	}
	// A broken framing after the records is structural: not skipped.
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, append(b, 1, 2, 3, 4, 5, 6, 7, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = source.Collect(t.Context(), imagerec.Decode(recordio.Open(rec), nil, decode.Options{}, source.SkipBad(1)))
	if !errors.Is(err, recordio.ErrFormat) {
		t.Errorf("framing error with SkipBad(1): %v, want it to end the pass", err)
	}
}

// mixedRec writes n records of the MNIST test file with the records at the
// bad positions broken (recimages.Mixed) and returns the .rec path and the
// offsets of all records.
func mixedRec(t *testing.T, n int, bad ...int) (rec string, offs []int64) {
	t.Helper()
	all, _ := recimages.Mixed(recimages.Records(t, tdPath(mnistJPG, ".rec")), n, bad...)
	return recimages.WriteRec(t, all...)
}
