package jetstream_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/jetstream"
)

// wait bounds every wait of the tests.
const wait = 20 * time.Second

// natsServer is an embedded nats-server with JetStream on 127.0.0.1, whose
// store lives in a test's temporary directory so that it can be restarted
// on the same data.
type natsServer struct {
	t    testing.TB
	dir  string
	port int
	s    *server.Server
}

// startServer starts a server on a free port with a new store directory; it
// is shut down when the test ends.
func startServer(t testing.TB) *natsServer {
	t.Helper()
	ns := &natsServer{t: t, dir: t.TempDir(), port: -1}
	ns.start()
	t.Cleanup(ns.stop)
	return ns
}

func (ns *natsServer) start() {
	ns.t.Helper()
	s, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: ns.port, JetStream: true, StoreDir: ns.dir,
		NoLog: true, NoSigs: true,
	})
	if err != nil {
		ns.t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(wait) {
		ns.t.Fatal("nats-server not ready")
	}
	ns.s = s
	ns.port = s.Addr().(*net.TCPAddr).Port
}

func (ns *natsServer) stop() {
	if ns.s != nil {
		ns.s.Shutdown()
		ns.s.WaitForShutdown()
		ns.s = nil
	}
}

// restart stops the server and starts it again on the same port and store
// directory, as after a crash.
func (ns *natsServer) restart() {
	ns.t.Helper()
	ns.stop()
	ns.start()
}

func (ns *natsServer) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", ns.port) }

// connect returns a JetStream handle on a connection that reconnects
// quickly and forever; the connection is closed when the test ends.
func connect(t testing.TB, ns *natsServer) njs.JetStream {
	t.Helper()
	nc, err := nats.Connect(ns.url(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// newStream creates the stream "S" on the subjects s.>, stored in files.
func newStream(t testing.TB, js njs.JetStream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := js.CreateStream(ctx, njs.StreamConfig{Name: "S", Subjects: []string{"s.>"}, Storage: njs.FileStorage}); err != nil {
		t.Fatal(err)
	}
}

// publish writes the samples 0..n-1 to s.data.
func publish(t testing.TB, js njs.JetStream, from, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	w := jetstream.NewWriter(js, "s.data", encodeInt)
	for i := from; i < from+n; i++ {
		if err := w.Write(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func encodeInt(v int) ([]byte, error) { return strconv.AppendInt(nil, int64(v), 10), nil }

var errNotNumber = fmt.Errorf("not a number: %w", tensorfeed.ErrBadData)

func decodeInt(b []byte) (int, error) {
	v, err := strconv.Atoi(string(b))
	if err != nil {
		return 0, fmt.Errorf("%w: %q", errNotNumber, b)
	}
	return v, nil
}

// consumerConfig is the durable consumer of the tests.
func consumerConfig(ackWait time.Duration, maxAckPending int) njs.ConsumerConfig {
	return njs.ConsumerConfig{AckPolicy: njs.AckExplicitPolicy, AckWait: ackWait, MaxAckPending: maxAckPending}
}

// info returns the state of the durable consumer d of S.
func info(t testing.TB, js njs.JetStream, d string) *njs.ConsumerInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := js.Consumer(ctx, "S", d)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// eventually polls cond every 20ms for at most wait.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newConsumer creates the durable consumer d of S.
func newConsumer(t testing.TB, js njs.JetStream, d string, cfg njs.ConsumerConfig) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cfg.Durable = d
	if _, err := js.CreateConsumer(ctx, "S", cfg); err != nil {
		t.Fatal(err)
	}
}

// ackAll acknowledges every message of msgs.
func ackAll[T any](t testing.TB, msgs []jetstream.Message[T]) {
	t.Helper()
	for _, m := range msgs {
		if err := m.Msg().Ack(); err != nil {
			t.Fatal(err)
		}
	}
}

// seqOf returns the stream sequence of m's message.
func seqOf[T any](m jetstream.Message[T]) uint64 {
	md, err := m.Msg().Metadata()
	if err != nil {
		panic(err)
	}
	return md.Sequence.Stream
}
