package mnist_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/badinput"
	"github.com/tensorfeed/tensorfeed/internal/fixture"
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
	return writeFile(t, t.TempDir(), "labels", lab)
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
	for _, tt := range []struct {
		name     string
		opts     []mnist.Option
		maxYield int
	}{
		{"in order", nil, 3},
		{"shuffled", []mnist.Option{mnist.Shuffle(1)}, 0},
		{"prefetch", []mnist.Option{mnist.Prefetch(8)}, 3},
		{"shard with the second", []mnist.Option{mnist.Shard(20, 1)}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pass(mnist.New(gz("t10k-images-idx3-ubyte"), lp, tt.opts...))
			if len(got) > tt.maxYield {
				t.Errorf("%d samples before the error, want at most %d", len(got), tt.maxYield)
			}
			want := badLabels[0]
			if len(tt.opts) > 0 && tt.name == "shard with the second" {
				want = badLabels[1]
			}
			fe := wantFormatError(t, err, lp, int64(8+want), "label 200 is not below 10", nil)
			if fe.Record != want {
				t.Errorf("record %d, want %d", fe.Record, want)
			}
		})
	}
}

func TestSkipBadLabels(t *testing.T) {
	lp := badLabelFile(t)
	img := gz("t10k-images-idx3-ubyte")
	for _, tt := range []struct {
		name string
		opts []mnist.Option
		want []int // the records of the pass, before skipping
	}{
		{"in order", nil, nil},
		{"shuffled", []mnist.Option{mnist.Shuffle(2)}, nil},
		{"prefetch", []mnist.Option{mnist.Prefetch(8)}, nil},
		{"shard", []mnist.Option{mnist.Shard(2, 1)}, []int{5000, 10000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var reported []int
			onSkip := source.OnSkip(func(err error) {
				var fe *mnist.FormatError
				if !errors.As(err, &fe) || !errors.Is(err, tensorfeed.ErrBadData) || fe.File != lp {
					t.Errorf("skipped with error %v", err)
					return
				}
				reported = append(reported, fe.Record)
			})
			ds := mnist.New(img, lp, append(slices.Clone(tt.opts), mnist.SkipBad(0.01, onSkip))...)
			start, end := 0, 10000
			if tt.want != nil {
				start, end = tt.want[0], tt.want[1]
			}
			var skipped []int
			for _, i := range badLabels {
				if i >= start && i < end {
					skipped = append(skipped, i)
				}
			}
			for epoch := 1; epoch <= 2; epoch++ {
				got, err := pass(ds)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != end-start-len(skipped) {
					t.Errorf("%d samples, want %d", len(got), end-start-len(skipped))
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
	img := gz("t10k-images-idx3-ubyte")
	// 3 bad of 10000 is more than 2/10000.
	for _, opts := range [][]mnist.Option{
		{mnist.SkipBad(0.0002)},
		{mnist.SkipBad(0.0002), mnist.Shuffle(4)},
		{mnist.OnBad(source.SkipBad(0.0002))},
	} {
		ds := mnist.New(img, lp, opts...)
		got, err := pass(ds)
		if !errors.Is(err, source.ErrTooManyBad) || !errors.Is(err, mnist.ErrFormat) {
			t.Fatalf("error %v does not wrap ErrTooManyBad and the last record's error", err)
		}
		var fe *mnist.FormatError
		if !errors.As(err, &fe) || fe.Record != badLabels[2] {
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
	img := gz("t10k-images-idx3-ubyte")
	p := source.SkipBad(0.5)
	a := mnist.New(img, lp, mnist.OnBad(p), mnist.Shard(2, 0))
	b := mnist.New(img, lp, mnist.OnBad(p), mnist.Shard(2, 1))
	for _, ds := range []*mnist.Dataset{a, b} {
		if _, err := pass(ds); err != nil {
			t.Fatal(err)
		}
	}
	if p.Skipped() != 3 || a.Skipped() != 3 || b.Skipped() != 3 {
		t.Errorf("shared policy: %d, %d, %d skipped, want 3", p.Skipped(), a.Skipped(), b.Skipped())
	}
	var _ source.SkipCounted = a
}

func TestClasses(t *testing.T) {
	lp := badLabelFile(t)
	got, err := pass(mnist.New(gz("t10k-images-idx3-ubyte"), lp, mnist.Classes(201)))
	if err != nil || len(got) != 10000 {
		t.Fatalf("Classes(201): %d samples, %v", len(got), err)
	}
	// The real labels are 0..9: with 7 classes, 7, 8 and 9 are bad.
	ds := mnist.Test(dataDir, mnist.Classes(7), mnist.SkipBad(0.5))
	got, err = pass(ds)
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
			ip := writeFile(t, dir, "images", tt.images)
			lp := writeFile(t, dir, "labels", tt.labels)
			for _, opts := range [][]mnist.Option{{mnist.SkipBad(1)}, {mnist.SkipBad(1), mnist.Shuffle(1)}} {
				ds := mnist.New(ip, lp, opts...)
				_, err := pass(ds)
				wantFormatError(t, err, dir+"/"+tt.file, tt.offset, tt.msg, tt.cause)
				if ds.Skipped() != 0 {
					t.Errorf("Skipped() = %d", ds.Skipped())
				}
			}
		})
	}
}

func TestShuffledPassGrowsWithTheData(t *testing.T) {
	// A gzipped images file that declares 60000 images and holds 10: a
	// shuffled pass must not make room for 60000 before they arrive.
	img := gunzipBytes(t, "t10k-images-idx3-ubyte")[:16+10*784]
	binary.BigEndian.PutUint32(img[4:], 60000)
	lab := gunzipBytes(t, "t10k-labels-idx1-ubyte")
	binary.BigEndian.PutUint32(lab[4:], 60000)
	dir := t.TempDir()
	ip := writeFile(t, dir, "images.gz", badinput.Gzip(img))
	lp := writeFile(t, dir, "labels.gz", badinput.Gzip(lab))
	var err error
	n := fixture.Allocated(func() { _, err = pass(mnist.New(ip, lp, mnist.Shuffle(1))) })
	wantFormatError(t, err, ip, 16+10*784, "record 10 of 60000", io.ErrUnexpectedEOF)
	if n > 8<<20 {
		t.Errorf("a pass over 10 images allocated %d bytes", n)
	}
}
