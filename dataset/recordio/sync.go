package recordio

import (
	"encoding/binary"
	"io"
)

// syncChunk is how much syncAt reads at a time.
const syncChunk = 64 << 10

// syncAt returns the offset of the first record start at or after off: the
// first 4-byte aligned magic word, counted from the start of r, that is
// followed by a length word with continuation flag 0 or 1. Parts with flag 2
// or 3 continue a record and are passed over, as dmlc-core's splitter does.
// If no record starts between off and the end of r, syncAt returns -1 and
// io.EOF.
//
// The writer never leaves an aligned magic word inside a payload, so in a
// well-formed file the offset found is always a real record start. syncAt
// is what sharding uses to find where a byte range begins and ends.
func syncAt(r io.ReaderAt, off int64) (int64, error) {
	pos := align4(max(off, 0))
	buf := make([]byte, syncChunk)
	for {
		n, err := r.ReadAt(buf, pos)
		n &^= 3
		for i := 0; i+headerSize <= n; i += 4 {
			if binary.LittleEndian.Uint32(buf[i:]) != Magic {
				continue
			}
			if cflag, _ := decodeLRec(binary.LittleEndian.Uint32(buf[i+4:])); cflag <= flagFirst {
				return pos + int64(i), nil
			}
		}
		if n < len(buf) {
			if err == nil || err == io.EOF {
				return -1, io.EOF
			}
			return -1, err
		}
		// The last word may be a magic whose length word is in the next chunk.
		pos += int64(n - 4)
	}
}
