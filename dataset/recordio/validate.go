package recordio

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// ValidateIndex checks that idx describes the RecordIO data in rec, which
// holds size bytes and is called recName in errors. It must be called
// before records are read through an index that may be stale or damaged:
// without it, an entry past the end of the file, two keys with one offset or
// an offset inside a record make a reader lose or repeat records.
//
// It checks that every offset is inside the file, 4-byte aligned, held by no
// other entry, and a record start (a magic word and a first or whole part);
// it follows each record's parts to its end and requires the index to cover
// the file exactly: the first record at offset 0, each record ending where
// the next indexed one begins, the last ending at the end of the file. An
// index that leaves records out is refused too, since a reader that goes by
// it would skip them without a word. What is checked costs one 8-byte
// ReadAt per record part; payloads are not read.
//
// A mismatch gives a *tensorfeed.Error wrapping ErrFormat that names the
// index (its file and line, or "entry i" for a built index), the .rec file
// and the offset at fault. An I/O error from rec is returned wrapped, and
// does not wrap ErrFormat.
func ValidateIndex(rec io.ReaderAt, size int64, recName string, idx *Index) error {
	n := idx.Len()
	if recName == "" {
		recName = "<input>"
	}
	fail := func(i int, format string, args ...any) error {
		file, off, line, at := idx.where(i)
		e := idx.entries[i]
		msg := fmt.Sprintf("key %d at offset %d of %s: ", e.Key, e.Offset, recName) + fmt.Sprintf(format, args...)
		if line == 0 {
			msg = at + ": " + msg
		}
		fe := formatError(file, off, -1, nil, msg)
		fe.Line = line
		return fe
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// Stable, so that of two entries with one offset the earlier line is
	// named first.
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(idx.entries[a].Offset, idx.entries[b].Offset)
	})
	var hdr [headerSize]byte
	end := int64(0) // where the previous indexed record ends
	for k, i := range order {
		off := idx.entries[i].Offset
		switch {
		case off >= size:
			return fail(i, "at or past the end of the file (%d bytes)", size)
		case off%4 != 0:
			return fail(i, "not 4-byte aligned: records start at multiples of 4")
		case k > 0 && off == idx.entries[order[k-1]].Offset:
			_, _, _, first := idx.where(order[k-1])
			return fail(i, "the same offset as %s (key %d): one record would be read twice",
				first, idx.entries[order[k-1]].Key)
		case off > end && k == 0:
			return fail(i, "the first indexed record, but the file holds %d bytes before it that no entry covers", off)
		case off > end:
			return fail(i, "the previous indexed record ends at offset %d: the %d bytes between are not indexed",
				end, off-end)
		case off < end:
			return fail(i, "inside the record at offset %d, which runs to offset %d",
				idx.entries[order[k-1]].Offset, end)
		}
		// Follow the record's parts to its end.
		pos, first := off, true
		for {
			if pos+headerSize > size {
				return fail(i, "the record's part at offset %d runs past the end of the file (%d bytes)", pos, size)
			}
			if m, err := rec.ReadAt(hdr[:], pos); m < headerSize {
				if err == nil || err == io.EOF {
					return fail(i, "the file ends at offset %d, before the %d bytes it was said to hold",
						pos+int64(m), size)
				}
				return fmt.Errorf("recordio: %s: offset %d: %w", recName, pos, err)
			}
			if m := binary.LittleEndian.Uint32(hdr[:]); m != Magic {
				if first {
					return fail(i, "not a record start: bad magic 0x%08x", m)
				}
				return fail(i, "the record's part at offset %d has a bad magic 0x%08x", pos, m)
			}
			cflag, length := decodeLRec(binary.LittleEndian.Uint32(hdr[4:]))
			if msg := checkFlag(cflag, first); msg != "" {
				if first {
					return fail(i, "not a record start: %s", msg)
				}
				return fail(i, "the record's part at offset %d: %s", pos, msg)
			}
			pos += headerSize + align4(int64(length))
			if pos > size {
				return fail(i, "the record's part of %d bytes runs past the end of the file (%d bytes)", length, size)
			}
			if cflag == flagWhole || cflag == flagLast {
				break
			}
			first = false
		}
		end = pos
	}
	if end < size {
		if n == 0 {
			return formatError(idx.name, -1, -1, nil, fmt.Sprintf("the index is empty, but %s holds %d bytes", recName, size))
		}
		return fail(order[n-1], "the last indexed record ends at offset %d, but the file holds %d bytes: the rest is not indexed",
			end, size)
	}
	return nil
}
