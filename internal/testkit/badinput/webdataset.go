package badinput

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"fmt"
)

// member is one tar member of a shard.
type member struct {
	name string
	data []byte
}

// tarFile writes members as a tar archive and returns it and the offset of
// each member's header.
func tarFile(ms ...member) ([]byte, []int64) {
	return tarFormat(tar.FormatUSTAR, ms...)
}

// tarFormat is tarFile with the headers in the given format.
func tarFormat(format tar.Format, ms ...member) ([]byte, []int64) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	var offs []int64
	for _, m := range ms {
		tw.Flush()
		offs = append(offs, int64(buf.Len()))
		tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.data)), Typeflag: tar.TypeReg, Format: format})
		tw.Write(m.data)
	}
	tw.Close()
	return buf.Bytes(), offs
}

// npy returns a NumPy .npy file (version 1.0) of float32 elements with
// the header dict and the data given.
func npy(dict string, data []byte) []byte {
	h := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", dict)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(h)))
	b = append(b, h...)
	return append(b, data...)
}

// goodSample returns the members of sample i: a label, an image, a JSON
// document and a float vector.
func goodSample(i int) []member {
	key := fmt.Sprintf("shard/%06d", i)
	img := member{key + ".png", pngBytes(i)}
	if i%2 == 1 {
		img = member{key + ".jpg", jpegBytes(i)}
	}
	return []member{
		{key + ".cls", fmt.Appendf(nil, "%d", i%3)},
		{key + ".json", fmt.Appendf(nil, `{"id": %d}`, i)},
		img,
		{key + ".npy", npy("(2,)", make([]byte, 8))},
	}
}

func goodMembers() []member {
	var ms []member
	for i := range 3 {
		ms = append(ms, goodSample(i)...)
	}
	return ms
}

