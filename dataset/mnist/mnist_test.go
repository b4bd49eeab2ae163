package mnist_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/pipeline"
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

// The tables of the real sets, loaded once for every test that reads them
// (Load takes them from the decoded-file cache after the first time, but
// the tests that turn the cache off or change its bound are not to pay for
// the next test).
var (
	tablesOnce        sync.Once
	trainTab, t10kTab *mnist.Table
	tablesErr         error
)

func tables(t testing.TB) (train, t10k *mnist.Table) {
	t.Helper()
	tablesOnce.Do(func() {
		if trainTab, tablesErr = mnist.Train(dataDir).Load(context.Background()); tablesErr == nil {
			t10kTab, tablesErr = mnist.Test(dataDir).Load(context.Background())
		}
	})
	if tablesErr != nil {
		t.Fatal(tablesErr)
	}
	return trainTab, t10kTab
}

// samplesOf returns every sample of a table.
func samplesOf(t testing.TB, tab *mnist.Table) []mnist.Sample {
	return collect(t, source.ReadIndexed(tab))
}

// same reports whether two samples have the same pixels, label and index.
func same(a, b mnist.Sample) bool {
	return a.Label == b.Label && a.Index == b.Index && a.Image != nil && b.Image != nil && *a.Image == *b.Image
}

// sameSamples reports whether two lists hold the same samples, in order.
func sameSamples(a, b []mnist.Sample) bool { return slices.EqualFunc(a, b, same) }

func sum(s mnist.Sample) int {
	n := 0
	for _, p := range s.Image {
		n += int(p)
	}
	return n
}

