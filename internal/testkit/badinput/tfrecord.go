package badinput

import (
	"bytes"
	"encoding/binary"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
)

// tfExample returns a serialized tf.train.Example with an image, a label
// and a float vector.
func tfExample(i int) []byte {
	var ex tfrecord.Example
	ex.SetBytes("image", pngBytes(i))
	ex.SetInt64s("label", int64(i%3))
	ex.SetFloat32s("box", 0.1*float32(i), 0.2, 0.3, 0.4)
	return ex.Marshal()
}

// tfFile frames payloads as TFRecord records and returns the file and the
// offset of each record.
func tfFile(payloads ...[]byte) ([]byte, []int64) {
	var buf bytes.Buffer
	tw := tfrecord.NewWriter(&buf)
	var offs []int64
	off := int64(0)
	for _, p := range payloads {
		offs = append(offs, off)
		off += 8 + 4 + int64(len(p)) + 4
		tw.Write(p)
	}
	tw.Close()
	return buf.Bytes(), offs
}

// tfLength sets the length of the record at off to n, with a length CRC
// that verifies, so that only the length itself is wrong.
func tfLength(file []byte, off int64, n uint64) []byte {
	b := bytes.Clone(file)
	binary.LittleEndian.PutUint64(b[off:], n)
	binary.LittleEndian.PutUint32(b[off+8:], tfrecord.MaskedCRC(b[off:off+8]))
	return b
}

// The tf.train.Example shapes below are valid protobuf that cost far more
// to decode than to send: each value or feature takes one or two bytes on
// the wire and a slice header, an int64 or a map entry once decoded. They
// are the shapes a parser's limits (tfrecord.MaxValues, MaxFeatures) are
// there for.

// TFExampleEmptyBytes returns a serialized tf.train.Example with one
// feature, "b", whose bytes_list holds n empty strings (2 bytes each).
func TFExampleEmptyBytes(n int) []byte {
	list := bytes.Repeat([]byte{0x0a, 0x00}, n) // BytesList.value = ""
	return tfExampleOne("b", 1, list)
}

// TFExampleUnpackedInt64 returns a serialized tf.train.Example with one
// feature, "i", whose int64_list holds n zeros, unpacked (2 bytes each).
func TFExampleUnpackedInt64(n int) []byte {
	list := bytes.Repeat([]byte{0x08, 0x00}, n) // Int64List.value = 0, a varint field
	return tfExampleOne("i", 3, list)
}

// TFExamplePackedInt64 returns a serialized tf.train.Example with one
// feature, "p", whose int64_list holds n small values in one packed field
// (1 byte each).
func TFExamplePackedInt64(n int) []byte {
	packed := make([]byte, n)
	for i := range packed {
		packed[i] = byte(i % 0x80)
	}
	list := protowire.AppendTag(nil, 1, protowire.BytesType)
	list = protowire.AppendBytes(list, packed)
	return tfExampleOne("p", 3, list)
}

// TFExampleTinyFeatures returns a serialized tf.train.Example with n
// features of distinct names of a few bytes, each an empty int64_list:
// 6 to 9 bytes a feature.
func TFExampleTinyFeatures(n int) []byte {
	var features []byte
	var name [8]byte
	for i := range n {
		// i in base 256, least significant byte first: distinct and short.
		k := 0
		for v := i; k == 0 || v > 0; v >>= 8 {
			name[k] = byte(v)
			k++
		}
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType) // key
		entry = protowire.AppendBytes(entry, name[:k])
		entry = protowire.AppendTag(entry, 2, protowire.BytesType) // value: Feature{int64_list {}}
		entry = protowire.AppendBytes(entry, []byte{0x1a, 0x00})
		features = protowire.AppendTag(features, 1, protowire.BytesType)
		features = protowire.AppendBytes(features, entry)
	}
	ex := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(ex, features)
}

// tfExampleOne wraps the body of one list message (field number listField
// of tf.train.Feature) as the Example's only feature, named name.
func tfExampleOne(name string, listField protowire.Number, list []byte) []byte {
	feature := protowire.AppendTag(nil, listField, protowire.BytesType)
	feature = protowire.AppendBytes(feature, list)
	entry := protowire.AppendTag(nil, 1, protowire.BytesType)
	entry = protowire.AppendString(entry, name)
	entry = protowire.AppendTag(entry, 2, protowire.BytesType)
	entry = protowire.AppendBytes(entry, feature)
	features := protowire.AppendTag(nil, 1, protowire.BytesType)
	features = protowire.AppendBytes(features, entry)
	ex := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(ex, features)
}