// retype sets the type flag of the tar header at off and its checksum.
func retype(b []byte, off int64, flag byte) []byte {
	b = bytes.Clone(b)
	h := b[off : off+512]
	h[156] = flag
	copy(h[148:156], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// replace returns the members with the field of sample 1 named field
// holding data.
func replace(field string, data []byte) []member {
	ms := goodMembers()
	for i, m := range ms {
		if m.name == "shard/000001."+field {
			ms[i].data = data
		}
	}
	return ms
}

func (w *writer) webdataset() {
	ms := goodMembers()
	f, offs := tarFile(ms...)
	w.add(good("wds_good", WebDataset), "wds_good.tar", f)
	w.add(good("wds_good_gzip", WebDataset), "wds_good_gzip.tar.gz", gz(f))

	// The samples' offsets: sample 1 starts at member 4, sample 2 at 8.
	hc := bytes.Clone(f)
	hc[offs[5]+3] ^= 0x01
	w.add(bad("wds_bad_header_checksum", WebDataset, "a byte of member 5's name is flipped: its header checksum fails"),
		"wds_bad_header_checksum.tar", hc)
	w.add(bad("wds_truncated_header", WebDataset, "the shard ends inside member 9's header"),
		"wds_truncated_header.tar", f[:offs[9]+100])
	w.add(bad("wds_truncated_member", WebDataset, "the shard ends inside member 10's data"),
		"wds_truncated_member.tar", f[:offs[10]+512+10])
	w.add(bad("wds_no_end_blocks", WebDataset, "the shard ends after its last member, without the end-of-archive blocks"),
		"wds_no_end_blocks.tar", f[:len(f)-1024])
	w.addGzipDamaged("wds", WebDataset, ".tar.gz", f)

	split, _ := tarFile(append(append(goodSample(0), goodSample(1)...), member{"shard/000000.txt", []byte("late")})...)
	w.add(bad("wds_split_sample", WebDataset, "a member of sample 0 comes after sample 1"),
		"wds_split_sample.tar", split)
	dup, _ := tarFile(append(goodSample(0), member{"shard/000000.cls", []byte("2")})...)
	w.add(bad("wds_duplicate_field", WebDataset, "sample 0 holds its cls field twice"),
		"wds_duplicate_field.tar", dup)

	// A header that claims 100 GiB: the file holds a few bytes after it.
	var big bytes.Buffer
	tw := tar.NewWriter(&big)
	tw.WriteHeader(&tar.Header{Name: "shard/000000.bin", Mode: 0o644, Size: 100 << 30, Format: tar.FormatGNU})
	tw.Write([]byte("a few bytes"))
	tw.Flush() // fails: the member is not complete; what was written stays
	hdr := bytes.Clone(big.Bytes())
	w.add(bad("wds_oversized_member", WebDataset, "a member's header claims 100 GiB, past the end of the file"),
		"wds_oversized_member.tar", append(bytes.Clone(f[:offs[4]]), hdr...))
	w.add(bad("wds_gzip_oversized_member", WebDataset, "inside gzip, a member's header claims 100 GiB"),
		"wds_gzip_oversized_member.tar.gz", gz(append(append(bytes.Clone(f[:offs[4]]), hdr...), make([]byte, 4096)...)))

	sp, spOffs := tarFormat(tar.FormatGNU, append(goodSample(0), member{"shard/000001.bin", make([]byte, 600)})...)
	w.add(bad("wds_sparse_member", WebDataset, "member 4 is a GNU sparse file, whose holes archive/tar would expand"),
		"wds_sparse_member.tar", retype(sp, spOffs[4], tar.TypeGNUSparse))

	// Tar archives joined end to end (cat a.tar b.tar): the end-of-archive
	// blocks of the first stand in the middle of the shard, and readers that
	// stop at them drop the samples after them. The seam is at offs[8],
	// sample 2's first member, moved back by the end blocks of the first.
	first, _ := tarFile(goodMembers()[:8]...)
	second, _ := tarFile(goodMembers()[8:]...)
	w.add(bad("wds_joined_archives", WebDataset, "two tar archives joined end to end: sample 2 follows the end-of-archive blocks at offset %d", len(first)-1024),
		"wds_joined_archives.tar", append(bytes.Clone(first), second...))
	w.add(bad("wds_gzip_joined_archives", WebDataset, "two .tar.gz shards joined end to end: sample 2 follows the end-of-archive blocks of the first"),
		"wds_gzip_joined_archives.tar.gz", append(gz(first), gz(second)...))
	w.add(bad("wds_data_after_end", WebDataset, "bytes that are not zero padding follow the end-of-archive blocks"),
		"wds_data_after_end.tar", append(bytes.Clone(f), "trailing garbage"...))
	w.add(good("wds_zero_padding", WebDataset), "wds_zero_padding.tar", append(bytes.Clone(f), make([]byte, 10240-len(f)%10240+100)...))
	w.add(bad("wds_gzip_zero_padding_bomb", WebDataset, "256 MiB of zeros after the end-of-archive blocks, from a few hundred KiB of gzip: more padding than MaxMemberBytes"),
		"wds_gzip_zero_padding_bomb.tar.gz", gzipZeros(f, 256<<20))

	for _, c := range []struct {
		name, field string
		data        []byte
		why         string
	}{
		{"npy_huge_shape", "npy", npy("(1000000000, 1000)", make([]byte, 8)), "sample 1's .npy header claims 10^12 elements, 8 bytes follow"},
		{"npy_shape_overflow", "npy", npy("(4611686018427387904, 4)", make([]byte, 8)), "sample 1's .npy shape needs more than 2^63 bytes: its size overflows"},
		{"npy_bad_magic", "npy", []byte("\x93NUMPX\x01\x00\x10\x00{}"), "sample 1's .npy has a wrong magic"},
		{"npy_header_past_end", "npy", []byte("\x93NUMPY\x01\x00\xff\xff{'descr'"), "sample 1's .npy header length goes past its bytes"},
		{"cls_not_int", "cls", []byte("cat"), "sample 1's .cls is not an integer"},
		{"json_bad", "json", []byte(`{"id": `), "sample 1's .json is cut"},
		{"image_not_image", "jpg", []byte("this is not a JPEG"), "sample 1's .jpg does not decode"},
		{"image_sof2_bomb", "jpg", sof2Bomb(), "sample 1's .jpg is a progressive JPEG that claims 30000 x 30000 pixels"},
	} {
		b, _ := tarFile(replace(c.field, c.data)...)
		w.add(bad("wds_"+c.name, WebDataset, "%s", c.why), "wds_"+c.name+".tar", b)
	}
}
