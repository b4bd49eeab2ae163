package serve

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// The wire format, version 2. Every message, both ways, is a frame: a
// 4-byte little-endian length, that many bytes of JSON (the header), then
// the payload the header announces. A client sends one frame, the hello
// (no payload); the server answers with frames until the run ends or
// fails:
//
//	hello     client -> server  {"protocol":2,"feed":"mnist-train","world":2,"rank":0,"end_epoch":1,"decode":true,"state":{checkpoint}|null}
//	ready     server -> client  {"type":"ready","state_bytes":N}                 payload: the checkpoint where the run starts
//	batch     server -> client  {"type":"batch","epoch":E,"step":S,"padded":P,"state_bytes":N,"arrays":[...]}
//	                            payload: the checkpoint after this batch, then each array as a .npy file
//	epoch_end server -> client  {"type":"epoch_end","epoch":E,"state_bytes":N}   payload: the checkpoint at the start of epoch E+1
//	end       server -> client  {"type":"end"}
//	error     server -> client  {"type":"error","code":"unknown_feed","error":"..."}
//
// An array of a batch is described by {"name","dtype","shape","npy","nbytes"}:
// its .npy header is npy bytes long (magic, version 1.0, the header dict,
// padded to 64 bytes as numpy writes it) and its data nbytes, so a client
// reads the data straight into an array of that dtype and shape, and the
// payload saved to disk is a valid .npy file. Checkpoints are the JSON of
// pipeline.Checkpoint.Encode, byte for byte.
//
// A tensor the feed declared with Affine stands for float32 values
// float32(x)*scale + offset of its uint8 bytes x. A client whose hello says
// "decode":true receives it as it is, "|u1", with "affine":[scale,offset]
// in its description (the two float32 numbers, written as the shortest
// decimals that read back to them), and decodes it: each element's
// product rounded to float32, then the sum rounded to float32, which is
// exactly what the server computes for any other client, to which it
// sends the "<f4" array. A quarter of the bytes cross the socket.
//
// Version 2 added "decode" and "affine"; a server refuses a hello of any
// other version with a bad_request error frame naming both versions.
const protocol = 2

// maxHeader bounds a frame's JSON header, both ways: a hello with a
// checkpoint is a few hundred bytes, and a peer that claims more is not
// speaking this protocol.
const maxHeader = 1 << 20

// hello is what a client asks for.
type hello struct {
	Protocol int             `json:"protocol"`
	Feed     string          `json:"feed"`
	World    int             `json:"world"`
	Rank     int             `json:"rank"`
	EndEpoch int             `json:"end_epoch"` // serve epochs up to EndEpoch-1; < 0: endless
	Decode   bool            `json:"decode"`    // the client decodes the tensors declared with Affine itself
	State    json.RawMessage `json:"state"`     // a checkpoint, or null to start at epoch 0
}

// array describes one tensor of a batch frame.
type array struct {
	Name   string `json:"name"`
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	NPY    int    `json:"npy"`
	NBytes int    `json:"nbytes"`
	// Affine is the scale and offset of a uint8 array the client decodes
	// into float32 (Affine, hello.Decode); nil for every other array.
	Affine *[2]float32 `json:"affine,omitempty"`
}

// header is the JSON of a server frame.
type header struct {
	Type       string  `json:"type"`
	Epoch      int     `json:"epoch"`
	Step       int64   `json:"step,omitempty"`
	Padded     int     `json:"padded,omitempty"`
	StateBytes int     `json:"state_bytes,omitempty"`
	Arrays     []array `json:"arrays,omitempty"`
	Code       string  `json:"code,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// Error codes of an error frame: what the client can do about it.
const (
	codeUnknownFeed = "unknown_feed" // the client named a feed the server does not serve
	codeBadRequest  = "bad_request"  // a malformed hello, another protocol, a rank outside the world
	codeBadState    = "bad_state"    // the checkpoint is of another pipeline, or damaged
	codeRankBusy    = "rank_busy"    // another client is connected with this feed, world and rank
	codeData        = "data"         // the pipeline failed (bad data): the client cannot fix it by retrying
	codeClosing     = "closing"      // the server is shutting down: reconnect later
)

// little is whether this machine stores numbers little-endian: the tensors
// are sent as they are in memory, and their .npy dtype says which order.
var little = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// npyDType returns the numpy dtype string of d.
func npyDType(d sample.DType) (string, error) {
	order := ">"
	if little {
		order = "<"
	}
	switch d {
	case sample.Float32:
		return order + "f4", nil
	case sample.Int32:
		return order + "i4", nil
	case sample.Int64:
		return order + "i8", nil
	case sample.Uint8:
		return "|u1", nil
	case sample.Int8:
		return "|i1", nil
	}
	return "", fmt.Errorf("serve: tensor element type %v has no numpy dtype", d)
}

// bytesOf returns the memory of t's data, without a copy.
func bytesOf(t *tensor.Tensor) []byte {
	switch t.DType {
	case sample.Float32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.F32))), 4*len(t.F32))
	case sample.Int32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.I32))), 4*len(t.I32))
	case sample.Int64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.I64))), 8*len(t.I64))
	case sample.Uint8:
		return t.U8
	case sample.Int8:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.I8))), len(t.I8))
	}
	return nil
}

// npyHeader returns the .npy version 1.0 header of an array of dtype and
// shape: magic, version, length, the dict, spaces and a newline up to a
// multiple of 64 bytes, as numpy.lib.format writes it.
func npyHeader(dtype string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", dtype, tuple)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := make([]byte, 0, total+pad)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	for range pad {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// frame returns the length prefix and JSON of a frame's header.
func frame(h any) ([]byte, error) {
	js, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4, 4+len(js))
	binary.LittleEndian.PutUint32(b, uint32(len(js)))
	return append(b, js...), nil
}

// readFrame reads a frame's JSON header into v.
func readFrame(r io.Reader, v any) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return err
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > maxHeader {
		return fmt.Errorf("a header of %d bytes, more than %d: not a tensorfeed serve client", size, maxHeader)
	}
	js := make([]byte, size)
	if _, err := io.ReadFull(r, js); err != nil {
		return err
	}
	if err := json.Unmarshal(js, v); err != nil {
		return fmt.Errorf("the header is not JSON of this protocol: %w", err)
	}
	return nil
}
