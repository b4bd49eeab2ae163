package mnist_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/badinput"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// rawSums returns the pixel sum of every image and every label, computed
// from the gunzipped bytes without the package.
func rawSums(t testing.TB, set string) (sums []int, labels []byte) {
	img := gunzipBytes(t, set+"-images-idx3-ubyte")
	lab := gunzipBytes(t, set+"-labels-idx1-ubyte")
	n := int(binary.BigEndian.Uint32(lab[4:]))
	sums = make([]int, n)
	for i := range n {
		for _, b := range img[16+i*784 : 16+(i+1)*784] {
			sums[i] += int(b)
		}
	}
	return sums, lab[8:]
}

func collect(t testing.TB, r source.Reader[mnist.Sample]) []mnist.Sample {
	t.Helper()
	s, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRealFiles(t *testing.T) {
	for _, tt := range []struct {
		set        string
		ds         *mnist.Dataset
		n          int
		first      []uint8
		firstSums  []int
		totalSum   int
		histogram  [10]int
		lastLabel  uint8
		lastPixSum int
	}{
		{"train", mnist.Train(dataDir), 60000, []uint8{5, 0, 4, 1, 9}, []int{27525, 31095, 19443, 17135, 23214}, 1567298545,
			[10]int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}, 8, 20920},
		{"t10k", mnist.Test(dataDir), 10000, []uint8{7, 2, 1, 0, 4}, []int{18454, 28850, 9871, 37014, 19237}, 264923200,
			[10]int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}, 6, 41833},
	} {
		t.Run(tt.set, func(t *testing.T) {
			got := collect(t, tt.ds)
			if len(got) != tt.n {
				t.Fatalf("%d samples, want %d", len(got), tt.n)
			}
			if n, err := tt.ds.Len(); err != nil || n != tt.n {
				t.Errorf("Len = %d, %v", n, err)
			}
			sums, labels := rawSums(t, tt.set)
			var hist [10]int
			total := 0
			for i, s := range got {
				if s.Index != i || s.Label != labels[i] || s.Sum() != sums[i] {
					t.Fatalf("sample %d: index %d label %d sum %d, want label %d sum %d", i, s.Index, s.Label, s.Sum(), labels[i], sums[i])
				}
				hist[s.Label]++
				total += s.Sum()
			}
			for i, l := range tt.first {
				if got[i].Label != l || got[i].Sum() != tt.firstSums[i] {
					t.Errorf("sample %d: label %d sum %d, want %d %d", i, got[i].Label, got[i].Sum(), l, tt.firstSums[i])
				}
			}
			last := got[len(got)-1]
			if hist != tt.histogram || total != tt.totalSum || last.Label != tt.lastLabel || last.Sum() != tt.lastPixSum {
				t.Errorf("histogram %v total %d last %d/%d", hist, total, last.Label, last.Sum())
			}
		})
	}
}

func TestFirstTrainImageLooksLikeAFive(t *testing.T) {
	s := collect(t, stageTake(mnist.Train(dataDir), 1))[0]
	// Check a few pixel values against the gunzipped file's first bytes.
	img := make([]byte, 16+784)
	if _, err := io.ReadFull(gunzipped(t, "train-images-idx3-ubyte"), img); err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{0, 200, 350, 400, 783} {
		if s.Image[p] != img[16+p] {
			t.Errorf("pixel %d = %d, want %d", p, s.Image[p], img[16+p])
		}
	}
	if s.Image[0] != 0 || s.Image[783] != 0 {
		t.Errorf("corner pixels %d %d, want background", s.Image[0], s.Image[783])
	}
}

// stageTake keeps the first n samples of r (written here so that the test
// depends on this package alone).
func stageTake(r source.Reader[mnist.Sample], n int) source.Reader[mnist.Sample] {
	return source.Func[mnist.Sample](func(ctx context.Context) iter.Seq2[mnist.Sample, error] {
		return func(yield func(mnist.Sample, error) bool) {
			i := 0
			for s, err := range r.All(ctx) {
				if i == n || !yield(s, err) || err != nil {
					return
				}
				i++
			}
		}
	})
}

