package tfrecord

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

// Kind says which list a feature holds.
type Kind uint8

// The kinds of a feature, after tf.train.Feature's oneof.
const (
	KindNone  Kind = iota // an empty feature: no list set
	KindBytes             // bytes_list
	KindFloat             // float_list
	KindInt64             // int64_list
)

// String returns the proto name of the kind's list.
func (k Kind) String() string {
	switch k {
	case KindNone:
		return "none"
	case KindBytes:
		return "bytes_list"
	case KindFloat:
		return "float_list"
	case KindInt64:
		return "int64_list"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// featureList is one tf.train.Feature: a list of byte strings (Bytes), of
// float32 (Floats) or of int64 (Int64s), as Kind says; the other two lists
// are nil. The type is not exported: an Example's Features hold it, and
// the accessors (Float32s, Int64s, Bytes) read it.
type featureList struct {
	Kind   Kind
	Bytes  [][]byte
	Floats []float32
	Int64s []int64
}

// Example is a decoded tf.train.Example: named features, each a typed list
// (its Kind and one of Bytes, Floats and Int64s, the other two nil). The
// zero Example has no features; the Set methods add them.
type Example struct {
	Features map[string]featureList
}

// errExample is the cause of every error about a malformed serialized
// tf.train.Example: the ErrFormat of its contents, as a record's framing
// is of the file's (the two come from different calls, ParseExample or
// Record.Example and a pass, so a caller never needs to tell them apart).
var errExample = cause.Sentinel("tfrecord: bad tf.train.Example", ErrFormat)

// errNoFeature is wrapped by the error of an accessor asked for a feature
// the Example does not have, errKind by that of an accessor asked for a
// list of another kind than the feature holds. Both wrap
// tensorfeed.ErrBadData: a record that lacks a feature the pipeline needs
// is bad data. They need no exported name: a caller does about them what
// it does about any bad record, and one that must tell them apart looks in
// Features first (whether the name is there, and its Kind).
var (
	errNoFeature error = &badData{"tfrecord: no such feature"}
	errKind      error = &badData{"tfrecord: feature of another kind"}
)

// exampleError returns an error about a serialized tf.train.Example or one
// of its features: a *tensorfeed.Error whose Member is the feature at fault
// ("" when outside any, or not yet known), whose Offset is the byte offset
// in the serialized Example (-1 for an accessor's error) and whose Err
// wraps sentinel: errExample (ErrFormat), errNoFeature or errKind; for an Example over
// a limit ([MaxValues], [MaxFeatures]), an error that wraps both
// ErrFormat and ErrTooLarge.
func exampleError(feature string, at int, sentinel error, msg string) *tensorfeed.Error {
	return &tensorfeed.Error{Offset: int64(at), Record: -1, Member: feature, Err: cause.New(sentinel, nil, msg)}
}

// Float32s returns the float_list of the feature name. An empty feature
// reads as an empty list of any kind.
func (e Example) Float32s(name string) ([]float32, error) {
	f, err := e.feature(name, KindFloat)
	return f.Floats, err
}

// Int64s returns the int64_list of the feature name. An empty feature reads
// as an empty list of any kind.
func (e Example) Int64s(name string) ([]int64, error) {
	f, err := e.feature(name, KindInt64)
	return f.Int64s, err
}

// Bytes returns the bytes_list of the feature name. An empty feature reads
// as an empty list of any kind.
func (e Example) Bytes(name string) ([][]byte, error) {
	f, err := e.feature(name, KindBytes)
	return f.Bytes, err
}

func (e Example) feature(name string, want Kind) (featureList, error) {
	f, ok := e.Features[name]
	if !ok {
		return featureList{}, exampleError(name, -1, errNoFeature, "not in the Example")
	}
	if f.Kind != want && f.Kind != KindNone {
		return featureList{}, exampleError(name, -1, errKind, fmt.Sprintf("holds a %s, not a %s", f.Kind, want))
	}
	return f, nil
}

// SetFloat32s sets the feature name to a float_list holding v (not copied).
func (e *Example) SetFloat32s(name string, v ...float32) {
	e.set(name, featureList{Kind: KindFloat, Floats: v})
}

// SetInt64s sets the feature name to an int64_list holding v (not copied).
func (e *Example) SetInt64s(name string, v ...int64) {
	e.set(name, featureList{Kind: KindInt64, Int64s: v})
}

// SetBytes sets the feature name to a bytes_list holding v (not copied).
func (e *Example) SetBytes(name string, v ...[]byte) {
	e.set(name, featureList{Kind: KindBytes, Bytes: v})
}

func (e *Example) set(name string, f featureList) {
	if e.Features == nil {
		e.Features = make(map[string]featureList)
	}
	e.Features[name] = f
}

// Field numbers of tf.train.Example and the messages it holds
// (tensorflow/core/example/example.proto and feature.proto).
const (
	fieldFeatures  = 1 // Example.features
	fieldFeature   = 1 // Features.feature (map<string, Feature>)
	fieldMapKey    = 1 // map entry key
	fieldMapValue  = 2 // map entry value
	fieldBytesList = 1 // Feature.bytes_list
	fieldFloatList = 2 // Feature.float_list
	fieldInt64List = 3 // Feature.int64_list
	fieldValue     = 1 // BytesList/FloatList/Int64List.value
)

// The default limits of [ParseExample]. A tf.train.Example of the size of
// a record can claim far more decoded memory than it holds: an empty
// string takes 2 bytes to send and a 24-byte slice header once decoded, a
// small int64 1 byte and 8, a feature 5 bytes and a map entry of about
// 200. The limits hold the Examples of common data sets (thousands of
// features, lists of up to a million ids or strings; float_list values are
// not counted, see [MaxValues]) and bound what the rest may claim.
const (
	defaultMaxValues   = 1 << 20 // bytes_list and int64_list values of one Example
	defaultMaxFeatures = 1 << 14 // features of one Example
)

// An ExampleOption sets a limit of [ParseExample] and [Record.Example].
type ExampleOption = option.Option[exampleConfig]

type exampleConfig struct {
	maxValues   int64
	maxFeatures int64
}

// MaxValues sets the most bytes_list and int64_list values one Example may
// hold, over all its features (default 1 Mi). More is an
// error wrapping [ErrTooLarge], found before anything is allocated. Such
// a value takes as little as 1 (a packed int64) or 2 (an empty string)
// bytes on the wire and 8 or 24 bytes decoded, so this bounds what a small
// record can claim beyond 4 times its size. float_list values are not
// counted: each takes 4 bytes decoded and at least 4 on the wire. It
// panics if n < 1.
func MaxValues(n int64) ExampleOption {
	if n < 1 {
		panic(fmt.Sprintf("tfrecord: MaxValues(%d): must be at least 1", n))
	}
	return option.New(func(c *exampleConfig) { c.maxValues = n })
}

// MaxFeatures sets the most features one Example may hold (default
// 16384); a feature name given twice counts twice. More is
// an error wrapping [ErrTooLarge], found before anything is allocated. A
// feature takes as little as 5 bytes on the wire and about 200 in the
// Example's map. It panics if n < 1.
func MaxFeatures(n int) ExampleOption {
	if n < 1 {
		panic(fmt.Sprintf("tfrecord: MaxFeatures(%d): must be at least 1", n))
	}
	return option.New(func(c *exampleConfig) { c.maxFeatures = int64(n) })
}

// errLimit is the sentinel of an Example error about a limit: it wraps both
// ErrFormat and ErrTooLarge.
var errLimit error = limitError{}

type limitError struct{}

func (limitError) Error() string   { return "tfrecord: tf.train.Example over a limit" }
func (limitError) Unwrap() []error { return []error{errExample, ErrTooLarge} }

// ParseExample decodes a serialized tf.train.Example. Unknown fields are
// skipped; lists are accepted packed or not, as protobuf requires; when a
// feature name or a feature's list appears twice, protobuf's merge rules
// apply (the later map entry wins; the same list is appended to, another
// list replaces it). Byte strings are copied: the Example does not keep b.
// The byte strings of one feature share one backing array (each capped at
// its length), so keeping one keeps them all.
//
// # Memory
//
// The input is read twice: a first pass checks its encoding and counts
// the features and values against the limits (opts: [MaxValues],
// [MaxFeatures]), allocating nothing; the second allocates each list and
// the names once, at their final size. A malformed Example, or one over a
// limit, costs no allocation beyond its error. What a parse allocates is
// at most 4 times len(b), plus at most 16 bytes for every bytes_list or
// int64_list value, 256 bytes for every feature and 4 KiB (with the
// allocator's rounding of each list to its size class): with the default
// limits, 4 times len(b) plus 20 MiB.
//
// A malformed input gives a *tensorfeed.Error that wraps ErrFormat and names
// the feature when the fault is inside one; one over a limit also wraps
// ErrTooLarge.
func ParseExample(b []byte, opts ...ExampleOption) (Example, error) {
	p := parser{cfg: exampleConfig{maxValues: defaultMaxValues, maxFeatures: defaultMaxFeatures}}
	option.Apply(&p.cfg, opts)
	var ex Example
	// First pass: check and count, allocating nothing.
	err := p.fields(b, 0, func(num protowire.Number, typ protowire.Type, v []byte, voff, at int) error {
		if num != fieldFeatures {
			return nil
		}
		if typ != protowire.BytesType {
			return p.errorf(at, "Example.features has wire type %d, want %d", typ, protowire.BytesType)
		}
		return p.features(v, voff, nil)
	})
	if err != nil || p.entries == 0 {
		return ex, err
	}
	// Second pass: decode into memory of the counted sizes.
	ex.Features = make(map[string]featureList, p.entries)
	p.names.Grow(p.nameBytes)
	err = p.fields(b, 0, func(num protowire.Number, _ protowire.Type, v []byte, voff, _ int) error {
		if num != fieldFeatures {
			return nil
		}
		return p.features(v, voff, &ex)
	})
	return ex, err
}

type parser struct {
	cfg     exampleConfig
	feature []byte // the name of the feature being parsed, for errors

	// counted by the first pass
	entries   int   // map entries of Features.feature
	nameBytes int   // bytes of their names
	values    int64 // bytes_list and int64_list values

	names strings.Builder // the second pass's feature names, one backing array
}

func (p *parser) errorf(at int, format string, args ...any) error {
	return exampleError(string(p.feature), at, errExample, fmt.Sprintf(format, args...))
}

// fields calls f for every field of the message b, which starts at offset
// off of the whole input, with the field's value (the bytes of a
// length-delimited field, the raw encoding of any other), the value's offset
// and the offset of the field's tag.
func (p *parser) fields(b []byte, off int, f func(num protowire.Number, typ protowire.Type, v []byte, voff, at int) error) error {
	end := off + len(b)
	for len(b) > 0 {
		at := end - len(b)
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return p.errorf(at, "bad field tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n >= 0 {
				v = b[:n]
			}
		}
		if n < 0 {
			return p.errorf(at, "bad value of field %d: %v", num, protowire.ParseError(n))
		}
		voff := end - len(b) + n - len(v)
		b = b[n:]
		if err := f(num, typ, v, voff, at); err != nil {
			return err
		}
	}
	return nil
}

// features checks and counts (ex nil: the first pass) or decodes into ex
// a tf.train.Features at offset off.
func (p *parser) features(b []byte, off int, ex *Example) error {
	return p.fields(b, off, func(num protowire.Number, typ protowire.Type, v []byte, voff, at int) error {
		if num != fieldFeature {
			return nil
		}
		if typ != protowire.BytesType {
			return p.errorf(at, "Features.feature has wire type %d, want %d", typ, protowire.BytesType)
		}
		if ex == nil {
			p.entries++
			if int64(p.entries) > p.cfg.maxFeatures {
				return exampleError("", at, errLimit, fmt.Sprintf("more than %d features (MaxFeatures)", p.cfg.maxFeatures))
			}
		}
		return p.entry(v, voff, ex)
	})
}

// entry checks and counts, or decodes, one map entry of Features.feature.
func (p *parser) entry(b []byte, off int, ex *Example) error {
	var name, value []byte
	valueOff := off
	err := p.fields(b, off, func(num protowire.Number, typ protowire.Type, v []byte, voff, at int) error {
		switch num {
		case fieldMapKey:
			if typ != protowire.BytesType {
				return p.errorf(at, "feature name has wire type %d, want %d", typ, protowire.BytesType)
			}
			name = v
		case fieldMapValue:
			if typ != protowire.BytesType {
				return p.errorf(at, "feature value has wire type %d, want %d", typ, protowire.BytesType)
			}
			value, valueOff = v, voff
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.feature = name
	defer func() { p.feature = nil }()
	if ex == nil {
		p.nameBytes += len(name)
		_, err := p.shape(value, valueOff, true)
		return err
	}
	s, _ := p.shape(value, valueOff, false) // checked by the first pass
	// Every name is a slice of one string: the builder was grown to the
	// names' total, so it never moves, and bytes once written never change.
	n := p.names.Len()
	p.names.Write(name)
	ex.Features[p.names.String()[n:]] = p.fill(value[s.start:], s)
	return nil
}

// featureShape is what a tf.train.feature decodes to: the kind of its
// list, the number of values, the bytes of a bytes_list's values, and where
// in the feature the fields of that list begin (an earlier list of another
// kind is replaced by it, as protobuf's oneof rule says).
type featureShape struct {
	kind  Kind
	n     int
	data  int
	start int
}

// shape checks a tf.train.feature and counts its values; with count set it
// adds them to the Example's count and checks that against MaxValues.
func (p *parser) shape(b []byte, off int, count bool) (featureShape, error) {
	var s featureShape
	err := p.fields(b, off, func(num protowire.Number, typ protowire.Type, v []byte, voff, at int) error {
		var kind Kind
		switch num {
		case fieldBytesList:
			kind = KindBytes
		case fieldFloatList:
			kind = KindFloat
		case fieldInt64List:
			kind = KindInt64
		default:
			return nil
		}
		if typ != protowire.BytesType {
			return p.errorf(at, "%s has wire type %d, want %d", kind, typ, protowire.BytesType)
		}
		if s.kind != kind {
			s = featureShape{kind: kind, start: at - off} // another member of the oneof replaces the list
		}
		return p.count(v, voff, &s, count)
	})
	return s, err
}

// count checks the values of a BytesList, FloatList or Int64List and adds
// them to s (and, with count set, to the Example's count of values).
func (p *parser) count(b []byte, off int, s *featureShape, count bool) error {
	return p.fields(b, off, func(num protowire.Number, typ protowire.Type, v []byte, _, at int) error {
		if num != fieldValue {
			return nil
		}
		n := 1
		switch s.kind {
		case KindBytes:
			if typ != protowire.BytesType {
				return p.errorf(at, "bytes_list value has wire type %d, want %d", typ, protowire.BytesType)
			}
			s.data += len(v)
		case KindFloat:
			switch typ {
			case protowire.BytesType: // packed
				if len(v)%4 != 0 {
					return p.errorf(at, "packed float_list of %d bytes, not a multiple of 4", len(v))
				}
				n = len(v) / 4
			case protowire.Fixed32Type:
			default:
				return p.errorf(at, "float_list value has wire type %d", typ)
			}
		case KindInt64:
			switch typ {
			case protowire.BytesType: // packed: one value ends at every byte under 0x80
				n = 0
				for w := v; len(w) > 0; n++ {
					_, k := protowire.ConsumeVarint(w)
					if k < 0 {
						return p.errorf(at, "packed int64_list: %v", protowire.ParseError(k))
					}
					w = w[k:]
				}
			case protowire.VarintType:
			default:
				return p.errorf(at, "int64_list value has wire type %d", typ)
			}
		}
		s.n += n
		if count && s.kind != KindFloat {
			p.values += int64(n)
			if p.values > p.cfg.maxValues {
				return exampleError(string(p.feature), at, errLimit,
					fmt.Sprintf("more than %d bytes_list and int64_list values (MaxValues)", p.cfg.maxValues))
			}
		}
		return nil
	})
}

// fill decodes a feature that shape has checked and measured, from b, the
// Feature's fields from the first of its final list on; every list is
// allocated once, at its final size.
func (p *parser) fill(b []byte, s featureShape) featureList {
	f := featureList{Kind: s.kind}
	var data []byte // the backing array of a bytes_list's values
	switch s.kind {
	case KindNone:
		return f
	case KindBytes:
		if s.n > 0 {
			f.Bytes, data = make([][]byte, 0, s.n), make([]byte, s.data)
		}
	case KindFloat:
		f.Floats = make([]float32, 0, s.n)
	case KindInt64:
		if s.n > 0 {
			f.Int64s = make([]int64, 0, s.n)
		}
	}
	list := kindField(s.kind)
	_ = p.fields(b, 0, func(num protowire.Number, _ protowire.Type, v []byte, _, _ int) error {
		if num != list {
			return nil // an unknown field: no other list follows the start
		}
		return p.fields(v, 0, func(num protowire.Number, typ protowire.Type, v []byte, _, _ int) error {
			if num != fieldValue {
				return nil
			}
			switch s.kind {
			case KindBytes:
				k := copy(data, v)
				f.Bytes = append(f.Bytes, data[:k:k]) // capped: an append to one value leaves the next alone
				data = data[k:]
			case KindFloat:
				if typ == protowire.Fixed32Type {
					v = v[:4]
				}
				for ; len(v) >= 4; v = v[4:] {
					x, _ := protowire.ConsumeFixed32(v)
					f.Floats = append(f.Floats, math.Float32frombits(x))
				}
			case KindInt64:
				for len(v) > 0 {
					x, k := protowire.ConsumeVarint(v)
					f.Int64s = append(f.Int64s, int64(x))
					v = v[k:]
				}
			}
			return nil
		})
	})
	return f
}

// Marshal returns the Example serialized as a tf.train.Example, its
// features in the order of their names (so equal Examples give equal
// bytes), lists packed as TensorFlow writes them.
func (e Example) Marshal() []byte { return e.appendMarshal(nil) }

// appendMarshal appends the serialized Example to b and returns the result.
func (e Example) appendMarshal(b []byte) []byte {
	if len(e.Features) == 0 {
		return b
	}
	names := make([]string, 0, len(e.Features))
	for name := range e.Features {
		names = append(names, name)
	}
	slices.Sort(names)
	featuresSize := 0
	for _, name := range names {
		featuresSize += sizeField(fieldFeature, entrySize(name, e.Features[name]))
	}
	b = slices.Grow(b, sizeField(fieldFeatures, featuresSize))
	b = appendLen(b, fieldFeatures, featuresSize)
	for _, name := range names {
		f := e.Features[name]
		b = appendLen(b, fieldFeature, entrySize(name, f))
		b = appendLen(b, fieldMapKey, len(name))
		b = append(b, name...)
		b = appendLen(b, fieldMapValue, featureSize(f))
		b = appendFeature(b, f)
	}
	return b
}

// sizeField is the size of a length-delimited field whose value has n bytes.
func sizeField(num protowire.Number, n int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

func appendLen(b []byte, num protowire.Number, n int) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(n))
}

func entrySize(name string, f featureList) int {
	return sizeField(fieldMapKey, len(name)) + sizeField(fieldMapValue, featureSize(f))
}

// listSize is the size of the body of f's list message.
func listSize(f featureList) int {
	switch f.Kind {
	case KindBytes:
		n := 0
		for _, v := range f.Bytes {
			n += sizeField(fieldValue, len(v))
		}
		return n
	case KindFloat:
		if len(f.Floats) == 0 {
			return 0
		}
		return sizeField(fieldValue, 4*len(f.Floats))
	case KindInt64:
		if len(f.Int64s) == 0 {
			return 0
		}
		return sizeField(fieldValue, packedInt64Size(f.Int64s))
	}
	return 0
}

func packedInt64Size(v []int64) int {
	n := 0
	for _, x := range v {
		n += protowire.SizeVarint(uint64(x))
	}
	return n
}

func kindField(k Kind) protowire.Number {
	switch k {
	case KindBytes:
		return fieldBytesList
	case KindFloat:
		return fieldFloatList
	default:
		return fieldInt64List
	}
}

func featureSize(f featureList) int {
	if f.Kind == KindNone {
		return 0
	}
	return sizeField(kindField(f.Kind), listSize(f))
}

func appendFeature(b []byte, f featureList) []byte {
	if f.Kind == KindNone {
		return b
	}
	b = appendLen(b, kindField(f.Kind), listSize(f))
	switch f.Kind {
	case KindBytes:
		for _, v := range f.Bytes {
			b = appendLen(b, fieldValue, len(v))
			b = append(b, v...)
		}
	case KindFloat:
		if len(f.Floats) > 0 {
			b = appendLen(b, fieldValue, 4*len(f.Floats))
			for _, x := range f.Floats {
				b = protowire.AppendFixed32(b, math.Float32bits(x))
			}
		}
	case KindInt64:
		if len(f.Int64s) > 0 {
			b = appendLen(b, fieldValue, packedInt64Size(f.Int64s))
			for _, x := range f.Int64s {
				b = protowire.AppendVarint(b, uint64(x))
			}
		}
	}
	return b
}
