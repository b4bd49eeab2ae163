package format

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// tfrecordHead returns the start of a TFRecord file: a record of 5 bytes,
// its length's CRC and the data.
func tfrecordHead() []byte {
	b := binary.LittleEndian.AppendUint64(nil, 5)
	b = binary.LittleEndian.AppendUint32(b, tfrecord.MaskedCRC(b))
	return append(b, "hello"...)
}

// tarHeader returns one tar header block, as archive/tar writes it.
func tarHeader() []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "0001.cls", Mode: 0o644, Size: 1})
	tw.Write([]byte("1"))
	tw.Close()
	return buf.Bytes()[:headSize]
}

func TestDetectFormat(t *testing.T) {
	idx := []byte{0, 0, 8, 1, 0, 0, 0, 2, 5, 6}
	rec := []byte{0x0a, 0x23, 0xd7, 0xce, 4, 0, 0, 0, 1, 2, 3, 4}
	tfrec := tfrecordHead()
	tarHead := tarHeader()
	cases := []struct {
		name string
		head []byte
		want string
		err  string // part of the error, when one is wanted
	}{
		{"train-images-idx3-ubyte", idx, "idx", ""},
		{"data.bin", idx, "idx", ""},           // magic over name
		{"labels.csv", idx, "idx", ""},         // magic over extension
		{"x.gz", gzipped(idx), "idx", ""},      // IDX inside gzip
		{"x.gz", gzipped(idx)[:12], "idx", ""}, // cut gzip: the IDX reader says where
		{"x.gz", gzipped([]byte("a,b\n1,2\n")), "", "gzip stream that holds neither an IDX file, TFRecord nor a tar shard"},
		{"t10k-labels-idx1-ubyte", []byte{8, 3}, "idx", ""}, // bad magic, IDX name
		{"short", []byte{0, 0}, "idx", ""},
		{"train.rec", rec, "recordio", ""},
		{"whatever", rec, "recordio", ""},
		{"train.rec", []byte{1, 2, 3}, "recordio", ""}, // the RecordIO reader reports the bad magic
		{"train.lst", []byte("0\t1\ta.jpg\n"), "lst", ""},
		{"train.txt", []byte("0\t1\ta.jpg\n"), "csv", ""}, // extension over sniffing
		{"noext", []byte("0\t1.000000\tcat/a.jpg\n"), "lst", ""},
		{"train.idx", []byte("0\t0\n1\t64\n"), "recordio", ""},
		{"noext", []byte("0\t0\n1\t64\n"), "recordio", ""},
		{"iris.csv", []byte("5.1,3.5,setosa\n"), "csv", ""},
		{"noext", []byte("1,2,3\n4,5,6\n"), "csv", ""},
		{"empty.csv", nil, "", "empty file"},
		{"noext", []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a}, "image", ""}, // cut in the signature: the image check says so
		{"noext", []byte{0x89, 'P', 'N'}, "", "unknown format: binary data starting 89 50 4e"},
		{"photo", []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F', 'I', 'F'}, "image", ""},               // JPEG magic
		{"photo.csv", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), "image", ""},                       // magic over extension
		{"cat.JPG", []byte("not a photo\n"), "image", ""},                                                 // name: the image check says it is not one
		{"cat.png", []byte("GIF89a"), "image", ""},                                                        // name
		{"noext", []byte{0xff, 0xd8, 0x00, 0x01}, "", "unknown format: binary data starting ff d8 00 01"}, // SOI then no marker
		{"dump.bin", []byte("GIF89a\x01\x00"), "", "JPEG (ff d8 ff) nor PNG (89 50 4e 47)"},
		{"noext", []byte("hello world\n"), "", "name its format"},
		{"data.bin", tfrec, "tfrecord", ""},                 // a length whose CRC verifies
		{"data.gz", gzipped(tfrec), "tfrecord", ""},         // inside gzip too
		{"train.tfrecord", []byte{1, 2, 3}, "tfrecord", ""}, // name: the reader says what is wrong
		{"train.tfrecords.gz", gzipped(nil)[:10], "tfrecord", ""},
		{"shard", tarHead, "wds", ""},
		{"table", []byte("PAR1\x15\x04"), "parquet", ""},
		{"rows.csv", []byte("PAR1\x15\x04"), "parquet", ""},    // magic over extension
		{"rows.parquet", []byte{1, 2, 3, 4, 5}, "parquet", ""}, // name: the reader reports the bad magic
		{"shard.gz", gzipped(tarHead), "wds", ""},
		{"shard-000.tar", []byte("junk"), "wds", ""},
		{"shard-000.tgz", []byte{0x1f, 0x8b}, "wds", ""},
		{"shard-000.tar.gz", gzipped([]byte("not a tar")), "wds", ""},
		{"x.gz", gzipped([]byte{0, 0, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0}), "idx", ""}, // length 0x108 with a CRC that fails: IDX
		{"mean.bin", []byte{0x12, 1, 0, 0, 0, 0, 0, 0, 0, 0}, "meanimg", ""},     // NDArray list magic
		{"mean_224.nd", []byte{0x12, 1, 0, 0, 0, 0, 0}, "", "unknown format"},    // too short for the magic
	}
	for _, c := range cases {
		got, err := Default().detect(c.name, c.head)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Default().detect(%q, % x) = %q, %v; want an error with %q", c.name, c.head, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Default().detect(%q, % x) = %q, %v; want %q", c.name, c.head, got, err, c.want)
		}
	}
}

// FuzzDetect: detectFormat never panics, is deterministic, and either names
// a format check knows or says why not.
func FuzzDetect(f *testing.F) {
	f.Add("train-images-idx3-ubyte", []byte{0, 0, 8, 3, 0, 0, 0, 1})
	f.Add("x.gz", gzipped([]byte{0, 0, 8, 1, 0, 0, 0, 0}))
	f.Add("a.rec", []byte{0x0a, 0x23, 0xd7, 0xce, 0, 0, 0, 0})
	f.Add("a.lst", []byte("0\t1\ta.jpg\n"))
	f.Add("a.csv", []byte("1,2\n"))
	f.Add("a", []byte{0x1f, 0x8b, 8, 0})
	f.Add("a.idx", []byte("0\t0\n"))
	f.Add("a", tfrecordHead())
	f.Add("a.tfrecord.gz", gzipped(tfrecordHead()))
	f.Add("a.tar", tarHeader())
	f.Add("a", gzipped(tarHeader()))
	f.Add("a.tgz", []byte{0x1f, 0x8b, 8, 0})
	f.Add("a", []byte("PAR1\x15\x04"))
	f.Add("a.parquet", []byte("PAR"))
	f.Add("a.jpg", []byte{0xff, 0xd8, 0xff, 0xdb})
	f.Add("a", []byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		if len(head) > headSize {
			head = head[:headSize]
		}
		f1, err1 := Default().detect(name, head)
		f2, err2 := Default().detect(name, head)
		if f1 != f2 || (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("not deterministic: %q %v, then %q %v", f1, err1, f2, err2)
		}
		_, known := Default().Lookup(f1)
		if (err1 == nil) != known {
			t.Fatalf("format %q with error %v", f1, err1)
		}
	})
}
