package badinput

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pqRow is a row of the corpus's Parquet files: a plain column, a
// dictionary-encoded one, a byte array and a list.
type pqRow struct {
	ID    int64     `parquet:"id"`
	Label int32     `parquet:"label,dict"`
	Name  string    `parquet:"name"`
	Vec   []float32 `parquet:"vec,list"`
}

// pqRowGroups and pqGroupRows shape the good file: 3 row groups of 4 rows.
const (
	pqRowGroups = 3
	pqGroupRows = 4
)

// pqFile is a Parquet file laid out for editing: its bytes, its decoded
// footer and where the footer starts.
type pqFile struct {
	b      []byte
	md     format.FileMetaData
	footer int64
}

// pqGood writes the good file, uncompressed with codec nil, and parses its
// layout.
func pqGood(codec pq.WriterOption) *pqFile {
	var buf bytes.Buffer
	opts := []pq.WriterOption{pq.MaxRowsPerRowGroup(pqGroupRows), pq.DataPageVersion(1), pq.CreatedBy("tensorfeed-badinput", "1", "1")}
	if codec != nil {
		opts = append(opts, codec)
	}
	w := pq.NewGenericWriter[pqRow](&buf, opts...)
	for i := range pqRowGroups * pqGroupRows {
		if _, err := w.Write([]pqRow{{ID: int64(i), Label: int32(i % 3), Name: fmt.Sprintf("sample-%d", i),
			Vec: []float32{float32(i), 0.5, -1}}}); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return pqParse(buf.Bytes())
}

// pqParse decodes the footer of a well-formed file.
func pqParse(b []byte) *pqFile {
	n := int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	f := &pqFile{b: b, footer: int64(len(b)) - 8 - n}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[f.footer:len(b)-8], &f.md); err != nil {
		panic(err)
	}
	return f
}

// bytes returns the file with its footer encoded again from md.
func (f *pqFile) bytes() []byte {
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &f.md)
	if err != nil {
		panic(err)
	}
	out := append(bytes.Clone(f.b[:f.footer]), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// clone returns a deep enough copy of f to edit its footer.
func (f *pqFile) clone() *pqFile {
	return pqParse(f.bytes())
}

// chunk returns the metadata and byte range of column c of row group g.
func (f *pqFile) chunk(g, c int) (md *format.ColumnMetaData, start, end int64) {
	md = &f.md.RowGroups[g].Columns[c].MetaData
	start = md.DataPageOffset
	if d := md.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	return md, start, start + md.TotalCompressedSize
}

// column returns the index of the column whose path starts with name.
func (f *pqFile) column(name string) int {
	for c, cc := range f.md.RowGroups[0].Columns {
		if cc.MetaData.PathInSchema[0] == name {
			return c
		}
	}
	panic("no column " + name)
}

// page is one page of a column chunk: its header, where the header starts
// and how long it is encoded, and its data.
type page struct {
	h        format.PageHeader
	at, hlen int64
	data     []byte
}

// pages returns the pages of column c of row group g.
func (f *pqFile) pages(g, c int) []page {
	_, start, end := f.chunk(g, c)
	var out []page
	for pos := start; pos < end; {
		var p page
		p.at = pos
		// The header's length is that of its encoding again: the writer
		// and thrift.Marshal encode the same way, which is checked.
		r := bytes.NewReader(f.b[pos:end])
		if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&p.h); err != nil {
			panic(err)
		}
		enc := marshalHeader(&p.h)
		if !bytes.HasPrefix(f.b[pos:end], enc) {
			panic("page header encodes differently")
		}
		p.hlen = int64(len(enc))
		data := pos + p.hlen
		p.data = f.b[data : data+int64(p.h.CompressedPageSize)]
		out = append(out, p)
		pos = data + int64(p.h.CompressedPageSize)
	}
	return out
}

func marshalHeader(h *format.PageHeader) []byte {
	b, err := thrift.Marshal(new(thrift.CompactProtocol), h)
	if err != nil {
		panic(err)
	}
	return b
}

