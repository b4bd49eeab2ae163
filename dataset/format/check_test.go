package format_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
)

// TestCheckLines checks a csv file through the registry: a good file is
// summed up in one line; a line over the maximum ends the check with its
// position, or, under OnBad, goes to the policy and the check goes on
// without a summary.
func TestCheckLines(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("a,1\nbb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, ok := format.Default().Lookup("csv")
	if !ok || f.Check == nil {
		t.Fatal("the csv format has no Check")
	}
	var out bytes.Buffer
	if err := f.Check(context.Background(), []string{good}, &out); err != nil {
		t.Fatal(err)
	}
	if want := good + ": lines: 2 lines, the longest 4 bytes\n"; out.String() != want {
		t.Errorf("summary %q, want %q", out.String(), want)
	}

	bad := filepath.Join(dir, "bad.csv")
	long := strings.Repeat("x", 20)
	if err := os.WriteFile(bad, []byte("a,1\n"+long+"\n"+long+"\nb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := format.CSV(8)
	out.Reset()
	err := short.Check(context.Background(), []string{bad}, &out)
	var te *tensorfeed.Error
	if !errors.As(err, &te) || te.Path != bad || te.Line != 2 || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("err = %v, want a positioned error at line 2 of %s", err, bad)
	}
	if out.Len() != 0 {
		t.Errorf("a bad file was summed up: %q", out.String())
	}

	var skipped []error
	p := source.SkipBad(1, source.OnSkip(func(err error) { skipped = append(skipped, err) }))
	if err := short.Check(context.Background(), []string{bad}, &out, format.OnBad(p)); err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 2 || out.Len() != 0 {
		t.Errorf("under OnBad: %d bad lines reported (want 2), summary %q (want none)", len(skipped), out.String())
	}
}

// TestCheckIDX checks IDX files through the registry: a label file is
// summed up with its labels; a file shorter than its header says ends the
// check with a positioned error and no summary.
func TestCheckIDX(t *testing.T) {
	dir := t.TempDir()
	f, _ := format.Default().Lookup("idx")
	good := writeIDX(t, dir, "labels-idx1-ubyte", 3, 1, 3)
	var out bytes.Buffer
	if err := f.Check(context.Background(), []string{good}, &out); err != nil {
		t.Fatal(err)
	}
	if want := good + ": IDX, uint8, dimensions [3]: 3 records of 1 elements; labels in [1, 3], 2 distinct: 1:1 3:2\n"; out.String() != want {
		t.Errorf("summary %q, want %q", out.String(), want)
	}
	cut := filepath.Join(dir, "cut-idx1-ubyte")
	if err := os.WriteFile(cut, []byte{0, 0, 0x08, 1, 0, 0, 0, 5, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err := f.Check(context.Background(), []string{cut}, &out)
	var te *tensorfeed.Error
	if !errors.As(err, &te) || te.Path != cut || !errors.Is(err, tensorfeed.ErrBadData) || out.Len() != 0 {
		t.Fatalf("cut file: err %v, summary %q; want a positioned error and no summary", err, out.String())
	}
}

// TestCheckTFRecordMixed checks a TFRecord file of tf.train.Example that
// holds one other payload: it is bad, unless Mixed counts it.
func TestCheckTFRecordMixed(t *testing.T) {
	var ex tfrecord.Example
	ex.SetInt64s("label", 1)
	e := string(ex.Marshal())
	p := writeTF(t, t.TempDir(), "m.tfrecord", e, "\x0a\x01", e)
	f, _ := format.Default().Lookup("tfrecord")
	var out bytes.Buffer
	err := f.Check(context.Background(), []string{p}, &out)
	var te *tensorfeed.Error
	if !errors.As(err, &te) || te.Record != 1 || out.Len() != 0 {
		t.Fatalf("err %v, summary %q; want record 1 bad and no summary", err, out.String())
	}
	if err := f.Check(context.Background(), []string{p}, &out, format.Mixed()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), ": TFRecord: 3 records, ") || !strings.Contains(out.String(), "2 tf.train.Example and 1 other records") {
		t.Errorf("Mixed: summary %q", out.String())
	}
}

// The wds format checks several shards at once: each good one is summed
// up, a sample split across two shards checked one after the other is
// refused as Open refuses it, a bad shard does not stop the check of the
// next, and every file's error names it.
func TestCheckWDSShards(t *testing.T) {
	dir := t.TempDir()
	a := writeWDS(t, dir, "a.tar", "k0", "k1")
	b := writeWDS(t, dir, "b.tar", "k1", "k2")
	c := writeWDS(t, dir, "c.tar", "k3")
	bad := filepath.Join(dir, "bad.tar")
	if err := os.WriteFile(bad, []byte(strings.Repeat("x", 1024)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := format.Default().Lookup("wds")
	var out bytes.Buffer
	if err := f.Check(context.Background(), []string{a, c}, &out); err != nil {
		t.Fatal(err)
	}
	if want := a + ": WebDataset: 2 samples, 8 bytes of fields; fields: cls 2 txt 2\n" + c + ": WebDataset: 1 samples, 4 bytes of fields; fields: cls 1 txt 1\n"; out.String() != want {
		t.Errorf("summary %q, want %q", out.String(), want)
	}

	out.Reset()
	err := f.Check(context.Background(), []string{a, b, bad, c}, &out)
	if !errors.Is(err, webdataset.ErrSplit) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("err = %v, want the split sample and the bad shard", err)
	}
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), b) || !strings.HasPrefix(errs[1].Error(), bad+":") {
		t.Errorf("errors %q: want one naming %s, then one naming %s", errs, b, bad)
	}
	if want := a + ": WebDataset: 2 samples"; !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), c+": WebDataset: 1 samples") || strings.Contains(out.String(), b+":") {
		t.Errorf("summary %q: want a and c summed up, not b", out.String())
	}
}
