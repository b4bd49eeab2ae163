package mnist_test

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// refSamples collects a pass of ds.Refs() as copies.
func refSamples(t testing.TB, ds *mnist.Dataset, e int) ([]mnist.Sample, error) {
	t.Helper()
	var out []mnist.Sample
	for r, err := range ds.Refs().All(source.WithEpoch(context.Background(), e)) {
		if err != nil {
			return out, err
		}
		out = append(out, r.Sample())
	}
	return out, nil
}

// TestRefsSameSamples checks that Refs yields the samples of the
// dataset's own passes, in the same order, for every option that changes
// what a pass yields, on both epochs of a shuffle.
func TestRefsSameSamples(t *testing.T) {
	plain := plainT10k(t)
	for name, opts := range map[string][]mnist.Option{
		"in order":     nil,
		"shuffled":     {mnist.Shuffle(3)},
		"shuffle once": {mnist.ShuffleOnce(3)},
		"shard":        {mnist.Shard(7, 3)},
		"last shard":   {mnist.Shard(7, 6), mnist.Shuffle(9)},
		"prefetch":     {mnist.Prefetch(8), mnist.Shuffle(1)},
		"classes":      {mnist.Classes(5), mnist.SkipBad(0.6)},
	} {
		dirs := []string{plain}
		if name == "shuffled" || name == "in order" { // the gzipped files too
			dirs = append(dirs, dataDir)
		}
		for _, dir := range dirs {
			for e := range 2 {
				ds := mnist.Test(dir, opts...)
				want := collect(t, epoch(ds, e))
				got, err := refSamples(t, ds, e)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, %s, epoch %d: Refs differ from the dataset's samples (%d and %d)", name, dir, e, len(got), len(want))
				}
			}
		}
	}
}

// TestRefsContract checks Refs against the contract of source.Reader.
func TestRefsContract(t *testing.T) {
	plain := plainT10k(t)
	for name, ds := range map[string]*mnist.Dataset{
		"shard":          mnist.Test(dataDir, mnist.Shard(20, 3)),
		"last, shuffled": mnist.Test(plain, mnist.Shard(20, 19), mnist.Shuffle(5)),
		"prefetch":       mnist.Test(plain, mnist.Shard(20, 7), mnist.Prefetch(16)),
	} {
		if err := sourcetest.TestReader(ds.Refs()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	dir := t.TempDir()
	ip := writeFile(t, dir, "images", gunzipBytes(t, "t10k-images-idx3-ubyte")[:16+784*700+100])
	ds := mnist.New(ip, gz("t10k-labels-idx1-ubyte"))
	if err := sourcetest.TestReader(ds.Refs()); err != nil {
		t.Errorf("truncated images: %v", err)
	}
	_, err := refSamples(t, ds, 0)
	if !errors.Is(err, tensorfeed.ErrBadData) {
		t.Errorf("truncated images: %v, want bad data", err)
	}
}

// TestRefsBadLabel checks that a bad label fails a pass of Refs with the
// error of the dataset's own pass, and is skipped alike under SkipBad.
func TestRefsBadLabel(t *testing.T) {
	lp := badLabelFile(t)
	for _, opts := range [][]mnist.Option{nil, {mnist.Shuffle(2)}} {
		ds := mnist.New(gz("t10k-images-idx3-ubyte"), lp, opts...)
		_, want := source.Collect(context.Background(), ds)
		_, got := refSamples(t, ds, 0)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("Refs: %v; dataset: %v", got, want)
		}
		skip := mnist.New(gz("t10k-images-idx3-ubyte"), lp, append(opts, mnist.SkipBad(0.01))...)
		wantS := collect(t, skip)
		gotS, err := refSamples(t, skip, 0)
		if err != nil || !slices.Equal(gotS, wantS) {
			t.Errorf("skipping: %v, %d and %d samples", err, len(gotS), len(wantS))
		}
	}
}

// TestFastPathSameBytes runs the fast path (Refs of a cached, shuffled
// pass, the sink's RefImageField) and the straightforward one (the
// files read in order, each pixel converted by Scale.Value) over the real
// training and test files, and checks that every tensor holds the same
// bits.
func TestFastPathSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the 60,000 training digits")
	}
	for _, c := range []struct {
		set    func(string, ...mnist.Option) *mnist.Dataset
		scales []mnist.Scale
		epochs int
	}{
		{mnist.Train, []mnist.Scale{mnist.ScaleSymmetric}, 1},
		{mnist.Test, []mnist.Scale{mnist.ScaleUnit, mnist.ScaleMXNet, mnist.ScaleRaw}, 2},
	} {
		set := c.set
		for _, sc := range c.scales {
			ds := set(dataDir, mnist.Flat(), mnist.Scaling(sc), mnist.Shuffle(11))
			byIndex := collect(t, set(dataDir)) // in the files' order, no cache
			s := sink.New(100,
				[]sink.Field[mnist.Ref]{ds.RefImageField("image")},
				[]sink.Field[mnist.Ref]{sink.Int32("label", nil, mnist.FillRefLabelInt32).WritesAll(),
					sink.Int64("index", nil, func(r mnist.Ref, dst []int64) { dst[0] = int64(r.Index) }).WritesAll()})
			n := 0
			var row [mnist.Pixels]uint32
			for e := range c.epochs { // a second epoch reads the cache, into recycled tensors
				for b, err := range sink.Tensorize(ds.Refs(), s, batch.Keep).All(source.WithEpoch(context.Background(), e)) {
					if err != nil {
						t.Fatal(err)
					}
					img, _ := b.Get("image")
					lab, _ := b.Get("label")
					idx, _ := b.Get("index")
					for r, i := range idx.I64 {
						want := byIndex[i]
						if lab.I32[r] != int32(want.Label) {
							t.Fatalf("%v: sample %d: label %d, want %d", sc, i, lab.I32[r], want.Label)
						}
						for k, p := range want.Image {
							row[k] = math.Float32bits(sc.Value(p))
						}
						for k, got := range img.F32[r*mnist.Pixels : (r+1)*mnist.Pixels] {
							if math.Float32bits(got) != row[k] {
								t.Fatalf("%v: sample %d, pixel %d: %v, want %v", sc, i, k, got, math.Float32frombits(row[k]))
							}
						}
						n++
					}
					b.Release()
				}
			}
			if n != c.epochs*len(byIndex) {
				t.Errorf("%d samples in %d epochs of %d", n, c.epochs, len(byIndex))
			}
		}
	}
}