// TestRealFiles checks both real sets: the training set through Load,
// the test set through a pass of the files and through Load, which must
// agree. Each set's images and labels, in order, hash to the SHA-256 of
// the gunzipped files' data (zcat F.gz | tail -c +17 | sha256sum for the
// images, +9 for the labels), so every pixel and label is the file's;
// the test set's samples are also compared one by one with the gunzipped
// bytes, read without the package. The training set is not gunzipped a
// second time: its hashes say the same.
func TestRealFiles(t *testing.T) {
	train, t10k := tables(t)
	stream := collect(t, mnist.Test(dataDir))
	if !sameSamples(stream, samplesOf(t, t10k)) {
		t.Fatal("the test set's pass and table differ")
	}
	for _, tt := range []struct {
		set        string
		got        []mnist.Sample
		n          int
		images     string // SHA-256 of the images' bytes
		labels     string // SHA-256 of the labels
		first      []uint8
		firstSums  []int
		totalSum   int
		histogram  [10]int
		lastLabel  uint8
		lastPixSum int
	}{
		{"train", samplesOf(t, train), 60000,
			"741c988805d008ac6e4c904b69001ba184c24b2c540a4ef403f4c71b676cf757", "1feba77c54802fa5339a11837ea4b2866434b83314ec45192930f1df69120c13",
			[]uint8{5, 0, 4, 1, 9}, []int{27525, 31095, 19443, 17135, 23214}, 1567298545,
			[10]int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}, 8, 20920},
		{"t10k", stream, 10000,
			"6d87418db22cc8025d05968bec9bd5c3932904b23485740db143a061a2c9d161", "ddeff807876a9661a1110d45c266c86239a3a1b7d37da0c3716a7a683c852ff5",
			[]uint8{7, 2, 1, 0, 4}, []int{18454, 28850, 9871, 37014, 19237}, 264923200,
			[10]int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}, 6, 41833},
	} {
		t.Run(tt.set, func(t *testing.T) {
			got := tt.got
			if len(got) != tt.n {
				t.Fatalf("%d samples, want %d", len(got), tt.n)
			}
			images := sha256.New()
			labels := make([]byte, len(got))
			var hist [10]int
			total := 0
			for i, s := range got {
				if s.Index != i {
					t.Fatalf("sample %d has index %d", i, s.Index)
				}
				images.Write(s.Image[:])
				labels[i] = s.Label
				hist[s.Label]++
				total += sum(s)
			}
			if h := hex.EncodeToString(images.Sum(nil)); h != tt.images {
				t.Errorf("images hash to %s, want %s", h, tt.images)
			}
			if h := sha256.Sum256(labels); hex.EncodeToString(h[:]) != tt.labels {
				t.Errorf("labels hash to %x, want %s", h, tt.labels)
			}
			if tt.set == "t10k" {
				sums, raw := rawSums(t, tt.set)
				for i, s := range got {
					if s.Label != raw[i] || sum(s) != sums[i] {
						t.Fatalf("sample %d: label %d sum %d, want label %d sum %d", i, s.Label, sum(s), raw[i], sums[i])
					}
				}
			}
			for i, l := range tt.first {
				if got[i].Label != l || sum(got[i]) != tt.firstSums[i] {
					t.Errorf("sample %d: label %d sum %d, want %d %d", i, got[i].Label, sum(got[i]), l, tt.firstSums[i])
				}
			}
			last := got[len(got)-1]
			if hist != tt.histogram || total != tt.totalSum || last.Label != tt.lastLabel || sum(last) != tt.lastPixSum {
				t.Errorf("histogram %v total %d last %d/%d", hist, total, last.Label, sum(last))
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
	_, t10k := tables(t)
	zipped := samplesOf(t, t10k)
	dir := plainT10k(t)
	plain := collect(t, mnist.Test(dir))
	if len(plain) != 10000 || !sameSamples(plain, zipped) {
		t.Fatalf("plain (%d) and gzipped (%d) samples differ", len(plain), len(zipped))
	}
	// New with explicit paths, one plain and one gzipped, reads the same.
	tab, err := mnist.New(filepath.Join(dir, "t10k-images-idx3-ubyte"), gz("t10k-labels-idx1-ubyte")).Load(context.Background())
	if err != nil || !sameSamples(samplesOf(t, tab), zipped) {
		t.Fatalf("mixed plain/gzipped samples differ: %v", err)
	}
}

// TestShardIndex: the parts of source.ShardIndex over a table (the rank
// split that replaced the dataset's own Shard) hold every sample of the
// epoch once, in order or shuffled, each the table's.
func TestShardIndex(t *testing.T) {
	_, t10k := tables(t)
	all := samplesOf(t, t10k)
	for _, parts := range []int{1, 3, 7} {
		for _, shuffle := range []bool{false, true} {
			seen := make([]int, len(all))
			for i := range parts {
				opts := []source.IndexedOption{source.ShardIndex(parts, i, source.DropShards)}
				if shuffle {
					opts = append(opts, source.ShuffleIndex(9))
				}
				got := collect(t, source.ReadIndexed(t10k, opts...))
				if len(got) != len(all)/parts {
					t.Errorf("part %d/%d has %d samples", i, parts, len(got))
				}
				for _, s := range got {
					if !same(s, all[s.Index]) {
						t.Fatalf("part %d/%d: sample %d differs from the full pass", i, parts, s.Index)
					}
					seen[s.Index]++
				}
			}
			for i, c := range seen {
				if c > 1 || c == 0 && len(all)%parts == 0 {
					t.Fatalf("%d parts: sample %d is in %d parts", parts, i, c)
				}
			}
		}
	}
}

// TestShuffleIndex: a table read with source.ShuffleIndex (the global
// shuffle that replaced the dataset's Shuffle) gives a permutation of the
// samples, another every epoch and for every seed, the same again for the
// same seed and epoch, whether the epoch comes from the reader's counter
// or from the context.
func TestShuffleIndex(t *testing.T) {
	_, t10k := tables(t)
	r := source.ReadIndexed(t10k, source.ShuffleIndex(42))
	e0 := collect(t, r)
	e1 := collect(t, r)
	again := collect(t, source.ReadIndexed(t10k, source.ShuffleIndex(42)))
	other := collect(t, source.ReadIndexed(t10k, source.ShuffleIndex(43)))
	fixed := collect(t, epoch(source.ReadIndexed(t10k, source.ShuffleIndex(42)), 1))
	if !sameSamples(e0, again) {
		t.Error("same seed, same epoch: different orders")
	}
	if sameSamples(e0, e1) || sameSamples(e0, other) {
		t.Error("epochs or seeds give the same order")
	}
	if !sameSamples(e1, fixed) {
		t.Error("epoch 1 from the counter differs from epoch 1 from the context")
	}
	plain := samplesOf(t, t10k)
	for _, perm := range [][]mnist.Sample{e0, e1, other} {
		seen := make([]bool, len(plain))
		for _, s := range perm {
			if seen[s.Index] || !same(s, plain[s.Index]) {
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

// TestCancel: a pass of the files and a shuffled pass of a table end soon
// after their context is cancelled, with context.Canceled; a pass the
// consumer breaks stops (goleak).
func TestCancel(t *testing.T) {
	_, t10k := tables(t)
	for _, r := range []source.Reader[mnist.Sample]{mnist.Test(dataDir), source.ReadIndexed(t10k, source.ShuffleIndex(1))} {
		sourcetest.BreakAfter(t, r, 10)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		var last error
		for _, err := range r.All(ctx) {
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
	if _, err := mnist.Test(t.TempDir()).Load(context.Background()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of missing files: %v", err)
	}
}

func TestDottedNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"images-idx3-ubyte", "labels-idx1-ubyte"} {
		fixture.WriteFile(t, dir, "t10k-"+strings.Replace(n, "-idx", ".idx", 1), gunzipBytes(t, "t10k-"+n))
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
			ip := fixture.WriteFile(t, dir, "images", tt.images(img))
			lp := fixture.WriteFile(t, dir, "labels", tt.labels(lab))
			n := 0
			var got error
			for _, err := range mnist.New(ip, lp).All(context.Background()) {
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
				t.Fatalf("pass: no error after %d samples", n)
			}
			if n > tt.maxYield {
				t.Errorf("%d samples before the error, want at most %d", n, tt.maxYield)
			}
			checkFormatError(t, got, filepath.Join(dir, tt.file), tt.msg, tt.offset, tt.cause)
			// Load checks the same and gives no table.
			tab, err := mnist.New(ip, lp).Load(context.Background())
			if tab != nil || err == nil {
				t.Fatalf("Load: a table of %d samples, %v", tab.Len(), err)
			}
			checkFormatError(t, err, filepath.Join(dir, tt.file), tt.msg, tt.offset, tt.cause)
		})
	}
}

func checkFormatError(t *testing.T, err error, file, msg string, offset int64, cause error) {
	t.Helper()
	wantFormatError(t, err, file, offset, msg, cause)
}

func TestTruncatedFileLoadsNothing(t *testing.T) {
	dir := t.TempDir()
	ip := fixture.WriteFile(t, dir, "images", gunzipBytes(t, "t10k-images-idx3-ubyte")[:5_000_000])
	tab, err := mnist.New(ip, gz("t10k-labels-idx1-ubyte")).Load(context.Background())
	if tab != nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Load of a truncated file: %v, %v", tab, err)
	}
}

func TestOptionsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"classes 0":   func() { mnist.Classes(0) },
		"classes 257": func() { mnist.Classes(257) },
		"max file 0":  func() { mnist.MaxFileBytes(0) },
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

// epoch runs every pass of r as the given epoch.
func epoch(r source.Reader[mnist.Sample], e int) source.Reader[mnist.Sample] {
	return source.Func[mnist.Sample](func(ctx context.Context) iter.Seq2[mnist.Sample, error] {
		return r.All(source.WithEpoch(ctx, e))
	})
}

// TestSinkOf: a Sample's tags give sink.Of the tensors the package's fill
// functions used to write: the image as float32 [batch 784] in [0, 1]
// (x/255), or in [-1, 1] with sink.Scale, and the label as int32 [batch].
func TestSinkOf(t *testing.T) {
	_, t10k := tables(t)
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")
	for _, tt := range []struct {
		opts   []sink.Option
		lo, hi float32
	}{
		{nil, 0, 1},
		{[]sink.Option{sink.Scale("image", -1, 1)}, -1, 1},
	} {
		s := sink.Of[mnist.Sample](4, tt.opts...)
		if d := s.ProvideData(); len(d) != 1 || d[0].Name != "image" || !slices.Equal(d[0].Shape, []int{4, 784}) {
			t.Errorf("provide data %v", d)
		}
		if l := s.ProvideLabel(); len(l) != 1 || l[0].Name != "label" || !slices.Equal(l[0].Shape, []int{4}) {
			t.Errorf("provide label %v", l)
		}
		for ts, err := range pipeline.Tensorize(pipeline.From(source.ReadIndexed(t10k)), s, batch.Keep).All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			data, _ := ts.Get("image")
			label, _ := ts.Get("label")
			if !slices.Equal(label.I32, []int32{7, 2, 1, 0}) || !slices.Equal(label.Shape, []int{4}) {
				t.Errorf("labels %v %v", label.Shape, label.I32)
			}
			for i, v := range data.F32 {
				want := tt.lo + (tt.hi-tt.lo)*float32(img[16+i])/255
				if d := v - want; d > 1e-6 || d < -1e-6 {
					t.Fatalf("value %d = %v, want %v", i, v, want)
				}
			}
			break
		}
	}
}

func TestLogger(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
	ds := mnist.Test(dataDir)
	r, err := ds.Resume(source.State{Kind: stateKind(t, ds), Pos: []int64{9000}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := source.Count(ctx, r); n != 1000 || err != nil {
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

// stateKind returns the kind of the states of a pass of ds.
func stateKind(t *testing.T, ds *mnist.Dataset) string {
	st, err := ds.StateAt(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st.Kind
}

func TestNilLoggerMeansNone(t *testing.T) {
	ctx := tensorfeed.WithLogger(context.Background(), nil)
	n, err := source.Count(ctx, mnist.Test(dataDir))
	if err != nil || n != 10000 {
		t.Fatalf("Count = %d, %v; want 10000 samples", n, err)
	}
}

// TestContract checks the pass of the files and the reader of a table
// against the contract of source.Reader, resumes included, on sets small
// enough for the several passes it runs.
func TestContract(t *testing.T) {
	dir := t.TempDir()
	images, labels := writeSet(t, dir, "small", 300, 3)
	small := func(opts ...mnist.Option) *mnist.Dataset { return mnist.New(images, labels, opts...) }
	tab, err := small().Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Nines are bad records, skipped: a state counts positions among
	// the good samples.
	skipped, err := small(mnist.Classes(9), mnist.OnBad(source.SkipBad(0.2))).Load(context.Background())
	if err != nil || skipped.Len() != 270 {
		t.Fatalf("skipped table: %v", err)
	}
	for name, r := range map[string]source.Reader[mnist.Sample]{
		"files":             small(),
		"files, skipped":    small(mnist.Classes(9), mnist.OnBad(source.SkipBad(0.2))),
		"table":             source.ReadIndexed(tab),
		"table, shuffled":   source.ReadIndexed(tab, source.ShuffleIndex(5), source.ShardIndex(3, 2, source.PadShards)),
		"skipped, shuffled": source.ReadIndexed(skipped, source.ShuffleIndex(6)),
	} {
		if err := sourcetest.TestReader(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A pass that fails keeps the contract too: the error comes once, last.
	ip := fixture.WriteFile(t, dir, "images.gz", badinput.Gzip(gunzipBytes(t, "t10k-images-idx3-ubyte")[:16+784*50+100]))
	if err := sourcetest.TestReader(mnist.New(ip, gz("t10k-labels-idx1-ubyte"))); err != nil {
		t.Errorf("truncated images: %v", err)
	}
}

// MaxFileBytes bounds the data a header may declare: the test images
// (7,840,000 bytes of pixels) are refused under 1 MiB by a pass and by
// Load, at the dimension that passes the bound, before anything is read
// for them; at their size they are read.
func TestMaxFileBytes(t *testing.T) {
	ctx := context.Background()
	dir := plainT10k(t)
	images := filepath.Join(dir, "t10k-images-idx3-ubyte")
	small := mnist.Test(dir, mnist.MaxFileBytes(1<<20))
	_, err := source.Count(ctx, small)
	wantFormatError(t, err, images, 12, "more than 1048576 bytes of data (MaxFileBytes)", mnist.ErrTooLarge)
	tab, err := small.Load(ctx)
	if tab != nil {
		t.Fatalf("Load over the bound: a table of %d samples", tab.Len())
	}
	wantFormatError(t, err, images, 12, "MaxFileBytes", mnist.ErrTooLarge)
	if n, err := source.Count(ctx, mnist.Test(dir, mnist.MaxFileBytes(7840000))); n != 10000 || err != nil {
		t.Errorf("at the bound: %d samples, %v", n, err)
	}
}