func (w *writer) tfrecord() {
	f, offs := tfFile(tfExample(0), tfExample(1), tfExample(2))
	w.add(good("tfrecord_good", TFRecord), "tfrecord_good.tfrecord", f)
	w.add(good("tfrecord_good_gzip", TFRecord), "tfrecord_good_gzip.tfrecord.gz", gz(f))
	raw, _ := tfFile([]byte("not an Example"), nil, []byte{0xff, 0xff})
	w.add(good("tfrecord_good_not_examples", TFRecord), "tfrecord_good_not_examples.tfrecords", raw)

	lc := bytes.Clone(f)
	lc[offs[1]+9] ^= 0x01
	w.add(bad("tfrecord_bad_length_crc", TFRecord, "record 1's length CRC does not match its length"),
		"tfrecord_bad_length_crc.tfrecord", lc)
	dc := bytes.Clone(f)
	dc[offs[1]+12+5] ^= 0x01
	w.add(bad("tfrecord_bad_data_crc", TFRecord, "a byte of record 1's data is flipped: its data CRC fails"),
		"tfrecord_bad_data_crc.tfrecord", dc)
	w.add(bad("tfrecord_length_past_eof", TFRecord, "record 1 claims 1 MB, past the end of the file"),
		"tfrecord_length_past_eof.tfrecord", tfLength(f, offs[1], 1<<20))
	w.add(bad("tfrecord_huge_length", TFRecord, "record 1 claims 2^62 bytes, with a length CRC that verifies"),
		"tfrecord_huge_length.tfrecord", tfLength(f, offs[1], 1<<62))
	w.add(bad("tfrecord_gzip_huge_length", TFRecord, "inside gzip, record 1 claims 2^40 bytes, with a length CRC that verifies"),
		"tfrecord_gzip_huge_length.tfrecord.gz", gz(tfLength(f, offs[1], 1<<40)))
	w.add(bad("tfrecord_gzip_length_past_eof", TFRecord, "inside gzip, record 1 claims 200 MB, past the end of the stream"),
		"tfrecord_gzip_length_past_eof.tfrecord.gz", gz(tfLength(f, offs[1], 200<<20)))
	for _, cut := range []struct {
		name string
		at   int64
		why  string
	}{
		{"header", offs[2] + 5, "inside record 2's length"},
		{"length_crc", offs[2] + 10, "inside record 2's length CRC"},
		{"data", offs[2] + 12 + 7, "inside record 2's data"},
		{"data_crc", int64(len(f)) - 2, "inside record 2's data CRC"},
	} {
		w.add(bad("tfrecord_truncated_"+cut.name, TFRecord, "the file ends %s", cut.why),
			"tfrecord_truncated_"+cut.name+".tfrecord", f[:cut.at])
	}

	// Bad tf.train.Example in sound framing: the reader passes them on,
	// "tensorfeed check" parses them (CheckOnly).
	exs := make([][]byte, 50)
	for i := range exs {
		exs[i] = tfExample(i)
	}
	exs[20] = []byte{0x0a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 'x', 0x12, 0x05, 0x12, 0x03, 0x0a, 0x01, 0x00}
	mixed, _ := tfFile(exs...)
	c := bad("tfrecord_bad_example", TFRecord, "record 20 of 50 tf.train.Example does not parse: a packed float_list of 1 byte")
	c.CheckOnly = true
	w.add(c, "tfrecord_bad_example.tfrecord", mixed)
	for _, bomb := range []struct {
		name string
		ex   []byte
		why  string
	}{
		{"empty_strings", TFExampleEmptyBytes(2 << 20), "2 Mi empty strings in a bytes_list (4 MB; 48 MB as [][]byte)"},
		{"tiny_features", TFExampleTinyFeatures(200_000), "200000 features (2 MB; 40 MB as a map)"},
		{"unpacked_int64", TFExampleUnpackedInt64(2 << 20), "2 Mi unpacked int64 (4 MB; 16 MB as []int64)"},
		{"packed_int64", TFExamplePackedInt64(4 << 20), "4 Mi packed 1-byte int64 (4 MB; 32 MB as []int64)"},
	} {
		file, _ := tfFile(bomb.ex)
		c := bad("tfrecord_example_"+bomb.name, TFRecord, "a tf.train.Example over the parser's limits: %s", bomb.why)
		c.CheckOnly = true
		w.add(c, "tfrecord_example_"+bomb.name+".tfrecord", file)
	}
	c = bad("tfrecord_example_empty_strings_80mb", TFRecord, "a tf.train.Example of 40 M empty strings in a bytes_list: 80 MB, 960 MB as [][]byte")
	c.CheckOnly, c.Large = true, true
	w.addStream(c, "tfrecord_example_empty_strings_80mb.tfrecord", func(out io.Writer) error {
		tw := tfrecord.NewWriter(out)
		if err := tw.Write(TFExampleEmptyBytes(40_000_000)); err != nil {
			return err
		}
		return tw.Close()
	})

	w.addGzipDamaged("tfrecord", TFRecord, ".tfrecord.gz", f)
}
