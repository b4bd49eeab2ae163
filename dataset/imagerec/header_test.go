package imagerec_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
)

// headerTSVRows reads a .records.tsv file into its columns by name.
func headerTSVRows(t testing.TB, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	names := strings.Split(strings.TrimPrefix(sc.Text(), "#"), "\t")
	var rows []map[string]string
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != len(names) {
			t.Fatalf("%s: bad row %q", path, sc.Text())
		}
		row := map[string]string{}
		for i, n := range names {
			row[n] = cols[i]
		}
		rows = append(rows, row)
	}
	return rows
}

func headerParseF32(t testing.TB, s string) float32 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return float32(v)
}

// Every record of the dmlc-written files parses to the header and image
// that its .records.tsv lists, and encodes back to the same payload.
func TestParseRecordTestdata(t *testing.T) {
	for _, name := range []string{"mnist_t10k_1000_jpg", "mnist_t10k_1000_jpg_multilabel", "mnist_t10k_1000_png_gray"} {
		t.Run(name, func(t *testing.T) {
			rows := headerTSVRows(t, "testdata/"+name+".records.tsv")
			recs, err := source.Collect(context.Background(), recordio.Open("testdata/"+name+".rec"))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(rows) {
				t.Fatalf("%d records, tsv has %d", len(recs), len(rows))
			}
			var h imagerec.Header // reused, as ParseRecordInto allows
			for i, row := range rows {
				img, err := imagerec.ParseRecordInto(&h, recs[i].Data)
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if fmt.Sprint(h.Flag) != row["flag"] || fmt.Sprint(h.ID) != row["id"] || fmt.Sprint(h.ID2) != row["id2"] {
					t.Errorf("record %d: flag %d id %d id2 %d, want %s %s %s", i, h.Flag, h.ID, h.ID2, row["flag"], row["id"], row["id2"])
				}
				if h.Label != headerParseF32(t, row["header_label"]) {
					t.Errorf("record %d: label %v, want %s", i, h.Label, row["header_label"])
				}
				var want []float32
				if row["label_array"] != "" {
					for _, s := range strings.Split(row["label_array"], ",") {
						want = append(want, headerParseF32(t, s))
					}
				}
				if fmt.Sprint(h.Labels) != fmt.Sprint(want) || len(h.Labels) != int(h.Flag) {
					t.Errorf("record %d: labels %v, want %v", i, h.Labels, want)
				}
				sum := sha256.Sum256(img)
				if fmt.Sprint(len(img)) != row["image_len"] || hex.EncodeToString(sum[:]) != row["image_sha256"] {
					t.Errorf("record %d: image of %d bytes differs", i, len(img))
				}
				if again := imagerec.AppendRecord(nil, h, img); !bytes.Equal(again, recs[i].Data) {
					t.Errorf("record %d: AppendRecord does not give the payload back", i)
				}
			}
		})
	}
}

// The edge-case file holds two image records whose headers contain the magic
// word (an id equal to it, and an image starting with it); they parse once
// the framing has joined their parts.
func TestParseRecordSplitPayloads(t *testing.T) {
	f, err := recordio.OpenIndexed(t.Context(), "testdata/multipart_edge_cases.rec")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byKey := func(key int64) ([]byte, error) {
		for i := range f.Len() {
			if _, _, k := f.Locate(i); k == key {
				return f.Get(i)
			}
		}
		return nil, fmt.Errorf("no record with key %d", key)
	}
	p10, err1 := byKey(10)
	p11, err2 := byKey(11)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	h, img, err := imagerec.ParseRecord(p10)
	if err != nil || h.Flag != 0 || h.ID != 0xced7230a || !bytes.HasPrefix(img, []byte{0xff, 0xd8}) {
		t.Errorf("record 10: %+v, image %x, %v", h, img, err)
	}
	h, img, err = imagerec.ParseRecord(p11)
	if err != nil || h.Flag != 2 || h.ID != 42 || len(h.Labels) != 2 || h.Labels[0] != 1.5 || h.Labels[1] != -2 ||
		!bytes.HasPrefix(img, []byte{0x0a, 0x23, 0xd7, 0xce}) {
		t.Errorf("record 11: %+v, image %x, %v", h, img, err)
	}
}