// splice returns a copy of f with the bytes [at, end) of column chunk c of
// row group g replaced by repl, and the footer's offsets moved to match.
func (f *pqFile) splice(g, c int, at, end int64, repl []byte) *pqFile {
	out := f.clone()
	delta := int64(len(repl)) - (end - at)
	b := append(bytes.Clone(f.b[:at]), repl...)
	out.b = append(b, f.b[end:]...)
	out.footer += delta
	move := func(off *int64) {
		if *off > at || (*off == at && at >= end) {
			*off += delta
		}
	}
	for gi := range out.md.RowGroups {
		rg := &out.md.RowGroups[gi]
		for ci := range rg.Columns {
			cc := &rg.Columns[ci]
			md := &cc.MetaData
			if gi == g && ci == c {
				md.TotalCompressedSize += delta
				md.TotalUncompressedSize += delta
				rg.TotalCompressedSize += delta
				rg.TotalByteSize += delta
				// The chunk's own start stays where it is.
				if md.DataPageOffset > at {
					md.DataPageOffset += delta
				}
				continue
			}
			move(&md.DataPageOffset)
			if md.DictionaryPageOffset > 0 {
				move(&md.DictionaryPageOffset)
			}
			move(&cc.FileOffset)
		}
		if rg.FileOffset > at {
			rg.FileOffset += delta
		}
	}
	return out
}

// editPage returns f with page p of column c of row group g replaced by
// the pages edit returns (a header each, with its data).
func (f *pqFile) editPage(g, c, p int, edit func(pg page) []page) []byte {
	pg := f.pages(g, c)[p]
	var repl []byte
	for _, np := range edit(pg) {
		repl = append(repl, marshalHeader(&np.h)...)
		repl = append(repl, np.data...)
	}
	return f.splice(g, c, pg.at, pg.at+pg.hlen+int64(len(pg.data)), repl).bytes()
}

// setHeader returns f with the header of page p of column c of row group g
// changed by set; the data stays.
func (f *pqFile) setHeader(g, c, p int, set func(h *format.PageHeader)) []byte {
	return f.editPage(g, c, p, func(pg page) []page {
		set(&pg.h)
		return []page{pg}
	})
}

// rleRun encodes n copies of the dictionary index 0 as a data page of
// RLE_DICTIONARY values: a bit width of 1, then one run.
func rleRun(n int) []byte {
	b := []byte{1}
	b = binary.AppendUvarint(b, uint64(n)<<1)
	return append(b, 0)
}

