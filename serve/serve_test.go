package serve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/tensor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// numbers is a feed of n samples 0..n-1, shuffled by index with seed and
// split between ranks: "x" int64[B] is the sample, "y" float32[B 2] is
// (x, -x).
func numbers(n, size int, seed uint64) Feed {
	s := sink.New(size,
		[]sink.Field[int64]{sink.Int64("x", nil, func(v int64, dst []int64) { dst[0] = v })},
		[]sink.Field[int64]{sink.Float32("y", []int{2}, func(v int64, dst []float32) { dst[0], dst[1] = float32(v), -float32(v) })})
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i)
	}
	table := source.IndexSlice(vals)
	return func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
		src := source.ReadIndexed(table, source.ShuffleIndex(seed), source.ShardIndex(world, rank, source.PadShards))
		return pipeline.Tensorize(pipeline.From[int64](src), s, batch.Keep).Buffered(2), nil
	}
}

// start serves feeds on a Unix socket in a temporary folder and returns
// its address; the server is closed when the test ends.
func start(t *testing.T, feeds map[string]Feed, opts ...Option) (*Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := Listen("unix:" + path)
	if err != nil {
		t.Fatal(err)
	}
	s := New(feeds, opts...)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve = %v, want nil after Close", err)
		}
	})
	return s, path
}

// client is a test client of the protocol.
type client struct {
	t    testing.TB
	conn net.Conn
}

// msg is one server frame: its header, its state and its arrays' data by
// name.
type msg struct {
	header
	state  []byte
	arrays map[string][]byte
}

func dial(t testing.TB, network, addr string, h hello) *client {
	t.Helper()
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if h.Protocol == 0 {
		h.Protocol = protocol
	}
	b, err := frame(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(b); err != nil {
		t.Fatal(err)
	}
	return &client{t: t, conn: conn}
}

func (c *client) next() (msg, error) {
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m msg
	if err := readFrame(c.conn, &m.header); err != nil {
		return m, err
	}
	m.state = make([]byte, m.StateBytes)
	if _, err := io.ReadFull(c.conn, m.state); err != nil {
		return m, err
	}
	m.arrays = map[string][]byte{}
	for _, a := range m.Arrays {
		npy := make([]byte, a.NPY+a.NBytes)
		if _, err := io.ReadFull(c.conn, npy); err != nil {
			return m, err
		}
		if err := checkNPY(npy, a); err != nil {
			c.t.Errorf("array %q: %v", a.Name, err)
		}
		m.arrays[a.Name] = npy[a.NPY:]
	}
	return m, nil
}

// checkNPY checks that npy is a .npy file of a's dtype and shape, whose
// header is padded to 64 bytes as numpy writes it.
func checkNPY(npy []byte, a array) error {
	if !bytes.HasPrefix(npy, []byte("\x93NUMPY\x01\x00")) || a.NPY%64 != 0 {
		return fmt.Errorf("not a .npy 1.0 header of a multiple of 64 bytes: %q", npy[:min(len(npy), a.NPY)])
	}
	hl := int(binary.LittleEndian.Uint16(npy[8:]))
	if 10+hl != a.NPY || npy[a.NPY-1] != '\n' {
		return fmt.Errorf("header length %d, want %d", hl, a.NPY-10)
	}
	dims := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(dims) == 1 {
		tuple += ","
	}
	want := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.DType, tuple)
	if got := strings.TrimRight(string(npy[10:a.NPY]), " \n"); got != want {
		return fmt.Errorf("header %q, want %q", got, want)
	}
	return nil
}

