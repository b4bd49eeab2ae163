package mnist_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
)

// badLabels are the records whose label badLabelFile sets to 200.
var badLabels = []int{3, 500, 9000}

// badLabelFile writes the t10k labels with badLabels set to 200 and returns
// the file's path.
func badLabelFile(t *testing.T) string {
	t.Helper()
	lab := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	for _, i := range badLabels {
		lab[8+i] = 200
	}
	return fixture.WriteFile(t, t.TempDir(), "labels", lab)
}

// plainImages returns the path of the test set's images, gunzipped: the
// tests of labels read them without decompressing them again.
func plainImages(t *testing.T) string {
	return filepath.Join(plainT10k(t), "t10k-images-idx3-ubyte")
}

// loaded reads ds through Load: every pass loads a table and reads it
// with source.ReadIndexed and opts.
func loaded(ds *mnist.Dataset, opts ...source.IndexedOption) source.Reader[mnist.Sample] {
	return source.Func[mnist.Sample](func(ctx context.Context) iter.Seq2[mnist.Sample, error] {
		return func(yield func(mnist.Sample, error) bool) {
			tab, err := ds.Load(ctx)
			if err != nil {
				yield(mnist.Sample{}, err)
				return
			}
			for s, err := range source.ReadIndexed(tab, opts...).All(ctx) {
				if !yield(s, err) || err != nil {
					return
				}
			}
		}
	})
}

// ways are the ways to read a dataset that the tests compare: a pass of
// the files, a table in order and a table shuffled by index.
var ways = []struct {
	name string
	r    func(ds *mnist.Dataset) source.Reader[mnist.Sample]
}{
	{"in order", func(ds *mnist.Dataset) source.Reader[mnist.Sample] { return ds }},
	{"table", func(ds *mnist.Dataset) source.Reader[mnist.Sample] { return loaded(ds) }},
	{"table shuffled", func(ds *mnist.Dataset) source.Reader[mnist.Sample] { return loaded(ds, source.ShuffleIndex(2)) }},
}

// pass runs one pass and returns the indices of the samples it yielded and
// its error.
func pass(r source.Reader[mnist.Sample]) (indices []int, err error) {
	for s, e := range r.All(context.Background()) {
		if e != nil {
			if err != nil {
				return indices, errors.New("a second error")
			}
			err = e
			continue
		}
		indices = append(indices, s.Index)
	}
	return indices, err
}

func TestBadLabelFailsByDefault(t *testing.T) {
	lp := badLabelFile(t)
	for _, rd := range ways {
		t.Run(rd.name, func(t *testing.T) {
			maxYield := 3
			if rd.name != "in order" {
				maxYield = 0 // Load checks every label first
			}
			got, err := pass(rd.r(mnist.New(plainImages(t), lp)))
			if len(got) > maxYield {
				t.Errorf("%d samples before the error, want at most %d", len(got), maxYield)
			}
			want := badLabels[0]
			fe := wantFormatError(t, err, lp, int64(8+want), "label 200 is not below 10", nil)
			if fe.Record != int64(want) {
				t.Errorf("record %d, want %d", fe.Record, want)
			}
		})
	}
}

func TestSkipBadLabels(t *testing.T) {
	lp := badLabelFile(t)
	img := plainImages(t)
	for _, rd := range ways {
		t.Run(rd.name, func(t *testing.T) {
			var reported []int
			onSkip := source.OnSkip(func(err error) {
				var fe *tensorfeed.Error
				if !errors.As(err, &fe) || !errors.Is(err, tensorfeed.ErrBadData) || fe.Path != lp {
					t.Errorf("skipped with error %v", err)
					return
				}
				reported = append(reported, int(fe.Record))
			})
			ds := mnist.New(img, lp, mnist.OnBad(source.SkipBad(0.01, onSkip)))
			r := rd.r(ds)
			skipped := badLabels
			for epoch := 1; epoch <= 2; epoch++ {
				got, err := pass(r)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 10000-len(skipped) {
					t.Errorf("%d samples, want %d", len(got), 10000-len(skipped))
				}
				slices.Sort(got)
				for _, i := range skipped {
					if _, found := slices.BinarySearch(got, i); found {
						t.Errorf("sample %d with a bad label was yielded", i)
					}
				}
				if n := ds.Skipped(); n != int64(epoch*len(skipped)) {
					t.Errorf("after %d passes Skipped() = %d, want %d", epoch, n, epoch*len(skipped))
				}
			}
			if want := append(slices.Clone(skipped), skipped...); !slices.Equal(reported, want) {
				t.Errorf("OnSkip saw records %v, want %v", reported, want)
			}
		})
	}
}

