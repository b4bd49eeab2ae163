package webdataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/sample"
)

// Sample is one WebDataset sample: the members of a shard that share a key.
type Sample struct {
	// Key is the members' path up to the first dot of their base name:
	// a/b/000123 for a/b/000123.jpg and a/b/000123.cls.
	Key string
	// Shard is the path of the shard the sample comes from.
	Shard string
	// Offset is the byte offset of the tar header of the sample's first
	// member (in the decompressed stream of a .tar.gz shard).
	Offset int64
	// Fields maps each field name, the part of a member's base name after
	// its first dot ("jpg", "cls", "seg.png"), to the member's bytes. The
	// bytes belong to the sample: a reader never reuses them, unless it was
	// opened with [ReuseBuffer].
	Fields map[string][]byte
}

// errField returns an error about field of s, positioned at the sample.
func (s Sample) errField(field string, err error) error {
	return shardError(s.Shard, s.Offset, s.Key+"."+field, err)
}

// Bytes returns the bytes of field, or an [*tensorfeed.Error] wrapping
// [ErrFormat] (a missing field) when the sample has no such field.
func (s Sample) Bytes(field string) ([]byte, error) {
	b, ok := s.Fields[field]
	if !ok {
		return nil, s.errField(field, fmt.Errorf("%w: sample %q has no %q", errMissingField, s.Key, field))
	}
	return b, nil
}

// Int parses field as a base-10 integer after trimming white space, as
// WebDataset's .cls, .cls2 and .index decoders do. A field that is not an
// integer gives an [*tensorfeed.Error] wrapping [ErrFormat] (a field that
// does not decode).
func (s Sample) Int(field string) (int, error) {
	b, err := s.Bytes(field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil {
		return 0, s.errField(field, fmt.Errorf("%w: %w", errDecode, err))
	}
	return v, nil
}

// JSON decodes field into v with encoding/json (v is a pointer to a
// struct, a map or any other type json.Unmarshal takes). Bad JSON gives an
// [*tensorfeed.Error] wrapping [ErrFormat] (a field that does not decode).
func (s Sample) JSON(field string, v any) error {
	b, err := s.Bytes(field)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return s.errField(field, fmt.Errorf("%w: %w", errDecode, err))
	}
	return nil
}

// NPY parses field as a NumPy .npy array (see [NPY]). The array's data
// are the field's bytes, not a copy. A bad array gives an
// [*tensorfeed.Error] wrapping [ErrFormat] (a field that does not decode)
// and the array's [*tensorfeed.Error].
func (s Sample) NPY(field string) (Array, error) {
	b, err := s.Bytes(field)
	if err != nil {
		return Array{}, err
	}
	a, err := NPY(b)
	if err != nil {
		return Array{}, s.errField(field, fmt.Errorf("%w: %w", errDecode, err))
	}
	return a, nil
}

// Image decodes field (JPEG or PNG) with decode.Default and opts, whose
// MaxPixels and MaxBytes bound the memory one decode takes. An image that
// does not decode gives an [*tensorfeed.Error] wrapping [ErrFormat] (a
// field that does not decode) and the decoder's error (decode.ErrImage).
func (s Sample) Image(field string, opts decode.Options) (sample.Image, error) {
	b, err := s.Bytes(field)
	if err != nil {
		return sample.Image{}, err
	}
	img, err := decode.Default().Decode(b, opts)
	if err != nil {
		return sample.Image{}, s.errField(field, fmt.Errorf("%w: %w", errDecode, err))
	}
	return img, nil
}