func TestGzipAndPlainAreIdentical(t *testing.T) {
	plain := collect(t, mnist.Test(plainT10k(t)))
	zipped := collect(t, mnist.Test(dataDir))
	if len(plain) != 10000 || !slices.Equal(plain, zipped) {
		t.Fatalf("plain (%d) and gzipped (%d) samples differ", len(plain), len(zipped))
	}
	// New with explicit paths, one plain and one gzipped, reads the same.
	dir := plainT10k(t)
	mixed := collect(t, mnist.New(filepath.Join(dir, "t10k-images-idx3-ubyte"), gz("t10k-labels-idx1-ubyte")))
	if !slices.Equal(mixed, zipped) {
		t.Fatal("mixed plain/gzipped samples differ")
	}
}

func TestShard(t *testing.T) {
	dir := plainT10k(t)
	all := collect(t, mnist.Test(dir))
	for _, shards := range []int{1, 2, 3, 7} {
		seen := make([]int, len(all))
		for i := range shards {
			for _, shuffle := range []bool{false, true} {
				opts := []mnist.Option{mnist.Shard(shards, i)}
				if shuffle {
					opts = append(opts, mnist.Shuffle(9))
				}
				ds := mnist.Test(dir, opts...)
				got := collect(t, ds)
				n, err := ds.Len()
				if err != nil || n != len(got) {
					t.Errorf("shard %d/%d: Len %d, %v; pass %d", i, shards, n, err, len(got))
				}
				if d := len(got) - len(all)/shards; d < 0 || d > 1 {
					t.Errorf("shard %d/%d has %d samples", i, shards, len(got))
				}
				for _, s := range got {
					if s != all[s.Index] {
						t.Fatalf("shard %d/%d: sample %d differs from the full pass", i, shards, s.Index)
					}
					if !shuffle {
						seen[s.Index]++
					}
				}
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d shards: sample %d is in %d shards", shards, i, c)
			}
		}
	}
}

func TestShuffle(t *testing.T) {
	dir := plainT10k(t)
	ds := mnist.Test(dir, mnist.Shuffle(42))
	e0 := collect(t, ds)
	e1 := collect(t, ds)
	again := collect(t, mnist.Test(dir, mnist.Shuffle(42)))
	other := collect(t, mnist.Test(dir, mnist.Shuffle(43)))
	fixed := collect(t, epoch(mnist.Test(dir, mnist.Shuffle(42)), 1))
	if !slices.Equal(e0, again) {
		t.Error("same seed, same epoch: different orders")
	}
	if slices.Equal(e0, e1) || slices.Equal(e0, other) {
		t.Error("epochs or seeds give the same order")
	}
	if !slices.Equal(e1, fixed) {
		t.Error("epoch 1 from the counter differs from epoch 1 from the context")
	}
	plain := collect(t, mnist.Test(dir))
	for _, perm := range [][]mnist.Sample{e0, e1, other} {
		seen := make([]bool, len(plain))
		for _, s := range perm {
			if seen[s.Index] || s != plain[s.Index] {
				t.Fatalf("sample %d repeated or changed", s.Index)
			}
			seen[s.Index] = true
		}
		if len(perm) != len(plain) {
			t.Fatalf("%d samples, want %d", len(perm), len(plain))
		}
	}
	inOrder := 0
	for i, s := range e0 {
		if s.Index == i {
			inOrder++
		}
	}
	if inOrder > 50 {
		t.Errorf("%d samples kept their place", inOrder)
	}
}

func TestPrefetch(t *testing.T) {
	want := collect(t, mnist.Test(dataDir))
	ds := mnist.Test(dataDir, mnist.Prefetch(64))
	if got := collect(t, ds); !slices.Equal(got, want) {
		t.Fatalf("prefetched pass differs (%d samples)", len(got))
	}
	// Early break and cancellation stop the reading goroutine (goleak).
	sourcetest.BreakAfter(t, ds, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var last error
	for _, err := range ds.All(ctx) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 100 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) || n >= 10000 {
		t.Errorf("cancelled pass: %d samples, error %v", n, last)
	}
}

func TestCancel(t *testing.T) {
	for _, opts := range [][]mnist.Option{nil, {mnist.Shuffle(1)}} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		var last error
		for _, err := range mnist.Test(dataDir, opts...).All(ctx) {
			if err != nil {
				last = err
				break
			}
			if n++; n == 300 {
				cancel()
			}
		}
		if !errors.Is(last, context.Canceled) || n > 300+256 {
			t.Errorf("cancelled pass: %d samples, error %v", n, last)
		}
	}
}

