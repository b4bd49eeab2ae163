package tfrecord_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

// allocated returns the bytes f allocates (the growth of
// runtime.MemStats.TotalAlloc while it runs). The tests that call it do not
// run in parallel.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// bombShape is a tf.train.Example that costs far more decoded than on
// the wire, made by a generator of the adversarial corpus.
type bombShape struct {
	name     string
	make     func(n int) []byte
	values   func(n int) int // the bytes_list and int64_list values it holds
	features func(n int) int
}

func one(int) int     { return 1 }
func same(n int) int  { return n }
func noValue(int) int { return 0 }
func shapes() []bombShape {
	return []bombShape{
		{"empty strings in a bytes_list", badinput.TFExampleEmptyBytes, same, one},
		{"tiny features", badinput.TFExampleTinyFeatures, noValue, same},
		{"unpacked int64", badinput.TFExampleUnpackedInt64, same, one},
		{"packed int64", badinput.TFExamplePackedInt64, same, one},
	}
}

// A record of a few MB in each shape that decodes to 8 to 40 times its
// size is refused with the file, the record and its offset, before the
// Example is allocated (the whole parse allocates less than the record).
func TestExampleLimitsRefuse(t *testing.T) {
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			n := 4 << 20
			if s.name == "tiny features" {
				n = 400_000 // 9 to 11 bytes each
			}
			rec := tfrecord.Record{File: "bomb.tfrecord", Offset: 1234, Index: 7, Data: s.make(n)}
			var err error
			alloc := allocated(func() { _, err = rec.Example() })
			var fe *tensorfeed.Error
			if !errors.As(err, &fe) || fe.Path != "bomb.tfrecord" || fe.Record != 7 || fe.Offset != 1234 {
				t.Fatalf("%d-byte record: error %v, want a *tensorfeed.Error at record 7, offset 1234", len(rec.Data), err)
			}
			for _, target := range []error{tensorfeed.ErrBadData, tfrecord.ErrFormat, tfrecord.ErrTooLarge} {
				if !errors.Is(err, target) {
					t.Errorf("%v does not wrap %v", err, target)
				}
			}
			want := "(MaxValues)"
			if s.features(n) > 1 {
				want = "(MaxFeatures)"
			}
			if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "bomb.tfrecord: record 7 at byte 1234: ") {
				t.Errorf("error %q does not name the record and %s", err, want)
			}
			if alloc > uint64(len(rec.Data)) {
				t.Errorf("refusing a %d-byte record allocated %d bytes", len(rec.Data), alloc)
			}
			t.Logf("%d bytes refused, %d bytes allocated: %v", len(rec.Data), alloc, err)
		})
	}
}

// Under the limits, in each shape, a parse allocates at most what the doc
// says: 4 times the record, plus 16 bytes a counted value, 256 a feature
// and 4 KiB. The shapes are made as large as the default limits allow,
// and larger with raised limits.
func TestExampleLimitsMemory(t *testing.T) {
	for _, s := range shapes() {
		for _, raised := range []bool{false, true} {
			n := tfrecord.DefaultMaxValues
			if s.features(2) > 1 {
				n = tfrecord.DefaultMaxFeatures
			}
			var opts []tfrecord.ExampleOption
			if raised {
				n *= 3
				opts = append(opts, tfrecord.MaxValues(1<<40), tfrecord.MaxFeatures(1<<30))
			}
			b := s.make(n)
			var ex tfrecord.Example
			var err error
			alloc := allocated(func() { ex, err = tfrecord.ParseExample(b, opts...) })
			if err != nil {
				t.Fatalf("%s, %d: %v", s.name, n, err)
			}
			if got := len(ex.Features); got != s.features(n) {
				t.Fatalf("%s, %d: %d features, want %d", s.name, n, got, s.features(n))
			}
			bound := 4*uint64(len(b)) + 16*uint64(s.values(n)) + 256*uint64(s.features(n)) + 4096
			if alloc > bound {
				t.Errorf("%s, %d: a %d-byte record allocated %d bytes (%.1fx), over %d", s.name, n, len(b), alloc, float64(alloc)/float64(len(b)), bound)
			}
			t.Logf("%s, %d: %d bytes, %d allocated (%.1fx)", s.name, n, len(b), alloc, float64(alloc)/float64(len(b)))
		}
	}
	// Ints of 2 bytes decode to 8: 4 times the record (the list is a
	// whole number of pages, so the allocator adds nothing to it).
	ints := make([]int64, 100<<10)
	for i := range ints {
		ints[i] = 1000 + int64(i%1000)
	}
	var ex tfrecord.Example
	ex.SetInt64s("i", ints...)
	b := ex.Marshal()
	if alloc := allocated(func() { _, _ = tfrecord.ParseExample(b) }); alloc > 4*uint64(len(b))+4096 {
		t.Errorf("2-byte ints: %d bytes allocated for %d", alloc, len(b))
	}
}

// The limits count what they say: values of bytes_list and int64_list
// over all features (float_list not), features with their repeats; the
// error names the feature and the offset where the limit is crossed.
func TestExampleLimitsCount(t *testing.T) {
	var ex tfrecord.Example
	ex.SetInt64s("a", 1, 2, 3)
	ex.SetBytes("b", []byte("x"), []byte("y"))
	ex.SetFloat32s("f", make([]float32, 1000)...)
	b := ex.Marshal()
	if _, err := tfrecord.ParseExample(b, tfrecord.MaxValues(5), tfrecord.MaxFeatures(3)); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	_, err := tfrecord.ParseExample(b, tfrecord.MaxValues(4))
	var ee *tensorfeed.Error
	if !errors.As(err, &ee) || ee.Member != "b" || ee.Offset <= 0 || !errors.Is(err, tfrecord.ErrTooLarge) ||
		!errors.Is(err, tfrecord.ErrFormat) {
		t.Errorf("MaxValues(4): %v", err)
	}
	if _, err := tfrecord.ParseExample(b, tfrecord.MaxFeatures(2)); !errors.Is(err, tfrecord.ErrTooLarge) {
		t.Errorf("MaxFeatures(2): %v", err)
	}
	// A name given twice counts twice.
	twice := append(append([]byte{}, b...), b...)
	if _, err := tfrecord.ParseExample(twice, tfrecord.MaxFeatures(5)); !errors.Is(err, tfrecord.ErrTooLarge) {
		t.Errorf("a repeated Example, MaxFeatures(5): %v", err)
	}
	for name, f := range map[string]func(){
		"MaxValues(0)":   func() { tfrecord.MaxValues(0) },
		"MaxFeatures(0)": func() { tfrecord.MaxFeatures(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
