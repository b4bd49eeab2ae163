package tfrecord_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
)

// known is tf.train.Example{features {feature {key: "a" value {int64_list
// {value: [1, 2]}}}}} serialized by hand from example.proto and
// feature.proto, as TensorFlow writes it (packed).
var known = []byte{0x0a, 0x0d, 0x0a, 0x0b, 0x0a, 0x01, 'a', 0x12, 0x06, 0x1a, 0x04, 0x0a, 0x02, 0x01, 0x02}

func TestExampleKnownBytes(t *testing.T) {
	var ex tfrecord.Example
	ex.SetInt64s("a", 1, 2)
	if got := ex.Marshal(); !bytes.Equal(got, known) {
		t.Fatalf("Marshal = % x, want % x", got, known)
	}
	got, err := tfrecord.ParseExample(known)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := got.Int64s("a"); err != nil || !slices.Equal(v, []int64{1, 2}) {
		t.Fatalf("Int64s(a) = %v, %v", v, err)
	}
}

func TestExampleRoundTrip(t *testing.T) {
	var ex tfrecord.Example
	ex.SetFloat32s("image", 0, 1.5, -2, float32(math.Inf(1)))
	ex.SetInt64s("label", 7, -1, math.MaxInt64, math.MinInt64)
	ex.SetBytes("id", []byte("abc"), []byte{}, []byte{0, 0xff})
	ex.SetFloat32s("empty")
	got, err := tfrecord.ParseExample(ex.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	f, err := got.Float32s("image")
	if err != nil || !slices.Equal(f, ex.Features["image"].Floats) {
		t.Errorf("image: %v, %v", f, err)
	}
	i, err := got.Int64s("label")
	if err != nil || !slices.Equal(i, ex.Features["label"].Int64s) {
		t.Errorf("label: %v, %v", i, err)
	}
	b, err := got.Bytes("id")
	if err != nil || !slices.EqualFunc(b, ex.Features["id"].Bytes, bytes.Equal) {
		t.Errorf("id: %q, %v", b, err)
	}
	if e, err := got.Float32s("empty"); err != nil || len(e) != 0 {
		t.Errorf("empty: %v, %v", e, err)
	}
	if !bytes.Equal(got.Marshal(), ex.Marshal()) {
		t.Error("Marshal of the parsed Example differs")
	}
	if len(tfrecord.Example{}.Marshal()) != 0 {
		t.Error("empty Example marshals to bytes")
	}
}

// Unpacked lists, repeated lists and unknown fields follow protobuf's rules.
func TestExampleWireVariants(t *testing.T) {
	// Int64List {value: 5, value: 6} unpacked, then a second int64_list
	// {value: [7]} packed, which protobuf merges into the first; an
	// unknown field (number 9, varint) in the Feature.
	feature := []byte{0x1a, 0x04, 0x08, 0x05, 0x08, 0x06, 0x1a, 0x03, 0x0a, 0x01, 0x07, 0x48, 0x01}
	entry := append([]byte{0x0a, 0x01, 'n', 0x12, byte(len(feature))}, feature...)
	features := append([]byte{0x0a, byte(len(entry))}, entry...)
	ex := append([]byte{0x0a, byte(len(features))}, features...)
	got, err := tfrecord.ParseExample(ex)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := got.Int64s("n"); err != nil || !slices.Equal(v, []int64{5, 6, 7}) {
		t.Fatalf("Int64s(n) = %v, %v", v, err)
	}
}

func TestExampleAccessorErrors(t *testing.T) {
	var ex tfrecord.Example
	ex.SetInt64s("label", 1)
	_, err := ex.Float32s("label")
	if !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), "feature of another kind") || !strings.Contains(err.Error(), `"label"`) {
		t.Errorf("wrong kind: %v", err)
	}
	_, err = ex.Bytes("image")
	if !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), "no such feature") || !strings.Contains(err.Error(), `"image"`) {
		t.Errorf("missing: %v", err)
	}
}

func TestParseExampleBad(t *testing.T) {
	// A float_list of 3 bytes inside feature "x".
	bad := []byte{0x0a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 'x', 0x12, 0x05, 0x12, 0x03, 0x0a, 0x01, 0x00}
	_, err := tfrecord.ParseExample(bad)
	var ee *tensorfeed.Error
	if !errors.As(err, &ee) || ee.Member != "x" || ee.Offset != 11 || !errors.Is(err, tfrecord.ErrFormat) ||
		!errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("bad float_list: %v (%+v)", err, ee)
	}
	for i := 1; i < len(known); i++ {
		if _, err := tfrecord.ParseExample(known[:i]); !errors.Is(err, tfrecord.ErrFormat) {
			t.Errorf("truncated to %d bytes: %v", i, err)
		}
	}
	// A record holding it names the file and record too.
	rec := tfrecord.Record{File: "f.tfrecord", Offset: 40, Index: 2, Data: bad}
	_, err = rec.Example()
	var fe *tensorfeed.Error
	if !errors.As(err, &fe) || fe.Path != "f.tfrecord" || fe.Record != 2 || fe.Offset != 40 || fe.Member != "x" || !errors.Is(err, tfrecord.ErrFormat) {
		t.Fatalf("Record.Example: %v", err)
	}
}
