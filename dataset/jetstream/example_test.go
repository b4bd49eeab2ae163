package jetstream_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/jetstream"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
)

// Point is a training sample: two features and a label.
type Point struct {
	X     [2]float32
	Label int32
}

// encodePoint and decodePoint are the wire format of a Point: 12 bytes.
func encodePoint(p Point) ([]byte, error) {
	b := make([]byte, 12)
	binary.LittleEndian.PutUint32(b[0:], math.Float32bits(p.X[0]))
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(p.X[1]))
	binary.LittleEndian.PutUint32(b[8:], uint32(p.Label))
	return b, nil
}

func decodePoint(b []byte) (Point, error) {
	if len(b) != 12 {
		return Point{}, fmt.Errorf("point of %d bytes, want 12: %w", len(b), tensorfeed.ErrBadData)
	}
	return Point{
		X:     [2]float32{math.Float32frombits(binary.LittleEndian.Uint32(b[0:])), math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))},
		Label: int32(binary.LittleEndian.Uint32(b[8:])),
	}, nil
}

// embedded starts a nats-server with JetStream on a free port of
// 127.0.0.1, storing in dir; a program would connect to its own servers.
func embedded(dir string) *server.Server {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		log.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		log.Fatal("server not ready")
	}
	return s
}

// A producer publishes points to a stream; the trainer reads them as
// tensors through a durable consumer, and the messages of each batch are
// acknowledged when the batch is released.
func Example() {
	dir, err := os.MkdirTemp("", "jetstream-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv := embedded(dir)
	defer srv.WaitForShutdown()
	defer srv.Shutdown()

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, njs.StreamConfig{Name: "POINTS", Subjects: []string{"points.>"}}); err != nil {
		log.Fatal(err)
	}

	// The producer.
	w := jetstream.NewWriter(js, "points.train", encodePoint)
	for i := range 10 {
		if err := w.Write(ctx, Point{X: [2]float32{float32(i), -float32(i)}, Label: int32(i % 2)}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		log.Fatal(err)
	}

	// The trainer. MaxAckPending bounds the messages in flight: at least
	// the batch size times the batches held at once.
	points := jetstream.Read(js, "POINTS", "trainer", decodePoint,
		jetstream.Create(njs.ConsumerConfig{AckWait: time.Minute, MaxAckPending: 64}),
		jetstream.EndAtTail()) // a training job would read on; the example stops at the tail
	tensors := sink.New(4,
		[]sink.Field[Point]{sink.Float32("x", []int{2}, func(p Point, dst []float32) { copy(dst, p.X[:]) })},
		[]sink.Field[Point]{sink.Int32("label", nil, func(p Point, dst []int32) { dst[0] = p.Label })})
	for t, err := range jetstream.Tensorize(points, tensors, batch.Keep).All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		x, _ := t.Get("x")
		y, _ := t.Get("label")
		fmt.Println(x.Shape, x.F32[:2], y.I32)
		t.Release() // acknowledges the batch's messages
	}
	// Output:
	// [4 2] [0 -0] [0 1 0 1]
	// [4 2] [4 -4] [0 1 0 1]
	// [2 2] [8 -8] [0 1]
}

// A producer writes a pass of a reader to a stream; a consumer that uses
// one sample at a time reads it with Values, which acknowledges each
// message when the loop asks for the next.
func ExampleValues() {
	dir, err := os.MkdirTemp("", "jetstream-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv := embedded(dir)
	defer srv.WaitForShutdown()
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, njs.StreamConfig{Name: "WORDS", Subjects: []string{"words"}}); err != nil {
		log.Fatal(err)
	}

	text := func(s string) ([]byte, error) { return []byte(s), nil }
	w := jetstream.NewWriter(js, "words", text)
	n, err := w.WriteAll(ctx, source.Slice([]string{"online", "readers", "never", "end"}))
	fmt.Println("published", n, err)

	words := jetstream.Read(js, "WORDS", "reader", func(b []byte) (string, error) { return string(b), nil },
		jetstream.Create(njs.ConsumerConfig{MaxAckPending: 16}), jetstream.EndAtTail())
	for word, err := range jetstream.Values(words).All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(word)
	}
	// Output:
	// published 4 <nil>
	// online
	// readers
	// never
	// end
}