// xs returns the "x" values of a batch frame.
func xs(m msg) []int64 {
	raw := m.arrays["x"]
	v := make([]int64, len(raw)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return v
}

// run reads a whole run and returns its batches' x values in order, the
// state after each batch and the last frame's state.
func (c *client) run() (batches [][]int64, states [][]byte, last msg) {
	c.t.Helper()
	for {
		m, err := c.next()
		if err != nil {
			c.t.Fatalf("reading the run: %v", err)
		}
		switch m.Type {
		case "ready":
		case "batch":
			batches = append(batches, xs(m))
			states = append(states, m.state)
		case "epoch_end":
			last = m
		case "end":
			return batches, states, last
		default:
			c.t.Fatalf("frame %q: %s %s", m.Type, m.Code, m.Error)
		}
	}
}

func flat(b [][]int64) []int64 { return slices.Concat(b...) }

func TestServeOneEpoch(t *testing.T) {
	_, path := start(t, map[string]Feed{"n": numbers(95, 10, 1)})
	c := dial(t, "unix", path, hello{Feed: "n", World: 1, EndEpoch: 1})
	m, err := c.next()
	if err != nil || m.Type != "ready" {
		t.Fatalf("first frame %+v, %v", m.header, err)
	}
	ck, err := pipeline.ParseCheckpoint(m.state)
	if err != nil || ck.Epoch != 0 || ck.Step != 0 {
		t.Fatalf("ready state %s: %v", m.state, err)
	}
	var got []int64
	for i := 0; ; i++ {
		m, err := c.next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Type == "epoch_end" {
			ck, err := pipeline.ParseCheckpoint(m.state)
			if err != nil || ck.Epoch != 1 || ck.Step != 0 {
				t.Errorf("epoch_end state at epoch %d step %d (%v), want the start of epoch 1", ck.Epoch, ck.Step, err)
			}
			break
		}
		rows := 10
		if i == 9 {
			rows = 5
		}
		if m.Type != "batch" || m.Step != int64(i+1) || len(m.Arrays) != 2 || m.Arrays[0].Shape[0] != rows {
			t.Fatalf("frame %d: %+v", i, m.header)
		}
		if m.Arrays[0].DType != "<i8" || m.Arrays[1].DType != "<f4" || !slices.Equal(m.Arrays[1].Shape, []int{rows, 2}) {
			t.Errorf("arrays %+v", m.Arrays)
		}
		x := xs(m)
		y := m.arrays["y"]
		for r, v := range x {
			a := math.Float32frombits(binary.LittleEndian.Uint32(y[8*r:]))
			b := math.Float32frombits(binary.LittleEndian.Uint32(y[8*r+4:]))
			if a != float32(v) || b != -float32(v) {
				t.Fatalf("row %d of batch %d: y = (%v, %v), x = %d", r, i, a, b, v)
			}
		}
		st, err := pipeline.ParseCheckpoint(m.state)
		if err != nil || st.Step != m.Step {
			t.Fatalf("state of batch %d: %v (step %d)", i, err, st.Step)
		}
		got = append(got, x...)
	}
	if m, err := c.next(); err != nil || m.Type != "end" {
		t.Fatalf("last frame %+v, %v", m.header, err)
	}
	sorted := slices.Sorted(slices.Values(got))
	for i, v := range sorted {
		if v != int64(i) {
			t.Fatalf("the epoch's samples %v are not 0..94 once each", sorted)
		}
	}
}

// A client that reconnects with the state of the last batch it received
// gets exactly the batches that followed it, over TCP too, and the state
// after an epoch starts the next one.
func TestResumeFromState(t *testing.T) {
	s := New(map[string]Feed{"n": numbers(95, 10, 3)})
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	defer func() {
		s.Close()
		<-done
	}()
	addr := l.Addr().String()
	straight, states, last := dial(t, "tcp", addr, hello{Feed: "n", World: 1, EndEpoch: 2}).run()
	if len(straight) != 20 {
		t.Fatalf("%d batches in 2 epochs, want 20", len(straight))
	}
	for _, k := range []int{0, 3, 9, 10, 15} {
		rest, _, _ := dial(t, "tcp", addr, hello{Feed: "n", World: 1, EndEpoch: 2, State: states[k]}).run()
		if !slices.Equal(flat(rest), flat(straight[k+1:])) {
			t.Errorf("resumed after batch %d: %v, want %v", k, rest, straight[k+1:])
		}
	}
	next, _, _ := dial(t, "tcp", addr, hello{Feed: "n", World: 1, EndEpoch: 3, State: last.state}).run()
	if len(next) != 10 || slices.Equal(flat(next), flat(straight[10:])) {
		t.Errorf("epoch 2 from the last epoch_end state: %v", next)
	}
}

func TestRanksSplitExactly(t *testing.T) {
	_, path := start(t, map[string]Feed{"n": numbers(100, 7, 5)})
	var all []int64
	for rank := range 3 {
		b, _, _ := dial(t, "unix", path, hello{Feed: "n", World: 3, Rank: rank, EndEpoch: 1}).run()
		x := flat(b)
		if len(x) != 34 { // ceil(100/3), padded
			t.Errorf("rank %d: %d samples, want 34", rank, len(x))
		}
		all = append(all, x...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) != 100 || all[0] != 0 || all[99] != 99 {
		t.Errorf("the ranks together read %d distinct samples, want 0..99", len(all))
	}
}

// refused dials with h and returns the error frame the server answers.
func refused(t *testing.T, path string, h hello) msg {
	t.Helper()
	c := dial(t, "unix", path, h)
	m, err := c.next()
	if err != nil {
		t.Fatalf("%+v: %v", h, err)
	}
	if m.Type != "error" {
		t.Fatalf("%+v: frame %q, want an error", h, m.Type)
	}
	return m
}

func TestRefusals(t *testing.T) {
	_, path := start(t, map[string]Feed{"n": numbers(50, 10, 1), "m": numbers(60, 10, 1)})
	_, states, _ := dial(t, "unix", path, hello{Feed: "m", World: 1, EndEpoch: 1}).run()
	_, nstates, _ := dial(t, "unix", path, hello{Feed: "n", World: 1, EndEpoch: 1}).run()
	edited := bytes.Replace(nstates[1], []byte(`"step":2`), []byte(`"step":3`), 1)
	for _, tc := range []struct {
		name string
		h    hello
		code string
		want string
	}{
		{"unknown feed", hello{Feed: "x", World: 1, EndEpoch: 1}, codeUnknownFeed, `unknown feed "x"; this server serves "m", "n"`},
		{"protocol", hello{Protocol: 9, Feed: "n", World: 1}, codeBadRequest, "protocol 9"},
		{"protocol 1", hello{Protocol: 1, Feed: "n", World: 1}, codeBadRequest, "the client speaks protocol 1, this server 2"},
		{"rank", hello{Feed: "n", World: 2, Rank: 2}, codeBadRequest, "rank 2 of world 2"},
		{"other pipeline", hello{Feed: "n", World: 1, EndEpoch: 1, State: states[0]}, codeBadState, "another pipeline"},
		{"edited", hello{Feed: "n", World: 1, EndEpoch: 1, State: edited}, codeBadState, "step: changed after the checkpoint was written"},
		{"not a checkpoint", hello{Feed: "n", World: 1, EndEpoch: 1, State: json.RawMessage(`{"version":2}`)}, codeBadState, "the client's state"},
		{"past the run", hello{Feed: "n", World: 1, EndEpoch: 0, State: nstates[0]}, codeBadState, "epoch"},
	} {
		m := refused(t, path, tc.h)
		if m.Code != tc.code || !strings.Contains(m.Error, tc.want) {
			t.Errorf("%s: %s %q, want %s containing %q", tc.name, m.Code, m.Error, tc.code, tc.want)
		}
	}
	// Not the protocol at all: a header that claims 1 GiB.
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte{0, 0, 0, 0x40})
	c := &client{t: t, conn: conn}
	if m, err := c.next(); err != nil || m.Code != codeBadRequest {
		t.Errorf("a 1 GiB header: %+v, %v", m.header, err)
	}
}

// A second client of a rank that a connected client reads is refused; the
// rank is free again once the first one has gone.
func TestSameRankRefused(t *testing.T) {
	_, path := start(t, map[string]Feed{"n": numbers(1000, 10, 1)})
	// An endless run: the server is still writing (blocked on the socket)
	// when the second client comes, whatever the machine's speed.
	first := dial(t, "unix", path, hello{Feed: "n", World: 2, Rank: 1, EndEpoch: -1})
	if m, err := first.next(); err != nil || m.Type != "ready" {
		t.Fatalf("%+v %v", m.header, err)
	}
	m := refused(t, path, hello{Feed: "n", World: 2, Rank: 1, EndEpoch: 1})
	if m.Code != codeRankBusy || !strings.Contains(m.Error, `feed "n" rank 1 is being read by another client`) {
		t.Errorf("%s %q", m.Code, m.Error)
	}
	if b, _, _ := dial(t, "unix", path, hello{Feed: "n", World: 2, Rank: 0, EndEpoch: 1}).run(); len(flat(b)) != 500 {
		t.Errorf("rank 0 beside rank 1: %d samples", len(flat(b)))
	}
	first.conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := dial(t, "unix", path, hello{Feed: "n", World: 2, Rank: 1, EndEpoch: 1})
		m, err := c.next()
		if err == nil && m.Type == "ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank 1 still refused after its client left: %+v %v", m.header, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A consumer that stops reading holds the server to a bounded amount of
// work: the pipeline blocks on the socket instead of queueing batches, and
// the run ends as soon as the client leaves.
func TestSlowConsumerBounded(t *testing.T) {
	const n, dim = 2000, 16 << 10 // a sample is 64 KiB, a batch of 8 512 KiB
	var produced atomic.Int64
	s := sink.New(8, []sink.Field[int64]{sink.Float32("x", []int{dim}, func(v int64, dst []float32) { dst[0] = float32(v) })}, nil)
	feed := func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
		p := pipeline.Map(pipeline.From(source.Slice(make([]int64, n))), func(v int64) int64 {
			produced.Add(1)
			return v
		})
		return pipeline.Tensorize(p, s, batch.Keep).Buffered(2), nil
	}
	srv, path := start(t, map[string]Feed{"big": feed})
	c := dial(t, "unix", path, hello{Feed: "big", World: 1, EndEpoch: 1})
	if m, err := c.next(); err != nil || m.Type != "ready" {
		t.Fatal(m.header, err)
	}
	time.Sleep(300 * time.Millisecond) // the client reads nothing
	// The socket's buffers hold a few MiB at most; 2000 samples are 125 MiB.
	if p := produced.Load(); p > 400 {
		t.Fatalf("the server produced %d of %d samples for a client that read none: not bounded", p, n)
	}
	c.conn.Close()
	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: a run blocked on a gone client")
	}
}