func (w *writer) parquet() {
	f := pqGood(nil)
	gb := f.bytes()
	w.add(good("parquet_good", Parquet), "parquet_good.parquet", gb)
	w.add(good("parquet_good_snappy", Parquet), "parquet_good_snappy.parquet", pqGood(pq.Compression(&pq.Snappy)).bytes())
	size := int64(len(gb))
	flen := size - 8 - f.footer

	// Truncation at every structural boundary.
	for _, cut := range []struct {
		name string
		at   int64
		why  string
	}{
		{"magic", 2, "inside the leading magic"},
		{"after_magic", 4, "right after the leading magic"},
		{"footer", f.footer + flen/2, "inside the footer"},
		{"footer_length", size - 6, "inside the footer length"},
		{"end_magic", size - 2, "inside the trailing magic"},
	} {
		w.add(bad("parquet_truncated_"+cut.name, Parquet, "the file ends %s", cut.why),
			"parquet_truncated_"+cut.name+".parquet", gb[:cut.at])
	}
	for g := range f.md.RowGroups {
		for c := range f.md.RowGroups[g].Columns {
			md, start, end := f.chunk(g, c)
			name := fmt.Sprintf("parquet_truncated_rg%d_%s", g, md.PathInSchema[0])
			w.add(bad(name, Parquet, "the file ends inside row group %d's column chunk %q", g, md.PathInSchema[0]),
				name+".parquet", gb[:start+(end-start)/2])
		}
	}
	// Bytes missing from the middle, the footer intact: every chunk after
	// them is where the footer does not say.
	_, s1, e1 := f.chunk(1, f.column("name"))
	hole := append(bytes.Clone(gb[:s1+(e1-s1)/2]), gb[e1:]...)
	w.add(bad("parquet_chunk_bytes_missing", Parquet, "half of row group 1's column chunk \"name\" is cut out, the footer intact"),
		"parquet_chunk_bytes_missing.parquet", hole)

	// The magics and the footer length.
	withTail := func(length uint32, magic string) []byte {
		b := bytes.Clone(gb)
		binary.LittleEndian.PutUint32(b[size-8:], length)
		copy(b[size-4:], magic)
		return b
	}
	head := bytes.Clone(gb)
	copy(head, "PAR2")
	w.add(bad("parquet_bad_magic_head", Parquet, "the leading magic is PAR2"), "parquet_bad_magic_head.parquet", head)
	w.add(bad("parquet_bad_magic_tail", Parquet, "the trailing magic is PARX"), "parquet_bad_magic_tail.parquet",
		withTail(uint32(flen), "PARX"))
	w.add(bad("parquet_encrypted_footer", Parquet, "the trailing magic is PARE (an encrypted footer)"),
		"parquet_encrypted_footer.parquet", withTail(uint32(flen), "PARE"))
	w.add(bad("parquet_footer_length_past_bof", Parquet, "the footer length is the file's size"),
		"parquet_footer_length_past_bof.parquet", withTail(uint32(size), "PAR1"))
	w.add(bad("parquet_footer_length_bomb", Parquet, "the footer length is 4 GiB - 1"),
		"parquet_footer_length_bomb.parquet", withTail(math.MaxUint32, "PAR1"))
	w.add(bad("parquet_footer_length_zero", Parquet, "the footer length is 0"),
		"parquet_footer_length_zero.parquet", withTail(0, "PAR1"))

	// Footers that claim more than their bytes hold.
	metaFile := func(footer []byte) []byte {
		b := append([]byte("PAR1"), footer...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
		return append(b, "PAR1"...)
	}
	// FileMetaData field 4 (row_groups), a list of structs: 0x49, then
	// 0xfc (a long list of structs) and its length.
	listOf := func(n int, elems []byte) []byte {
		b := binary.AppendUvarint([]byte{0x49, 0xfc}, uint64(n))
		return append(append(b, elems...), 0)
	}
	w.add(bad("parquet_footer_list_bomb", Parquet, "the footer's row group list claims 2^31 entries in a few bytes"),
		"parquet_footer_list_bomb.parquet", metaFile(listOf(1<<31, []byte{0, 0, 0})))
	const empties = 4 << 20
	w.add(bad("parquet_footer_structs_bomb", Parquet, "the footer holds %d empty row groups in as many bytes: decoded they would take gigabytes", empties),
		"parquet_footer_structs_bomb.parquet", metaFile(listOf(empties, make([]byte, empties))))

	// Row groups whose counts or chunks the footer gets wrong.
	rows := f.clone()
	rows.md.RowGroups[1].NumRows = pqGroupRows + 1
	w.add(bad("parquet_row_count_high", Parquet, "row group 1 claims %d rows, its pages hold %d", pqGroupRows+1, pqGroupRows),
		"parquet_row_count_high.parquet", rows.bytes())
	huge := f.clone()
	huge.md.RowGroups[0].NumRows = 1 << 40
	w.add(bad("parquet_row_count_huge", Parquet, "row group 0 claims 2^40 rows"), "parquet_row_count_huge.parquet", huge.bytes())
	far := f.clone()
	far.md.RowGroups[2].Columns[0].MetaData.DataPageOffset = size * 4
	w.add(bad("parquet_chunk_past_footer", Parquet, "row group 2's first column chunk starts past the end of the file"),
		"parquet_chunk_past_footer.parquet", far.bytes())
	before := f.clone()
	before.md.RowGroups[2].Columns[0].MetaData.DataPageOffset = -244
	w.add(bad("parquet_chunk_negative_offset", Parquet, "row group 2's first column chunk starts at byte -244"),
		"parquet_chunk_negative_offset.parquet", before.bytes())
	negRows := f.clone()
	negRows.md.RowGroups[1].NumRows = -1
	w.add(bad("parquet_row_count_negative", Parquet, "row group 1 claims -1 rows"), "parquet_row_count_negative.parquet", negRows.bytes())

	// Page headers: negative and huge sizes, value counts beyond the data.
	id, label := f.column("id"), f.column("label")
	for _, c := range []struct {
		name, why string
		set       func(h *format.PageHeader)
	}{
		{"negative_page_size", "row group 1's page of \"id\" is -1 bytes", func(h *format.PageHeader) { h.CompressedPageSize = -1 }},
		{"negative_uncompressed_size", "row group 1's page of \"id\" decompresses to -1 bytes", func(h *format.PageHeader) { h.UncompressedPageSize = -1 }},
		{"huge_page_size", "row group 1's page of \"id\" is 2^31-1 bytes", func(h *format.PageHeader) { h.CompressedPageSize = math.MaxInt32 }},
		{"huge_uncompressed_size", "row group 1's page of \"id\" decompresses to 2^31-1 bytes", func(h *format.PageHeader) { h.UncompressedPageSize = math.MaxInt32 }},
		{"negative_values", "row group 1's page of \"id\" holds -1 values", func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = -1 }},
		{"values_bomb", "row group 1's page of \"id\" claims 2^30 values in 32 bytes", func(h *format.PageHeader) { h.DataPageHeader.V.NumValues = 1 << 30 }},
	} {
		w.add(bad("parquet_"+c.name, Parquet, "%s", c.why), "parquet_"+c.name+".parquet", f.setHeader(1, id, 0, c.set))
	}
	// Two row groups (0 and 2) whose "id" page claims one value more than
	// its data holds: --all reports both.
	more := func(h *format.PageHeader) { h.DataPageHeader.V.NumValues++ }
	two := pqParse(f.setHeader(0, id, 0, more))
	w.add(bad("parquet_values_past_data_two_groups", Parquet, "the \"id\" pages of row groups 0 and 2 claim one value more than their data hold"),
		"parquet_values_past_data_two_groups.parquet", two.setHeader(2, id, 0, more))

	// Dictionary and run-length bombs in the "label" column: its first page
	// is the dictionary, the second the indexes into it.
	if pg := f.pages(0, label); len(pg) < 2 || !pg[0].h.DictionaryPageHeader.Valid {
		panic("label is not dictionary-encoded")
	}
	w.add(bad("parquet_dictionary_bomb", Parquet, "row group 0's dictionary of \"label\" claims 2^30 values"),
		"parquet_dictionary_bomb.parquet", f.setHeader(0, label, 0, func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = 1 << 30 }))
	rle := func(n int, copies int) func(pg page) []page {
		return func(pg page) []page {
			pg.h.DataPageHeader.V.NumValues = int32(n)
			pg.h.DataPageHeader.V.Encoding = format.RLEDictionary
			pg.data = rleRun(n)
			pg.h.CompressedPageSize = int32(len(pg.data))
			pg.h.UncompressedPageSize = int32(len(pg.data))
			pg.h.CRC = 0
			out := make([]page, copies)
			for i := range out {
				out[i] = pg
			}
			return out
		}
	}
	w.add(bad("parquet_rle_bomb", Parquet, "row group 0's page of \"label\" is one run of 2^30 dictionary indexes in 7 bytes"),
		"parquet_rle_bomb.parquet", f.editPage(0, label, 1, rle(1<<30, 1)))
	w.add(bad("parquet_rle_page_max", Parquet, "row group 0's page of \"label\" is one run of 2^24 indexes (the page limit) for %d rows", pqGroupRows),
		"parquet_rle_page_max.parquet", f.editPage(0, label, 1, rle(1<<24, 1)))
	w.add(bad("parquet_rle_group_bomb", Parquet, "row group 0's \"label\" has 17 pages of one run of 2^24 indexes each: 272 Mi values, over the row group's limit"),
		"parquet_rle_group_bomb.parquet", f.editPage(0, label, 1, rle(1<<24, 17)))
}
