package badinput

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// smallImage draws a w x h picture whose colours depend on seed.
func smallImage(w, h, seed int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x*16 + seed*40), uint8(y*16 + seed*10), uint8(seed * 60), 255})
		}
	}
	return m
}

func pngBytes(seed int) []byte {
	var buf bytes.Buffer
	png.Encode(&buf, smallImage(8, 6, seed))
	return buf.Bytes()
}

func jpegBytes(seed int) []byte {
	var buf bytes.Buffer
	jpeg.Encode(&buf, smallImage(16, 12, seed), &jpeg.Options{Quality: 90})
	return buf.Bytes()
}

// record returns an image record payload: the header for id and label, then
// the image bytes.
func record(id int, img []byte) []byte {
	return imagerec.AppendRecord(nil, imagerec.Header{ID: uint64(id), Label: float32(id % 3)}, img)
}

// recFile frames payloads as RecordIO records and returns the file and the
// offset of each record.
func recFile(payloads ...[]byte) ([]byte, []int64) {
	var buf bytes.Buffer
	rw := recordio.NewWriter(&buf)
	var offs []int64
	for _, p := range payloads {
		offs = append(offs, rw.Tell())
		rw.Write(p)
	}
	return buf.Bytes(), offs
}

// part returns one RecordIO part: magic, cflag<<29 | len, the data padded
// to 4 bytes.
func part(cflag uint32, data []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, recordio.Magic)
	b = binary.LittleEndian.AppendUint32(b, cflag<<29|uint32(len(data)))
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// goodRecords returns three image records: two PNG and one JPEG.
func goodRecords() [][]byte {
	return [][]byte{record(0, pngBytes(0)), record(1, jpegBytes(1)), record(2, pngBytes(2))}
}

func (w *writer) recordIO() {
	rec, offs := recFile(goodRecords()...)
	w.add(good("rec_good", ImageRecord), "rec_good.rec", rec)

	bm := bytes.Clone(rec)
	bm[offs[1]] ^= 0x01
	w.add(bad("rec_bad_magic", ImageRecord, "record 1's magic word is wrong"), "rec_bad_magic.rec", bm)

	// Record 1's length is 1 MB: past the end of the file.
	pe := bytes.Clone(rec)
	binary.LittleEndian.PutUint32(pe[offs[1]+4:], 1<<20)
	w.add(bad("rec_length_past_eof", ImageRecord, "record 1 claims 1 MB, past the end of the file"), "rec_length_past_eof.rec", pe)

	w.add(bad("rec_truncated", ImageRecord, "the file ends inside record 2"),
		"rec_truncated.rec", rec[:offs[2]+8+20])
	w.add(bad("rec_truncated_header", ImageRecord, "the file ends inside record 2's part header"),
		"rec_truncated_header.rec", rec[:offs[2]+6])

	// A continuation part (cflag 2) with no first part before it.
	cont := append(bytes.Clone(rec[:offs[1]]), part(2, []byte("middle of nothing"))...)
	w.add(bad("rec_bad_cflag_middle_first", ImageRecord, "a middle part (cflag 2) with no first part"),
		"rec_bad_cflag_middle_first.rec", cont)
	// A first part (cflag 1) followed by a whole record (cflag 0).
	open := append(bytes.Clone(rec[:offs[1]]), part(1, []byte("first part"))...)
	open = append(open, rec[offs[1]:]...)
	w.add(bad("rec_bad_cflag_unfinished", ImageRecord, "a first part (cflag 1) followed by a whole record, not its continuation"),
		"rec_bad_cflag_unfinished.rec", open)
	// cflag 3 (last part) on its own.
	last := append(bytes.Clone(rec), part(3, []byte("last part"))...)
	w.add(bad("rec_bad_cflag_last_alone", ImageRecord, "a last part (cflag 3) with no first part"),
		"rec_bad_cflag_last_alone.rec", last)
	w.add(bad("rec_not_records", ImageRecord, "random bytes after the first record"),
		"rec_not_records.rec", append(bytes.Clone(rec[:offs[1]]), []byte("this is not a record at all....")...))
}