// Close ends a run whose client reads slowly, and Serve returns nil.
func TestCloseEndsRuns(t *testing.T) {
	srv, path := start(t, map[string]Feed{"n": numbers(100000, 100, 1)})
	c := dial(t, "unix", path, hello{Feed: "n", World: 1, EndEpoch: -1})
	if m, err := c.next(); err != nil || m.Type != "ready" {
		t.Fatal(m.header, err)
	}
	start := time.Now()
	srv.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	// The client sees the end of the stream (possibly after frames already sent).
	for {
		if _, err := c.next(); err != nil {
			break
		}
	}
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(l); err != nil {
		t.Errorf("Serve after Close = %v", err)
	}
	if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener given to Serve after Close is still open")
	}
}

// A pipeline that fails sends the error, which names the data and where,
// with code "data"; the batches before it were delivered.
func TestPipelineError(t *testing.T) {
	s := sink.New(4, []sink.Field[int64]{sink.Int64("x", nil, func(v int64, dst []int64) { dst[0] = v })}, nil)
	feed := func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
		p := pipeline.MapErr(pipeline.From(source.Slice([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})), func(v int64) (int64, error) {
			if v == 6 {
				return 0, fmt.Errorf("numbers.bin: record 6: %w", tensorfeed.ErrBadData)
			}
			return v, nil
		})
		return pipeline.Tensorize(p, s, batch.Keep), nil
	}
	_, path := start(t, map[string]Feed{"bad": feed})
	c := dial(t, "unix", path, hello{Feed: "bad", World: 1, EndEpoch: 1})
	var batches int
	for {
		m, err := c.next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Type == "batch" {
			batches++
			continue
		}
		if m.Type == "ready" {
			continue
		}
		if m.Type != "error" || m.Code != codeData || !strings.Contains(m.Error, "numbers.bin: record 6") {
			t.Fatalf("frame %+v", m.header)
		}
		break
	}
	if batches != 1 {
		t.Errorf("%d batches before the error, want 1", batches)
	}
}