func TestSkipBadBound(t *testing.T) {
	lp := badLabelFile(t)
	img := plainImages(t)
	// 3 bad of 10000 is more than 2/10000.
	for _, shuffled := range []bool{false, true} {
		ds := mnist.New(img, lp, mnist.OnBad(source.SkipBad(0.0002)))
		r := source.Reader[mnist.Sample](ds)
		if shuffled {
			r = loaded(ds, source.ShuffleIndex(4))
		}
		got, err := pass(r)
		if !errors.Is(err, source.ErrTooManyBad) || !errors.Is(err, mnist.ErrFormat) {
			t.Fatalf("error %v does not wrap ErrTooManyBad and the last record's error", err)
		}
		var fe *tensorfeed.Error
		if !errors.As(err, &fe) || fe.Record != int64(badLabels[2]) {
			t.Errorf("error %v does not name record %d", err, badLabels[2])
		}
		if len(got) > badLabels[2] {
			t.Errorf("%d samples before the error", len(got))
		}
		if ds.Skipped() != 2 {
			t.Errorf("Skipped() = %d, want 2", ds.Skipped())
		}
	}
}

func TestSkipBadShared(t *testing.T) {
	lp := badLabelFile(t)
	img := plainImages(t)
	p := source.SkipBad(0.5)
	a := mnist.New(img, lp, mnist.OnBad(p))
	b := mnist.New(img, lp, mnist.OnBad(p))
	if _, err := pass(a); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.Skipped() != 6 || a.Skipped() != 6 || b.Skipped() != 6 {
		t.Errorf("shared policy: %d, %d, %d skipped, want 6", p.Skipped(), a.Skipped(), b.Skipped())
	}
	var _ source.SkipCounted = a
}

func TestClasses(t *testing.T) {
	lp := badLabelFile(t)
	got, err := pass(mnist.New(plainImages(t), lp, mnist.Classes(201)))
	if err != nil || len(got) != 10000 {
		t.Fatalf("Classes(201): %d samples, %v", len(got), err)
	}
	// The real labels are 0..9: with 7 classes, 7, 8 and 9 are bad.
	ds := mnist.Test(dataDir, mnist.Classes(7), mnist.OnBad(source.SkipBad(0.5)))
	got, err = pass(loaded(ds))
	if err != nil || len(got) != 10000-1028-974-1009 || ds.Skipped() != 1028+974+1009 {
		t.Errorf("Classes(7): %d samples, %d skipped, %v", len(got), ds.Skipped(), err)
	}
}

func TestStructuralErrorsAreNeverSkipped(t *testing.T) {
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")
	lab := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	for _, tt := range []struct {
		name           string
		images, labels []byte
		file           string
		offset         int64
		msg            string
		cause          error
	}{
		{"truncated labels", img, lab[:5000], "labels", 5000, "record 4992 of 10000", io.ErrUnexpectedEOF},
		{"truncated images", img[:16+784*100+5], lab, "images", 16 + 784*100 + 5, "record 100 of 10000", io.ErrUnexpectedEOF},
		{"counts differ", img, func() []byte {
			c := slices.Clone(lab[:len(lab)-1])
			binary.BigEndian.PutUint32(c[4:], 9999)
			return c
		}(), "labels", 4, "9999 labels for 10000 images", nil},
		{"data after the labels", img, append(slices.Clone(lab), 1), "labels", int64(len(lab)), "after the last record", nil},
		{"bad magic", img, append([]byte{0, 0, 9, 1}, lab[4:]...), "labels", 0, "is not MNIST labels", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ip := fixture.WriteFile(t, dir, "images", tt.images)
			lp := fixture.WriteFile(t, dir, "labels", tt.labels)
			for _, rd := range ways {
				ds := mnist.New(ip, lp, mnist.OnBad(source.SkipBad(1)))
				_, err := pass(rd.r(ds))
				wantFormatError(t, err, dir+"/"+tt.file, tt.offset, tt.msg, tt.cause)
				if ds.Skipped() != 0 {
					t.Errorf("Skipped() = %d", ds.Skipped())
				}
			}
		})
	}
}

func TestLoadGrowsWithTheData(t *testing.T) {
	// A gzipped images file that declares 60000 images and holds 10: Load
	// must not make room for 60000 before they arrive.
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")[:16+10*784]
	binary.BigEndian.PutUint32(img[4:], 60000)
	lab := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	binary.BigEndian.PutUint32(lab[4:], 60000)
	dir := t.TempDir()
	ip := fixture.WriteFile(t, dir, "images.gz", badinput.Gzip(img))
	lp := fixture.WriteFile(t, dir, "labels.gz", badinput.Gzip(lab))
	var err error
	n := fixture.Allocated(func() { _, err = mnist.New(ip, lp).Load(context.Background()) })
	wantFormatError(t, err, ip, 16+10*784, "record 10 of 60000", io.ErrUnexpectedEOF)
	if n > 8<<20 {
		t.Errorf("a pass over 10 images allocated %d bytes", n)
	}
}
