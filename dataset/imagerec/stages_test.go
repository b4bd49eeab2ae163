package imagerec_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/internal/testkit/recimages"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func collect(t *testing.T, r source.Reader[imagerec.Example]) []imagerec.Example {
	t.Helper()
	out, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Decode gives the records' ids, labels and images in order, for any
// number of threads.
func TestDecodeStage(t *testing.T) {
	path := tdPath("mnist_t10k_1000_png_gray", ".rec")
	rows := recimages.ReadTSV(t, tdPath("mnist_t10k_1000_png_gray", ".records.tsv"))
	one := collect(t, stage.Take(imagerec.Decode(recordio.Open(path), nil, decode.Options{}, nil), 300))
	three := collect(t, stage.Take(stage.ParallelMap(recordio.Open(path), 3, func(r recordio.Record) (imagerec.Example, error) {
		return imagerec.DecodeRecord(r, nil, decode.Options{})
	}), 300))
	if len(one) != 300 || !reflect.DeepEqual(one, three) {
		t.Fatalf("1 and 3 threads differ (%d, %d examples)", len(one), len(three))
	}
	for i, ex := range one {
		if ex.Index != i || ex.ID != rows[i].ID || !slices.Equal(ex.Label, []float32{rows[i].HeaderLabel}) || ex.Image.Channels != 1 {
			t.Fatalf("example %d: %+v", i, ex)
		}
	}
	// Labels from a .lst by id: a map of the entries, applied by the
	// pipeline (compat/mxnet's path_imglist does the same inside).
	entries, err := imagerec.ReadList(tdPath("mnist_t10k_1000_jpg_multilabel", ".lst"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[uint64][]float32{}
	for _, e := range entries {
		byID[e.Index] = e.Labels[:2]
	}
	decoded := pipeline.From(imagerec.Decode(recordio.Open(path), nil, decode.Options{Channels: 3}, nil)).Take(5)
	exs := collect(t, pipeline.Map(decoded, func(ex imagerec.Example) imagerec.Example { ex.Label = byID[ex.ID]; return ex }))
	for i, ex := range exs {
		if !slices.Equal(ex.Label, entries[i].Labels[:2]) || ex.Image.Channels != 3 {
			t.Errorf("example %d: labels %v, channels %d", i, ex.Label, ex.Image.Channels)
		}
	}
}

// A bad record ends Decode's pass with a *tensorfeed.Error; records before it
// come first.
func TestDecodeStageError(t *testing.T) {
	good := recimages.Records(t, tdPath(mnistJPG, ".rec"))
	bad := append([]byte(nil), good[1].Data[:40]...)
	path, offs := recimages.WriteRec(t, good[0].Data, bad, good[2].Data)
	for _, threads := range []int{1} { // one goroutine: Decode has no others
		var got []imagerec.Example
		var err error
		for ex, e := range imagerec.Decode(recordio.Open(path), nil, decode.Options{}, nil).All(context.Background()) {
			if e != nil {
				err = e
				break
			}
			got = append(got, ex)
		}
		var re *tensorfeed.Error
		if len(got) != 1 || !errors.As(err, &re) || re.Record != 1 || re.Offset != offs[1] || !errors.Is(err, decode.ErrImage) {
			t.Errorf("%d threads: %d examples, then %v", threads, len(got), err)
		}
	}
}

// Augment's output depends on the seed, the epoch and the example, not on
// the number of threads.
func TestAugmentStage(t *testing.T) {
	path := tdPath("mnist_t10k_1000_png_gray", ".rec")
	src := stage.Take(imagerec.Decode(recordio.Open(path), nil, decode.Options{Channels: 3}, nil), 200)
	augs := []augment.Aug{augment.RandomCrop(20, 20), augment.RandomMirror(), augment.ColorJitter(5, 5, 5)}
	r1 := imagerec.Augment(src, augment.Compose(augs...), 9)
	r4 := imagerec.Augment(src, augment.Compose(augs...), 9)
	a0, a1 := collect(t, r1), collect(t, r1)
	b0, b1 := collect(t, r4), collect(t, r4)
	if !reflect.DeepEqual(a0, b0) || !reflect.DeepEqual(a1, b1) {
		t.Fatal("1 and 4 threads differ")
	}
	if reflect.DeepEqual(a0, a1) {
		t.Error("epochs 0 and 1 are the same")
	}
	// The epoch can come from the context.
	e1, err := source.Collect(source.WithEpoch(context.Background(), 1), imagerec.Augment(src, augment.Compose(augs...), 9))
	if err != nil || !reflect.DeepEqual(e1, a1) {
		t.Errorf("epoch 1 from the context differs from the second pass: %v", err)
	}
	if a0[0].Image.Width != 20 || a0[0].ID != 0 || a0[199].Index != 199 {
		t.Errorf("first example %v id %d", a0[0].Image.Shape(), a0[0].ID)
	}
}

// An error from a step names the example; a panic in a step becomes a
// *tensorfeed.PanicError under the pipeline's ParallelMap.
func TestAugmentStageErrors(t *testing.T) {
	src := stage.Take(imagerec.Decode(recordio.Open(tdPath(mnistJPG, ".rec")), nil, decode.Options{}, nil), 20)
	_, err := source.Collect(context.Background(), imagerec.Augment(src, augment.Compose(augment.CenterCrop(30, 30)), 0))
	if !errors.Is(err, decode.ErrSize) || !strings.Contains(err.Error(), "example 0 (id 0)") {
		t.Errorf("crop too large: %v", err)
	}
	boom := func(img sample.Image, r *rand.Rand) (sample.Image, error) { panic("boom") }
	_, err = source.Collect(context.Background(), stage.ParallelMap(imagerec.Augment(src, augment.Compose(boom), 0), 2,
		func(ex imagerec.Example) (imagerec.Example, error) { return ex, nil }))
	var pe *tensorfeed.PanicError
	if !errors.As(err, &pe) {
		t.Errorf("panic in a step: %v", err)
	}
}

// Decode and Augment keep the contract of every stage, with bad records
// skipped or not.
func TestStagesContract(t *testing.T) {
	recs := recimages.Records(t, tdPath(mnistJPG, ".rec"))[:50]
	input := func(i int) recordio.Record {
		r := recs[i%len(recs)]
		r.Index = i
		return r
	}
	augs := augment.Compose(augment.RandomCrop(24, 24), augment.RandomMirror())
	for name, st := range map[string]func(source.Reader[recordio.Record]) source.Reader[imagerec.Example]{
		"decode": func(r source.Reader[recordio.Record]) source.Reader[imagerec.Example] {
			return imagerec.Decode(r, nil, decode.Options{}, nil)
		},
		"decode skip": func(r source.Reader[recordio.Record]) source.Reader[imagerec.Example] {
			return imagerec.Decode(r, nil, decode.Options{}, source.SkipBad(0.5))
		},
		"augment": func(r source.Reader[recordio.Record]) source.Reader[imagerec.Example] {
			return imagerec.Augment(imagerec.Decode(r, nil, decode.Options{Channels: 3}, nil), augs, 3)
		},
	} {
		if err := sourcetest.TestStage(st, input); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