func TestListen(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:5555", ":notaport", "nohost"} {
		if l, err := Listen(addr); err == nil {
			l.Close()
			t.Errorf("Listen(%q) listens", addr)
		}
	}
	l, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.Addr().String(), "127.0.0.1:") {
		t.Errorf(":0 listens on %s", l.Addr())
	}
	l.Close()

	dir := t.TempDir()
	// A stale socket (a server that died without removing it) is replaced.
	path := filepath.Join(dir, "stale.sock")
	old, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	old.(*net.UnixListener).SetUnlinkOnClose(false)
	old.Close()
	l, err = Listen("unix:" + path)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	// A live one is not.
	if l2, err := Listen("unix:" + path); err == nil {
		l2.Close()
		t.Error("Listen took over a live socket")
	}
	l.Close()
	// Nor is a file that is not a socket.
	file := filepath.Join(dir, "data.bin")
	os.WriteFile(file, []byte("keep me"), 0o644)
	if l, err := Listen("unix:" + file); err == nil {
		l.Close()
		t.Error("Listen replaced a regular file")
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Error("the file was changed")
	}
}

func TestNPYHeader(t *testing.T) {
	for _, shape := range [][]int{{3}, {128, 784}, {2, 3, 224, 224}} {
		h := npyHeader("<f4", shape)
		if err := checkNPY(h, array{DType: "<f4", Shape: shape, NPY: len(h)}); err != nil {
			t.Errorf("%v: %v", shape, err)
		}
	}
}

