package parquet

import (
	"errors"
	"fmt"
)

// The footer and the page headers of a Parquet file are Thrift structures
// in the compact protocol. parquet-go decodes them by reflection and
// allocates each list for the length it claims, so before any of them is
// handed to it, walk checks the bytes: every length fits in the bytes that
// follow, nesting is bounded, and the memory of the decoded structures
// (each struct counted at structCost, each list slot at slotCost) is
// summed so that it can be held to a limit.

const (
	// structCost bounds the size of any Go struct parquet-go decodes
	// metadata into (format.ColumnChunk is the largest); a test checks it.
	structCost = 1024
	// slotCost bounds the size of one element of a decoded list of
	// scalars, strings or byte slices (a slice header).
	slotCost = 24
	// maxDepth bounds how deeply structures may nest. Parquet's own
	// metadata nests a few levels; the bound keeps a crafted footer from
	// exhausting the stack of a recursive decoder.
	maxDepth = 32
)

var errThrift = errors.New("malformed thrift structure")

// Compact protocol types.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// walker checks one compact-protocol structure.
type walker struct {
	b    []byte
	pos  int
	cost int64
}

// walkStruct checks a struct at the start of b and returns how many bytes
// it takes and the memory its decoding needs.
func walkStruct(b []byte) (n int, cost int64, err error) {
	w := walker{b: b}
	if err := w.structure(0); err != nil {
		return 0, 0, err
	}
	return w.pos, w.cost, nil
}

func (w *walker) byte() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, errShort
	}
	c := w.b[w.pos]
	w.pos++
	return c, nil
}

// errShort says the structure runs past the bytes given.
var errShort = fmt.Errorf("%w: runs past the end of its bytes", errThrift)

func (w *walker) varint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := w.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: varint longer than 10 bytes", errThrift)
}

func (w *walker) structure(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested more than %d deep", errThrift, maxDepth)
	}
	w.cost += structCost
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		t := h & 0x0f
		if t == tStop {
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := w.varint(); err != nil {
				return err
			}
		}
		if t == tTrue || t == tFalse {
			continue // the value is in the type
		}
		if err := w.value(t, depth); err != nil {
			return err
		}
	}
}

func (w *walker) value(t byte, depth int) error {
	switch t {
	case tTrue, tFalse, tByte:
		_, err := w.byte()
		return err
	case tI16, tI32, tI64:
		_, err := w.varint()
		return err
	case tDouble:
		return w.skip(8)
	case tBinary:
		n, err := w.varint()
		if err != nil {
			return err
		}
		w.cost += int64(min(n, uint64(len(w.b))))
		return w.skip(n)
	case tList, tSet:
		h, err := w.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.varint(); err != nil {
				return err
			}
		}
		return w.elems(n, h&0x0f, depth)
	case tMap:
		n, err := w.varint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		if n > uint64(len(w.b)-w.pos) {
			return errShort
		}
		for range n {
			if err := w.value(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.value(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return w.structure(depth + 1)
	}
	return fmt.Errorf("%w: unknown type %d", errThrift, t)
}

// elems checks n list elements of type t, each at least one byte long.
func (w *walker) elems(n uint64, t byte, depth int) error {
	if n > uint64(len(w.b)-w.pos) {
		return errShort
	}
	w.cost += int64(n) * slotCost
	for range n {
		if err := w.value(t, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) skip(n uint64) error {
	if n > uint64(len(w.b)-w.pos) {
		return errShort
	}
	w.pos += int(n)
	return nil
}