func TestParseRecordErrors(t *testing.T) {
	withFlag := func(flag uint32, extra int) []byte {
		p := imagerec.AppendRecord(nil, imagerec.Header{ID: 1}, make([]byte, extra))
		p[0], p[1], p[2], p[3] = byte(flag), byte(flag>>8), byte(flag>>16), byte(flag>>24)
		return p
	}
	cases := []struct {
		name    string
		payload []byte
		msg     string
	}{
		{"empty", nil, "record of 0 bytes is shorter than the 24-byte header"},
		{"short", make([]byte, 23), "record of 23 bytes"},
		{"flag past end", withFlag(3, 11), "flag 3 asks for 3 labels, but the 35-byte record has room for 2"},
		{"huge flag", withFlag(math.MaxUint32, 0), "flag 4294967295"},
	}
	for _, c := range cases {
		_, _, err := imagerec.ParseRecord(c.payload)
		if !errors.Is(err, imagerec.ErrHeader) || !strings.Contains(fmt.Sprint(err), c.msg) {
			t.Errorf("%s: %v, want ErrHeader saying %q", c.name, err, c.msg)
		}
	}
	// The largest flag that fits is fine, and leaves no image bytes.
	h, img, err := imagerec.ParseRecord(withFlag(3, 12))
	if err != nil || len(h.Labels) != 3 || len(img) != 0 {
		t.Errorf("flag 3 with 12 bytes: %+v %x %v", h, img, err)
	}
}

func TestHeaderEncode(t *testing.T) {
	h := imagerec.Header{Flag: 7, Label: 2.5, ID: 0x0102030405060708, ID2: 9, Labels: []float32{1, -1}}
	b := imagerec.AppendRecord(nil, h, nil)
	want := "02000000" + "00002040" + "0807060504030201" + "0900000000000000" + "0000803f" + "000080bf"
	if hex.EncodeToString(b) != want {
		t.Errorf("AppendRecord(nil, h, nil) = %x, want %s (flag from len(Labels))", b, want)
	}
	got, img, err := imagerec.ParseRecord(imagerec.AppendRecord(nil, h, []byte("jpeg")))
	if err != nil || string(img) != "jpeg" || got.Flag != 2 || got.ID != h.ID || got.Label != 2.5 {
		t.Errorf("round trip: %+v %q %v", got, img, err)
	}
	if l := (imagerec.Header{Label: 4}).AppendLabels(nil); len(l) != 1 || l[0] != 4 {
		t.Errorf("AppendLabels with flag 0 = %v, want [4]", l)
	}
	if l := got.AppendLabels([]float32{9}); fmt.Sprint(l) != "[9 1 -1]" {
		t.Errorf("AppendLabels = %v, want [9 1 -1]", l)
	}
}

func TestParseRecordIntoNoAlloc(t *testing.T) {
	p := imagerec.AppendRecord(nil, imagerec.Header{Labels: []float32{1, 2, 3}}, []byte("img"))
	var h imagerec.Header
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := imagerec.ParseRecordInto(&h, p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per ParseRecordInto, want 0", allocs)
	}
}

// FuzzParseRecord: a payload that parses encodes back to the same bytes; one
// that does not gives ErrHeader.
func FuzzParseRecord(f *testing.F) {
	for _, name := range []string{"mnist_t10k_1000_jpg_multilabel", "mnist_t10k_1000_png_gray", "multipart_edge_cases"} {
		n := 0
		for rec, err := range recordio.Open("testdata/" + name + ".rec").All(context.Background()) {
			if err != nil {
				f.Fatal(err)
			}
			if n++; n > 12 {
				break
			}
			f.Add(rec.Data)
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		h, img, err := imagerec.ParseRecord(payload)
		if err != nil {
			if !errors.Is(err, imagerec.ErrHeader) {
				t.Fatalf("error %v does not wrap ErrHeader", err)
			}
			return
		}
		if int(h.Flag) != len(h.Labels) {
			t.Fatalf("flag %d with %d labels", h.Flag, len(h.Labels))
		}
		if again := imagerec.AppendRecord(nil, h, img); !bytes.Equal(again, payload) {
			t.Fatalf("AppendRecord = %x, want %x", again, payload)
		}
	})
}

func ExampleParseRecord() {
	payload := imagerec.AppendRecord(nil, imagerec.Header{ID: 7, Labels: []float32{3, 0.5}}, []byte("\xff\xd8..."))
	h, img, err := imagerec.ParseRecord(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("flag %d, id %d, labels %v, image %q\n", h.Flag, h.ID, h.AppendLabels(nil), img)
	// Output: flag 2, id 7, labels [3 0.5], image "\xff\xd8..."
}