func TestMissingFiles(t *testing.T) {
	_, err := source.Count(context.Background(), mnist.Train(t.TempDir()))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "train-images-idx3-ubyte.gz") {
		t.Errorf("missing files: %v", err)
	}
	_, err = source.Count(context.Background(), mnist.New("nope-images", gz("t10k-labels-idx1-ubyte")))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := mnist.Test(t.TempDir()).Len(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Len of missing files: %v", err)
	}
}

func TestDottedNames(t *testing.T) {
	dir := plainT10k(t)
	for _, n := range []string{"images-idx3-ubyte", "labels-idx1-ubyte"} {
		if err := os.Rename(filepath.Join(dir, "t10k-"+n), filepath.Join(dir, "t10k-"+strings.Replace(n, "-idx", ".idx", 1))); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := source.Count(context.Background(), mnist.Test(dir)); n != 10000 || err != nil {
		t.Errorf("dotted names: %d, %v", n, err)
	}
}

// badCase makes a pair of files in dir from the real t10k files and says
// which error the pass must give.
type badCase struct {
	name     string
	images   func(b []byte) []byte
	labels   func(b []byte) []byte
	file     string // which file the error names
	msg      string
	offset   int64
	cause    error
	maxYield int // samples a pass may yield before the error
}

func TestBadFiles(t *testing.T) {
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")
	lab := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	keep := func(b []byte) []byte { return b }
	zipped, err := os.ReadFile(gz("t10k-images-idx3-ubyte"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []badCase{
		{name: "truncated images", images: func(b []byte) []byte { return b[:5_000_000] }, labels: keep,
			file: "images", msg: "record 6377 of 10000", offset: 5_000_000, cause: io.ErrUnexpectedEOF, maxYield: 6377},
		{name: "truncated labels", images: keep, labels: func(b []byte) []byte { return b[:len(b)-1] },
			file: "labels", msg: "record 9999 of 10000", offset: 10007, cause: io.ErrUnexpectedEOF, maxYield: 9999},
		{name: "label count differs", images: keep, labels: func(b []byte) []byte {
			c := slices.Clone(b[:len(b)-1])
			binary.BigEndian.PutUint32(c[4:], 9999)
			return c
		}, file: "labels", msg: "9999 labels for 10000 images", offset: 4},
		{name: "images and labels swapped", images: func([]byte) []byte { return lab }, labels: func([]byte) []byte { return img },
			file: "images", msg: "magic 0x00000801 is not MNIST images"},
		{name: "wrong magic", images: func(b []byte) []byte {
			c := slices.Clone(b)
			c[0] = 0x1f
			return c
		}, labels: keep, file: "images", msg: "bad magic"},
		{name: "images not 28x28", images: func(b []byte) []byte {
			c := slices.Clone(b)
			binary.BigEndian.PutUint32(c[8:], 14)
			binary.BigEndian.PutUint32(c[12:], 56)
			return c
		}, labels: keep, file: "images", msg: "images of 14x56", offset: 8},
		{name: "empty labels", images: keep, labels: func([]byte) []byte { return nil }, file: "labels", msg: "empty file"},
		{name: "gzip cut in the middle", images: func([]byte) []byte { return zipped[:800_000] }, labels: keep,
			file: "images", msg: "gzip", cause: io.ErrUnexpectedEOF, offset: -1, maxYield: 9999},
		{name: "extra image data", images: func(b []byte) []byte { return append(slices.Clone(b), 1, 2, 3) }, labels: keep,
			file: "images", msg: "after the last record", offset: int64(len(img)), maxYield: 10000},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ip := writeFile(t, dir, "images", tt.images(img))
			lp := writeFile(t, dir, "labels", tt.labels(lab))
			for oi, opts := range [][]mnist.Option{nil, {mnist.Shuffle(3)}, {mnist.Prefetch(16)}} {
				n := 0
				var got error
				for _, err := range mnist.New(ip, lp, opts...).All(context.Background()) {
					if err != nil {
						if got != nil {
							t.Fatal("a second error")
						}
						got = err
						continue
					}
					n++
				}
				if got == nil {
					t.Fatalf("options %d: no error after %d samples", oi, n)
				}
				if n > tt.maxYield {
					t.Errorf("%d samples before the error, want at most %d", n, tt.maxYield)
				}
				checkFormatError(t, got, filepath.Join(dir, tt.file), tt.msg, tt.offset, tt.cause)
			}
		})
	}
}

func checkFormatError(t *testing.T, err error, file, msg string, offset int64, cause error) {
	t.Helper()
	var fe *mnist.FormatError
	if !errors.Is(err, mnist.ErrFormat) || !errors.As(err, &fe) {
		t.Fatalf("error %v is not a FormatError wrapping ErrFormat", err)
	}
	if fe.File != file || (offset >= 0 && fe.Offset != offset) || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q: want file %s, offset %d, %q", err, file, offset, msg)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Errorf("error %v does not wrap %v", err, cause)
	}
}

