package recordio_test

import (
	"bufio"
	"context"
	"fmt"

	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testdata = "../imagerec/testdata"

// tsvFiles are the dmlc-written image record files with a .records.tsv.
var tsvFiles = []string{
	"mnist_t10k_1000_jpg",
	"mnist_t10k_1000_jpg_multilabel",
	"mnist_t10k_1000_png_gray",
}

// allRecFiles are all .rec files of the test data.
var allRecFiles = append(append([]string(nil), tsvFiles...), "multipart_edge_cases")

func recPath(name string) string { return filepath.Join(testdata, name+".rec") }
func idxPath(name string) string { return filepath.Join(testdata, name+".idx") }

// tsvRow is one line of a .records.tsv file.
type tsvRow struct {
	key, offset, nparts int64
	cflags              string
	recordLen           int
	flag                uint32
	headerLabel         string
	labelArray          string
	id, id2             uint64
	imageLen            int
	imageSHA            string
}

func readTSV(t testing.TB, name string) []tsvRow {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, name+".records.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	want := "#key\toffset\tnparts\tcflags\trecord_len\tflag\theader_label\tlabel_array\tid\tid2\timage_len\timage_format\timage_sha256"
	if sc.Text() != want {
		t.Fatalf("%s: unexpected header %q", name, sc.Text())
	}
	var rows []tsvRow
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 13 {
			t.Fatalf("%s: bad row %q", name, sc.Text())
		}
		atoi := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return v
		}
		rows = append(rows, tsvRow{
			key: atoi(c[0]), offset: atoi(c[1]), nparts: atoi(c[2]), cflags: c[3],
			recordLen: int(atoi(c[4])), flag: uint32(atoi(c[5])), headerLabel: c[6], labelArray: c[7],
			id: uint64(atoi(c[8])), id2: uint64(atoi(c[9])), imageLen: int(atoi(c[10])), imageSHA: c[12],
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// edgeCases is multipart_edge_cases.json.
type edgeCases struct {
	Records []struct {
		Key    int64  `json:"key"`
		Name   string `json:"name"`
		Offset int64  `json:"offset"`
		Parts  []struct {
			CFlag  uint32 `json:"cflag"`
			Length int    `json:"length"`
		} `json:"parts"`
		PayloadLength int    `json:"payload_length"`
		PayloadSHA    string `json:"payload_sha256"`
		PayloadHex    string `json:"payload_hex"`
	} `json:"records"`
}

func readEdgeCases(t testing.TB) edgeCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "multipart_edge_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ec edgeCases
	if err := json.Unmarshal(b, &ec); err != nil {
		t.Fatal(err)
	}
	if len(ec.Records) == 0 {
		t.Fatal("no records in multipart_edge_cases.json")
	}
	return ec
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// part is one raw part header found by walking a file independently of the
// package's reader.
type part struct {
	cflag  uint32
	length int
}

// rawParts walks the part headers of the record at off in file.
func rawParts(t testing.TB, file []byte, off int64) []part {
	t.Helper()
	var ps []part
	for {
		if binary.LittleEndian.Uint32(file[off:]) != 0xced7230a {
			t.Fatalf("no magic at %d", off)
		}
		lrec := binary.LittleEndian.Uint32(file[off+4:])
		p := part{lrec >> 29, int(lrec & (1<<29 - 1))}
		ps = append(ps, p)
		off += 8 + int64((p.length+3)&^3)
		if p.cflag == 0 || p.cflag == 3 {
			return ps
		}
	}
}

// image returns the image bytes of an image record payload.
func image(t testing.TB, payload []byte) []byte {
	t.Helper()
	flag := binary.LittleEndian.Uint32(payload)
	start := 24 + 4*int(flag)
	if start > len(payload) {
		t.Fatalf("flag %d too large for a %d-byte payload", flag, len(payload))
	}
	return payload[start:]
}

// frame builds raw RecordIO bytes from (cflag, data) parts, with padding.
func frame(parts ...rawPart) []byte {
	var b []byte
	for _, p := range parts {
		b = binary.LittleEndian.AppendUint32(b, 0xced7230a)
		n := len(p.data)
		if p.length != 0 {
			n = p.length
		}
		b = binary.LittleEndian.AppendUint32(b, p.cflag<<29|uint32(n))
		b = append(b, p.data...)
		for len(b)%4 != 0 && !p.noPad {
			b = append(b, 0)
		}
	}
	return b
}

type rawPart struct {
	cflag  uint32
	data   []byte
	length int  // length word to write when not len(data)
	noPad  bool // leave out the padding
}

// records is Open over paths as a ';'-separated list.
func records(paths []string, opts ...recordio.Option) source.Reader[recordio.Record] {
	return recordio.Open(strings.Join(paths, ";"), opts...)
}

// openRandom opens the .rec file at rec for random access through the
// index at idx, and returns the index too.
func openRandom(t testing.TB, rec, idx string) (*recordio.RandomReader, *recordio.Index) {
	t.Helper()
	ix, err := recordio.ReadIndex(context.Background(), idx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return recordio.NewRandomReader(rec, f, st.Size(), ix), ix
}

// byKey reads the record with index key key of ix through rr.
func byKey(rr *recordio.RandomReader, ix *recordio.Index, key int64) ([]byte, error) {
	off, ok := ix.Lookup(key)
	if !ok {
		return nil, fmt.Errorf("key %d not in the index", key)
	}
	return rr.AppendAt(nil, off)
}

// withIndex copies the .rec file at rec into a new directory, with the
// .idx file at idx beside it under its name, and returns the copy's path:
// OpenIndexed reads the index beside each .rec.
func withIndex(t testing.TB, rec, idx string) string {
	t.Helper()
	dir := t.TempDir()
	name := filepath.Join(dir, filepath.Base(rec))
	if err := os.WriteFile(name, mustRead(t, rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(name, ".rec")+".idx", mustRead(t, idx), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// entries returns the entries of ix, in file order.
func entries(ix *recordio.Index) []recordio.IndexEntry {
	out := make([]recordio.IndexEntry, ix.Len())
	for i := range out {
		out[i] = ix.Entry(i)
	}
	return out
}