// TestCacheSeesChangedFiles checks that a shuffled pass reads a file again
// when it changes (its size or modification time), and that
// SetCacheBytes(0) turns the cache off.
func TestCacheSeesChangedFiles(t *testing.T) {
	dir := t.TempDir()
	labels := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	ip := gunzipTo(t, dir, "t10k-images-idx3-ubyte")
	lp := writeFile(t, dir, "labels", labels)
	ds := mnist.New(ip, lp, mnist.Shuffle(1))
	first := collect(t, ds)
	// The same size, another label and another modification time.
	changed := slices.Clone(labels)
	changed[8] = (changed[8] + 1) % 10
	writeFile(t, dir, "labels", changed)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(lp, later, later); err != nil {
		t.Fatal(err)
	}
	second := collect(t, ds)
	if got, want := labelOf(second, 0), (labelOf(first, 0)+1)%10; got != want {
		t.Errorf("label of sample 0 after the change: %d, want %d", got, want)
	}

	defer mnist.SetCacheBytes(mnist.SetCacheBytes(0))
	changed[8] = (changed[8] + 1) % 10
	writeFile(t, dir, "labels", changed)
	if err := os.Chtimes(lp, later, later); err != nil { // same size and time: only an uncached pass sees it
		t.Fatal(err)
	}
	third := collect(t, ds)
	if got, want := labelOf(third, 0), (labelOf(first, 0)+2)%10; got != want {
		t.Errorf("label of sample 0 without the cache: %d, want %d", got, want)
	}
}

func labelOf(s []mnist.Sample, index int) uint8 {
	for _, x := range s {
		if x.Index == index {
			return x.Label
		}
	}
	return 255
}

func TestSetCacheBytesPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	mnist.SetCacheBytes(-1)
}