func TestShuffledBadFileYieldsNothing(t *testing.T) {
	dir := t.TempDir()
	ip := writeFile(t, dir, "images", gunzipBytes(t, "t10k-images-idx3-ubyte")[:5_000_000])
	n := 0
	for _, err := range mnist.New(ip, gz("t10k-labels-idx1-ubyte"), mnist.Shuffle(1)).All(context.Background()) {
		if err == nil {
			n++
		}
	}
	if n != 0 {
		t.Errorf("a shuffled pass over a truncated file yielded %d samples", n)
	}
}

func TestOptionsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"shards 0":        func() { mnist.Shard(0, 0) },
		"shard index = n": func() { mnist.Shard(2, 2) },
		"shard index < 0": func() { mnist.Shard(2, -1) },
		"prefetch 0":      func() { mnist.Prefetch(0) },
		"unknown scaling": func() { mnist.Scaling(mnist.Scale(9)) },
		"classes 0":       func() { mnist.Classes(0) },
		"classes 257":     func() { mnist.Classes(257) },
		"skip fraction 2": func() { mnist.SkipBad(2) },
		"max record 0":    func() { mnist.MaxRecordBytes(0) },
		"max file 0":      func() { mnist.MaxFileBytes(0) },
		"input size -1":   func() { mnist.InputSize(-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestFillImage(t *testing.T) {
	s := mnist.Sample{Label: 7}
	s.Image[0], s.Image[1], s.Image[783] = 255, 128, 1
	for _, tt := range []struct {
		opts  []mnist.Option
		shape []int
		want  [3]float32 // pixels 0, 1, 783
	}{
		{nil, []int{1, 28, 28}, [3]float32{1, 128.0 / 255, 1.0 / 255}},
		{[]mnist.Option{mnist.Flat(), mnist.Scaling(mnist.ScaleMXNet)}, []int{784}, [3]float32{255.0 / 256, 0.5, 1.0 / 256}},
		{[]mnist.Option{mnist.Scaling(mnist.ScaleSymmetric)}, []int{1, 28, 28}, [3]float32{1, float32(128.0/255*2 - 1), float32(1.0/255*2 - 1)}},
		{[]mnist.Option{mnist.Scaling(mnist.ScaleRaw)}, []int{1, 28, 28}, [3]float32{255, 128, 1}},
	} {
		ds := mnist.Test(dataDir, tt.opts...)
		if !slices.Equal(ds.ImageShape(), tt.shape) {
			t.Errorf("shape %v, want %v", ds.ImageShape(), tt.shape)
		}
		dst := make([]float32, 784)
		for i := range dst {
			dst[i] = -99
		}
		ds.FillImage(s, dst)
		if got := [3]float32{dst[0], dst[1], dst[783]}; got != tt.want {
			t.Errorf("pixels %v, want %v", got, tt.want)
		}
		bg := mnist.ScaleUnit.Value(0)
		if len(tt.opts) > 0 {
			bg = dst[2]
		}
		if dst[2] != bg || dst[500] != bg {
			t.Errorf("background %v %v", dst[2], dst[500])
		}
	}
	var l [1]float32
	mnist.FillLabel(s, l[:])
	var li [1]int32
	mnist.FillLabelInt32(s, li[:])
	if l[0] != 7 || li[0] != 7 {
		t.Errorf("labels %v %v", l, li)
	}
}

func TestScale(t *testing.T) {
	for _, tt := range []struct {
		s      mnist.Scale
		name   string
		lo, hi float32
	}{
		{mnist.ScaleUnit, "unit", 0, 1},
		{mnist.ScaleMXNet, "mxnet", 0, 255.0 / 256},
		{mnist.ScaleSymmetric, "symmetric", -1, 1},
		{mnist.ScaleRaw, "raw", 0, 255},
	} {
		if tt.s.String() != tt.name || tt.s.Value(0) != tt.lo || tt.s.Value(255) != tt.hi {
			t.Errorf("%v: [%v, %v], want %s [%v, %v]", tt.s, tt.s.Value(0), tt.s.Value(255), tt.name, tt.lo, tt.hi)
		}
		for x := 1; x < 256; x++ {
			if tt.s.Value(uint8(x)) <= tt.s.Value(uint8(x-1)) {
				t.Fatalf("%v is not increasing at %d", tt.s, x)
			}
		}
	}
	if mnist.Scale(7).String() != "Scale(7)" {
		t.Error(mnist.Scale(7).String())
	}
}

// epoch runs every pass of r as the given epoch.
func epoch(r source.Reader[mnist.Sample], e int) source.Reader[mnist.Sample] {
	return source.Func[mnist.Sample](func(ctx context.Context) iter.Seq2[mnist.Sample, error] {
		return r.All(source.WithEpoch(ctx, e))
	})
}

func TestSink(t *testing.T) {
	ds := mnist.Test(dataDir, mnist.Flat(), mnist.Scaling(mnist.ScaleSymmetric))
	s := ds.Sink(4)
	if d := s.ProvideData(); len(d) != 1 || d[0].Name != "data" || !slices.Equal(d[0].Shape, []int{4, 784}) {
		t.Errorf("provide data %v", d)
	}
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")
	for ts, err := range sink.Tensorize(ds, s, batch.Keep).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		data, _ := ts.Get("data")
		label, _ := ts.Get("softmax_label")
		if !slices.Equal(label.F32, []float32{7, 2, 1, 0}) || !slices.Equal(label.Shape, []int{4}) {
			t.Errorf("labels %v %v", label.Shape, label.F32)
		}
		for i, v := range data.F32 {
			if want := float32(float64(img[16+i])/255*2 - 1); v != want {
				t.Fatalf("value %d = %v, want %v", i, v, want)
			}
		}
		break
	}
}

func TestLogger(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
	ds := mnist.Test(dataDir, mnist.Shard(10, 9))
	if n, err := source.Count(ctx, ds); n != 1000 || err != nil {
		t.Fatal(n, err)
	}
	if logs.Len() != 1 {
		t.Fatalf("%d log entries", logs.Len())
	}
	m := logs.All()[0].ContextMap()
	if m["start"] != int64(9000) || m["end"] != int64(10000) || m["gzip"] != true {
		t.Errorf("log fields %v", m)
	}
}

func TestNilLoggerMeansNone(t *testing.T) {
	ctx := tensorfeed.WithLogger(context.Background(), nil)
	n, err := source.Count(ctx, mnist.Test(dataDir))
	if err != nil || n != 10000 {
		t.Fatalf("Count = %d, %v; want 10000 samples", n, err)
	}
}

// TestContract checks the datasets against the contract of source.Reader,
// on shards small enough for the several passes it runs.
func TestContract(t *testing.T) {
	plain := plainT10k(t)
	for name, ds := range map[string]*mnist.Dataset{
		"test shard":           mnist.Test(dataDir, mnist.Shard(20, 3)),
		"train shard":          mnist.Train(dataDir, mnist.Shard(120, 0)),
		"last shard, shuffled": mnist.Test(plain, mnist.Shard(20, 19), mnist.Shuffle(5)),
		"prefetch":             mnist.Test(plain, mnist.Shard(20, 7), mnist.Prefetch(16)),
		// Nines are bad records, skipped: a state counts positions among
		// the good samples.
		"skipped, shuffled": mnist.Test(plain, mnist.Shard(20, 4), mnist.Shuffle(6), mnist.Classes(9), mnist.SkipBad(0.2)),
		"skipped, in order": mnist.Test(plain, mnist.Shard(20, 4), mnist.Classes(9), mnist.SkipBad(0.2)),
	} {
		if err := sourcetest.TestReader(ds); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A pass that fails keeps the contract too: the error comes once, last.
	dir := t.TempDir()
	ip := writeFile(t, dir, "images.gz", badinput.Gzip(gunzipBytes(t, "t10k-images-idx3-ubyte")[:16+784*700+100]))
	if err := sourcetest.TestReader(mnist.New(ip, gz("t10k-labels-idx1-ubyte"))); err != nil {
		t.Errorf("truncated images: %v", err)
	}
}
