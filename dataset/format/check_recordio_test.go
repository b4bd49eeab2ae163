package format_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/source"
)

// imageRecord returns an image record holding a w x h gray PNG, label l.
func imageRecord(t *testing.T, w, h int, l float32) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return string(imagerec.AppendRecord(nil, imagerec.Header{Label: l}, b.Bytes()))
}

// The recordio format's Check decodes image records when the first record
// is one, checks the framing alone otherwise, checks the .idx beside a
// .rec, and reports a record whose image does not decode, or, under
// OnBad, steps over it.
func TestCheckRecordIO(t *testing.T) {
	dir := t.TempDir()
	f, _ := format.Default().Lookup("recordio")
	check := func(paths []string, opts ...format.Option) (string, error) {
		var out bytes.Buffer
		err := f.Check(context.Background(), paths, &out, opts...)
		return out.String(), err
	}
	raw := writeRec(t, dir, "raw.rec", "a", "bb")
	imgs := writeRec(t, dir, "imgs.rec", imageRecord(t, 2, 3, 1), imageRecord(t, 4, 1, 0))
	out, err := check([]string{raw, imgs})
	if err != nil {
		t.Fatal(err)
	}
	want := raw + ": RecordIO: 2 records, 3 payload bytes; framing only, not image records: the first record (1 bytes) is not an image record\n" +
		imgs + ": image records: 2 records; images 2-4 x 1-3 pixels (width x height), 2 with 1 channels; first label: labels in [0, 1], 2 distinct: 0:1 1:1\n"
	if out != want {
		t.Errorf("summary\n%q, want\n%q", out, want)
	}

	// An .idx beside the .rec that points past its records.
	if err := os.WriteFile(filepath.Join(dir, "raw.idx"), []byte("0\t0\n1\t4096\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := check([]string{raw}); !errors.Is(err, tensorfeed.ErrBadData) || !strings.Contains(err.Error(), "raw") {
		t.Errorf("a bad .idx beside the .rec: %v", err)
	}
	if _, err := check([]string{filepath.Join(dir, "raw.idx")}); !errors.Is(err, tensorfeed.ErrBadData) {
		t.Errorf("a bad .idx checked against its .rec: %v", err)
	}

	// An index named otherwise is known by its first line; with no .rec
	// beside it, its entries are counted.
	lone := filepath.Join(dir, "index-copy")
	if err := os.WriteFile(lone, []byte("0\t0\n1\t64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := check([]string{lone}); err != nil || out != lone+": RecordIO index: 2 entries (no .rec beside it to check them against)\n" {
		t.Errorf("an index without its name: %v, %q", err, out)
	}

	broken := imageRecord(t, 2, 2, 0)
	broken = broken[:len(broken)-20] // cut inside the PNG
	bad := writeRec(t, dir, "bad.rec", imageRecord(t, 2, 2, 0), broken, broken)
	out, err = check([]string{bad})
	var te *tensorfeed.Error
	if !errors.As(err, &te) || te.Path != bad || te.Record != 1 || out != "" {
		t.Errorf("a broken image: err %v, summary %q; want record 1 of %s, no summary", err, out, bad)
	}
	var skipped int
	p := source.SkipBad(1, source.OnSkip(func(error) { skipped++ }))
	if out, err = check([]string{bad}, format.OnBad(p)); err != nil || skipped != 2 || out != "" {
		t.Errorf("under OnBad: err %v, %d skipped, summary %q; want 2 skipped, no summary", err, skipped, out)
	}
}
