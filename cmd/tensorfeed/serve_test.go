package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/serve"
)

func TestServeUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve"}, 2, "nothing to serve"},
		{[]string{"serve", "data/mnist"}, 2, "serve takes no arguments"},
		{[]string{"serve", "--mnist", "x", "--last", "most"}, 2, `--last "most"`},
		{[]string{"serve", "--mnist", "x", "--scale", "big"}, 2, `--scale "big"`},
		{[]string{"serve", "--rec", "x.rec"}, 2, "--data-shape is required"},
		{[]string{"serve", "--rec", "x.rec", "--data-shape", "3,224"}, 2, "want C,H,W"},
		{[]string{"serve", "--records", "x.rec", "--record-shape", "0"}, 2, "positive integers"},
		{[]string{"serve", "--records", "x.rec", "--record-shape", "4", "--record-dtype", "f16"}, 2, `--record-dtype "f16"`},
		{[]string{"serve", "--mnist", "../../data/mnist", "--listen", "0.0.0.0:0"}, 2, "not a loopback address"},
		{[]string{"serve", "--mnist", filepath.Join(t.TempDir(), "none")}, 1, "mnist"},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader on two
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The command serves MNIST on a Unix socket until its context ends, and
// exits 0 then.
func TestServeMNIST(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "unix:" + sock, "--mnist", "../../data/mnist", "--batch", "32", "--index"}, &stdout, &stderr)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stdout.String(), "serving mnist-train, mnist-test on unix:"+sock) {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A client that decodes gets the pixel bytes with the scale and offset
	// of the standard normalisation; any other, the normalised float32.
	// (Ranks 0 and 1 of 2: the first client may still hold its rank when
	// the second comes.)
	for rank, tc := range []struct {
		decode bool
		want   string
	}{
		{true, "image |u1 [32 784] [0.012728233 -0.42421293]; label <i8 [32]; index <i8 [32]; "},
		{false, "image <f4 [32 784]; label <i8 [32]; index <i8 [32]; "},
	} {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		hello, _ := json.Marshal(map[string]any{"protocol": 2, "feed": "mnist-test", "world": 2, "rank": rank, "end_epoch": 1, "decode": tc.decode})
		conn.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hello))))
		conn.Write(hello)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if got := firstArrays(t, conn); got != tc.want {
			t.Errorf("decode %v: arrays %q, want %q", tc.decode, got, tc.want)
		}
		conn.Close()
	}
	cancel()
	waitServed(t, done, &stderr)
}

// --rec serves MXNet's ImageRecordIter over image records: a client of
// rank 1 of 2 gets its part's batches of CHW float32 images and labels.
func TestServeRec(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "unix:" + sock, "--rec", "../../dataset/imagerec/testdata/mnist_t10k_1000_jpg.rec",
			"--data-shape", "3,24,24", "--rand-crop", "--batch", "16", "--threads", "1"}, &stdout, &stderr)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stdout.String(), "serving rec on unix:"+sock) {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hello, _ := json.Marshal(map[string]any{"protocol": 2, "feed": "rec", "world": 2, "rank": 1, "end_epoch": 1})
	conn.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hello))))
	conn.Write(hello)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, want := firstArrays(t, conn), "data <f4 [16 3 24 24]; softmax_label <f4 [16]; "; got != want {
		t.Errorf("arrays %q, want %q", got, want)
	}
	conn.Close()
	cancel()
	waitServed(t, done, &stderr)
}

// firstArrays reads the "ready" frame and the first "batch" frame of a
// served feed (header and state; the arrays stay unread) and returns the
// batch's arrays as "name dtype shape; ...".
func firstArrays(t *testing.T, conn io.Reader) string {
	t.Helper()
	var h struct {
		Type       string `json:"type"`
		StateBytes int    `json:"state_bytes"`
		Arrays     []struct {
			Name   string      `json:"name"`
			DType  string      `json:"dtype"`
			Shape  []int       `json:"shape"`
			Affine *[2]float32 `json:"affine"`
		} `json:"arrays"`
	}
	for _, want := range []string{"ready", "batch"} {
		var n [4]byte
		if _, err := io.ReadFull(conn, n[:]); err != nil {
			t.Fatal(err)
		}
		js := make([]byte, binary.LittleEndian.Uint32(n[:]))
		if _, err := io.ReadFull(conn, js); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(js, &h); err != nil || h.Type != want {
			t.Fatalf("frame %s (%v), want %s", js, err, want)
		}
		if _, err := io.CopyN(io.Discard, conn, int64(h.StateBytes)); err != nil {
			t.Fatal(err)
		}
	}
	got := ""
	for _, a := range h.Arrays {
		got += fmt.Sprintf("%s %s %v", a.Name, a.DType, a.Shape)
		if a.Affine != nil {
			got += fmt.Sprintf(" %v", *a.Affine)
		}
		got += "; "
	}
	return got
}

// waitServed waits for serve, whose context has ended, to exit 0.
func waitServed(t *testing.T, done <-chan int, stderr fmt.Stringer) {
	t.Helper()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after its context ended: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// --mnist assembles each batch on the goroutine that writes it unless
// --prefetch is given: the socket's buffer holds the batches written
// ahead, and a prefetch goroutine would only add a hand-over per batch.
func TestServeMNISTPrefetch(t *testing.T) {
	for _, tc := range []struct {
		prefetch int
		last     string
	}{{-1, "tensorize"}, {0, "tensorize"}, {4, "buffered"}} {
		feeds := map[string]serve.Feed{}
		c := feedConfig{batch: 32, seed: 1, prefetch: tc.prefetch}
		if err := mnistFeeds(context.Background(), feeds, "../../data/mnist", c.prefetchOr(0)); err != nil {
			t.Fatal(err)
		}
		p, err := feeds["mnist-train"](1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if last := p.Stats().Last().Name; last != tc.last {
			t.Errorf("--prefetch %d: the last step is %q, want %q", tc.prefetch, last, tc.last)
		}
	}
	if got := (feedConfig{prefetch: -1}).prefetchOr(4).prefetch; got != 4 {
		t.Errorf("the default prefetch of --rec and --records is %d, want 4", got)
	}
}
