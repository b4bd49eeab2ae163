package recordio_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// readAll reads every record of b with the pull reader.
func readAll(t testing.TB, name string, b []byte) (payloads [][]byte, offsets []int64) {
	t.Helper()
	rd := recordio.NewReader(bytes.NewReader(b), name)
	for {
		p, err := rd.Next()
		if err == io.EOF {
			return payloads, offsets
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", name, len(payloads), err)
		}
		payloads = append(payloads, p)
		offsets = append(offsets, rd.Offset())
	}
}

// The dmlc-written image record files read back as their .records.tsv says.
func TestReadTestdataTSV(t *testing.T) {
	for _, name := range tsvFiles {
		t.Run(name, func(t *testing.T) {
			file := mustRead(t, recPath(name))
			rows := readTSV(t, name)
			payloads, offsets := readAll(t, name, file)
			if len(payloads) != len(rows) || len(rows) != 1000 {
				t.Fatalf("read %d records, tsv has %d", len(payloads), len(rows))
			}
			for i, row := range rows {
				p := payloads[i]
				if offsets[i] != row.offset {
					t.Errorf("record %d: offset %d, want %d", i, offsets[i], row.offset)
				}
				if len(p) != row.recordLen {
					t.Errorf("record %d: %d bytes, want %d", i, len(p), row.recordLen)
				}
				img := image(t, p)
				if len(img) != row.imageLen || sha(img) != row.imageSHA {
					t.Errorf("record %d: image %d bytes sha %s, want %d bytes sha %s",
						i, len(img), sha(img), row.imageLen, row.imageSHA)
				}
				var cflags []string
				for _, pt := range rawParts(t, file, row.offset) {
					cflags = append(cflags, fmt.Sprint(pt.cflag))
				}
				if int64(len(cflags)) != row.nparts || strings.Join(cflags, ",") != row.cflags {
					t.Errorf("record %d: parts %v, want %d parts with flags %q", i, cflags, row.nparts, row.cflags)
				}
			}
		})
	}
}

// multipart_edge_cases.rec reads back as its .json says: payloads, offsets
// and the (cflag, length) of every part.
func TestReadTestdataEdgeCases(t *testing.T) {
	ec := readEdgeCases(t)
	file := mustRead(t, recPath("multipart_edge_cases"))
	payloads, offsets := readAll(t, "multipart_edge_cases", file)
	if len(payloads) != len(ec.Records) {
		t.Fatalf("read %d records, want %d", len(payloads), len(ec.Records))
	}
	for i, want := range ec.Records {
		t.Run(want.Name, func(t *testing.T) {
			p := payloads[i]
			if hex.EncodeToString(p) != want.PayloadHex || sha(p) != want.PayloadSHA || len(p) != want.PayloadLength {
				t.Errorf("payload %x (%d bytes), want %s (%d bytes)", p, len(p), want.PayloadHex, want.PayloadLength)
			}
			if offsets[i] != want.Offset {
				t.Errorf("offset %d, want %d", offsets[i], want.Offset)
			}
			got := rawParts(t, file, want.Offset)
			if len(got) != len(want.Parts) {
				t.Fatalf("parts %v, want %v", got, want.Parts)
			}
			for j, wp := range want.Parts {
				if got[j].cflag != wp.CFlag || got[j].length != wp.Length {
					t.Errorf("part %d: (%d, %d), want (%d, %d)", j, got[j].cflag, got[j].length, wp.CFlag, wp.Length)
				}
			}
		})
	}
}

// Writing the payloads again gives the very bytes dmlc-core wrote, and the
// writer's Tell gives the .idx file.
func TestWriteTestdataIdentical(t *testing.T) {
	for _, name := range allRecFiles {
		t.Run(name, func(t *testing.T) {
			file := mustRead(t, recPath(name))
			payloads, _ := readAll(t, name, file)
			ix, err := recordio.ReadIndex(context.Background(), idxPath(name))
			if err != nil {
				t.Fatal(err)
			}
			if ix.Len() != len(payloads) {
				t.Fatalf("index has %d entries, file %d records", ix.Len(), len(payloads))
			}
			var out bytes.Buffer
			w := recordio.NewWriter(&out)
			var idx []byte
			for i, p := range payloads {
				idx = recordio.AppendIndexLine(idx, ix.Entry(i).Key, w.Tell())
				if err := w.Write(p); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(out.Bytes(), file) {
				t.Errorf("re-written file differs: %d bytes, want %d; first difference at %d",
					out.Len(), len(file), firstDiff(out.Bytes(), file))
			}
			if w.Tell() != int64(len(file)) {
				t.Errorf("Tell %d, want %d", w.Tell(), len(file))
			}
			if want := mustRead(t, idxPath(name)); !bytes.Equal(idx, want) {
				t.Errorf("re-built index differs at byte %d", firstDiff(idx, want))
			}
			wantSplits := 0
			if name == "multipart_edge_cases" {
				wantSplits = 13 // what dmlc-core's writer reported
			}
			if recordio.Splits(w) != wantSplits {
				t.Errorf("Splits %d, want %d", recordio.Splits(w), wantSplits)
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
