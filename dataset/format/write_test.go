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
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/source"
)

// Every format with a Write reads back what it wrote with its Open: the
// payloads in order, the keys where the format keeps them, a WebDataset
// sample's fields; the format that cannot hold a record says so.
func TestWriteReadsBack(t *testing.T) {
	recs := []format.Record{
		{Index: 0, Key: "a", Data: []byte("first")},
		{Index: 1, Key: "b", Data: bytes.Repeat([]byte{7}, 1000)},
		{Index: 2, Key: "c", Data: []byte{}},
	}
	for _, c := range []struct{ name, ext string }{{"recordio", ".rec"}, {"tfrecord", ".tfrecord"}, {"wds", ".tar"}, {"parquet", ".parquet"}} {
		f, _ := format.Default().Lookup(c.name)
		path := filepath.Join(t.TempDir(), "x"+c.ext)
		w, err := f.Write(path)
		if err != nil {
			t.Fatal(err)
		}
		var size int64
		for _, r := range recs {
			if size, err = w.Write(r); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		if err := w.Close(); err != nil || size <= 0 {
			t.Fatalf("%s: close %v, size %d", c.name, err, size)
		}
		got, err := source.Collect(context.Background(), format.Open([]string{path}))
		if err != nil || len(got) != len(recs) {
			t.Fatalf("%s: %d records, %v", c.name, len(got), err)
		}
		for i, r := range got {
			switch c.name {
			case "recordio":
				if !bytes.Equal(r.Data, recs[i].Data) {
					t.Errorf("%s: record %d: %q", c.name, i, r.Data)
				}
			case "wds":
				if r.Key != recs[i].Key || !bytes.Equal(r.Fields["bin"], recs[i].Data) {
					t.Errorf("%s: sample %d: %q %q", c.name, i, r.Key, r.Fields)
				}
			case "parquet":
				if string(r.Fields["key"]) != recs[i].Key || !bytes.Equal(r.Fields["data"], recs[i].Data) {
					t.Errorf("%s: row %d: %q", c.name, i, r.Fields)
				}
			}
		}
		if c.name == "recordio" {
			if idx, err := os.ReadFile(strings.TrimSuffix(path, ".rec") + ".idx"); err != nil || !strings.HasPrefix(string(idx), "0\t0\n1\t") {
				t.Errorf("recordio: index %q, %v", idx, err)
			}
		}
		// A sample's fields: RecordIO and Parquet hold no names.
		w, _ = f.Write(path + ".2")
		_, err = w.Write(format.Record{Key: "s", Fields: map[string][]byte{"jpg": {1}, "cls": {'3'}}})
		w.Close()
		if refused := err != nil; refused != (c.name == "recordio" || c.name == "parquet") {
			t.Errorf("%s: a sample with fields: %v", c.name, err)
		}
	}
}

// A file without a tag is recognised by its name and its text when its
// bytes say nothing: an im2rec .lst is read as lst, a PNG as an image, and
// a local folder lists its files; what fits nothing wraps ErrSpec and
// tensorfeed.ErrBadData.
func TestDetectByNameAndText(t *testing.T) {
	dir := t.TempDir()
	lst := filepath.Join(dir, "train.lst")
	os.WriteFile(lst, []byte("0\t1.000000\tcats/a.jpg\n7\t0.000000\tdogs/b.jpg\n"), 0o644)
	var pic bytes.Buffer
	png.Encode(&pic, image.NewGray(image.Rect(0, 0, 3, 2)))
	os.MkdirAll(filepath.Join(dir, "photos", "cats"), 0o755)
	img := filepath.Join(dir, "photos", "cats", "a.png")
	os.WriteFile(img, pic.Bytes(), 0o644)
	odd := filepath.Join(dir, "odd")
	os.WriteFile(odd, []byte("hello world\n"), 0o644)
	ctx := context.Background()
	for path, want := range map[string]string{lst: "lst", img: "image", filepath.Join(dir, "photos"): "image"} {
		if got, err := format.Default().Detect(ctx, path); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	got, err := source.Collect(ctx, format.Open([]string{lst, img}))
	if err != nil || len(got) != 3 || got[1].Key != "dogs/b.jpg" || got[1].Offset != 22 || !bytes.Equal(got[2].Data, pic.Bytes()) {
		t.Errorf("records %+v, %v", got, err)
	}
	files, err := source.Collect(ctx, format.Open([]string{"image:" + filepath.Join(dir, "photos")}))
	if err != nil || len(files) != 1 || files[0].Key != "cats/a.png" || files[0].Data != nil {
		t.Errorf("folder: %+v, %v", files, err)
	}
	_, err = format.Default().Detect(ctx, odd)
	var te *tensorfeed.Error
	if !errors.Is(err, format.ErrSpec) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &te) || te.Path != odd {
		t.Errorf("odd: %v", err)
	}
}

// The csv format's Check reads raw lines, or with Rows parses the rows
// with dataset/csv's options and says what they hold.
func TestCheckRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "iris.csv")
	os.WriteFile(path, []byte("a,b,class\n1,2,0\n3,4,1\n"), 0o644)
	f, _ := format.Default().Lookup("csv")
	var out strings.Builder
	if err := f.Check(context.Background(), []string{path}, &out); err != nil || !strings.Contains(out.String(), ": lines: 3 lines") {
		t.Errorf("lines: %q, %v", out.String(), err)
	}
	out.Reset()
	err := f.Check(context.Background(), []string{path}, &out, format.Rows(csv.Header(), csv.LabelColumns(csv.Name("class"))))
	if err != nil || !strings.HasPrefix(out.String(), path+": CSV: 2 rows of 2 data values and 1 labels") {
		t.Errorf("rows: %q, %v", out.String(), err)
	}
	out.Reset()
	os.WriteFile(path, []byte("1,2\n3,x\n"), 0o644)
	if err := f.Check(context.Background(), []string{path}, &out, format.Rows()); !errors.Is(err, tensorfeed.ErrBadData) || out.Len() != 0 {
		t.Errorf("a bad row: %q, %v", out.String(), err)
	}
}