// pixels is a feed of n samples whose uint8 "img" [B 3] is (v, 255-v,
// 2v) of sample v, shuffled by index: the bytes of a tensor declared with
// Affine.
func pixels(n int) Feed {
	s := sink.New(16, []sink.Field[int64]{sink.Uint8("img", []int{3}, func(v int64, dst []uint8) {
		dst[0], dst[1], dst[2] = uint8(v), uint8(255-v), uint8(2*v)
	})}, []sink.Field[int64]{sink.Int64("x", nil, func(v int64, dst []int64) { dst[0] = v })})
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i)
	}
	table := source.IndexSlice(vals)
	return func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
		src := source.ReadIndexed(table, source.ShuffleIndex(7), source.ShardIndex(world, rank, source.PadShards))
		return pipeline.Tensorize(pipeline.From[int64](src), s, batch.Keep), nil
	}
}

// A tensor declared with Affine reaches a client that decodes as its
// bytes with the scale and offset, and any other client as the float32
// values the two give, each within a few ulps of the exact value.
func TestAffine(t *testing.T) {
	const scale, offset = float32(1 / (255 * 0.3081)), float32(-0.1307 / 0.3081)
	_, path := start(t, map[string]Feed{"px": pixels(256)}, Affine("px", "img", scale, offset))
	frames := func(decode bool) []msg {
		c := dial(t, "unix", path, hello{Feed: "px", World: 1, EndEpoch: 1, Decode: decode})
		var out []msg
		for {
			m, err := c.next()
			if err != nil {
				t.Fatal(err)
			}
			switch m.Type {
			case "batch":
				out = append(out, m)
			case "end":
				return out
			case "error":
				t.Fatalf("%s: %s", m.Code, m.Error)
			}
		}
	}
	raw, f32 := frames(true), frames(false)
	if len(raw) != 16 || len(f32) != 16 {
		t.Fatalf("%d and %d batches, want 16", len(raw), len(f32))
	}
	for i := range raw {
		r, f := raw[i].Arrays[0], f32[i].Arrays[0]
		if r.Name != "img" || r.DType != "|u1" || r.Affine == nil || *r.Affine != [2]float32{scale, offset} || r.NBytes != 16*3 {
			t.Fatalf("batch %d to a client that decodes: %+v", i, r)
		}
		if f.DType != "<f4" || f.Affine != nil || f.NBytes != 16*3*4 || !slices.Equal(f.Shape, []int{16, 3}) {
			t.Fatalf("batch %d to a client that does not: %+v", i, f)
		}
		if !bytes.Equal(raw[i].arrays["x"], f32[i].arrays["x"]) {
			t.Fatalf("batch %d: the two clients got other samples", i)
		}
		bs, fs := raw[i].arrays["img"], f32[i].arrays["img"]
		for j, x := range bs {
			got := math.Float32frombits(binary.LittleEndian.Uint32(fs[4*j:]))
			if want := float32(float32(x)*scale) + offset; got != want {
				t.Fatalf("batch %d element %d: %v, decoded %v", i, j, got, want)
			}
			if exact := (float64(x)/255 - 0.1307) / 0.3081; math.Abs(float64(got)-exact) > 1e-6 {
				t.Fatalf("batch %d element %d: %v, exactly %v", i, j, got, exact)
			}
		}
	}
}

// A tensor declared with Affine that is not uint8 fails the run, naming it.
func TestAffineNotBytes(t *testing.T) {
	_, path := start(t, map[string]Feed{"n": numbers(20, 10, 1)}, Affine("n", "y", 2, 1))
	c := dial(t, "unix", path, hello{Feed: "n", World: 1, EndEpoch: 1})
	m, err := c.next()
	for err == nil && m.Type == "ready" {
		m, err = c.next()
	}
	if err != nil || m.Code != codeData || !strings.Contains(m.Error, `tensor "y" is float32, but serve.Affine declares it uint8`) {
		t.Errorf("%s %q (%v)", m.Code, m.Error, err)
	}
}
