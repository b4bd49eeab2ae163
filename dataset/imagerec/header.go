package imagerec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// headerSize is the size of the fixed part of an image record's header:
// uint32 flag, float32 label, uint64 id, uint64 id2, little-endian (MXNet's
// IRHeader, struct format 'IfQQ').
const headerSize = 24

// ErrHeader is wrapped by errors about a record payload whose header cannot
// be read: too short, or a flag asking for more labels than the record holds.
var ErrHeader error = &badData{"imagerec: bad record header"}

// Header is the header of an image record, as mxnet.recordio.pack writes it
// before the image bytes.
//
// Flag is the number of float32 labels that follow the fixed 24 bytes; the
// image starts after them. With Flag == 0 the record has one label, Label.
// With Flag > 0 the labels are in Labels, and Label is not to be trusted:
// Python's pack sets it to 0, C++ im2rec to the first label.
type Header struct {
	Flag   uint32
	Label  float32
	ID     uint64 // the image's index in the .lst file (image_id[0])
	ID2    uint64 // image_id[1], usually 0
	Labels []float32
}

// ParseRecord splits an image record payload into its header and image
// bytes. The image aliases payload; Labels is a new slice (nil when
// Flag == 0). A payload shorter than the header, or one whose flag asks for
// more labels than it holds, gives an error wrapping ErrHeader.
func ParseRecord(payload []byte) (Header, []byte, error) {
	var h Header
	img, err := ParseRecordInto(&h, payload)
	return h, img, err
}

// ParseRecordInto is ParseRecord into an existing header whose Labels slice
// it reuses, so that a loop over records does not allocate.
func ParseRecordInto(h *Header, payload []byte) (image []byte, err error) {
	if len(payload) < headerSize {
		return nil, fmt.Errorf("%w: record of %d bytes is shorter than the %d-byte header",
			ErrHeader, len(payload), headerSize)
	}
	flag := binary.LittleEndian.Uint32(payload)
	if room := uint64(len(payload)-headerSize) / 4; uint64(flag) > room {
		return nil, fmt.Errorf("%w: flag %d asks for %d labels, but the %d-byte record has room for %d",
			ErrHeader, flag, flag, len(payload), room)
	}
	h.Flag = flag
	h.Label = math.Float32frombits(binary.LittleEndian.Uint32(payload[4:]))
	h.ID = binary.LittleEndian.Uint64(payload[8:])
	h.ID2 = binary.LittleEndian.Uint64(payload[16:])
	h.Labels = h.Labels[:0]
	if flag == 0 {
		h.Labels = nil
		return payload[headerSize:], nil
	}
	h.Labels = slices.Grow(h.Labels, int(flag))
	for i := range int(flag) {
		h.Labels = append(h.Labels, math.Float32frombits(binary.LittleEndian.Uint32(payload[headerSize+4*i:])))
	}
	return payload[headerSize+4*int(flag):], nil
}

// AppendLabels appends the record's labels to dst: Labels when Flag > 0,
// else the single Label.
func (h Header) AppendLabels(dst []float32) []float32 {
	if h.Flag == 0 {
		return append(dst, h.Label)
	}
	return append(dst, h.Labels...)
}

// AppendRecord appends a whole record payload, header then image bytes, to
// dst and returns the extended slice. ParseRecord reads it back. The flag
// written is len(h.Labels), whatever h.Flag says, as mxnet.recordio.pack
// does.
func AppendRecord(dst []byte, h Header, image []byte) []byte {
	dst = slices.Grow(dst, headerSize+4*len(h.Labels)+len(image))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(h.Labels)))
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(h.Label))
	dst = binary.LittleEndian.AppendUint64(dst, h.ID)
	dst = binary.LittleEndian.AppendUint64(dst, h.ID2)
	for _, l := range h.Labels {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(l))
	}
	return append(dst, image...)
}
