package jetstream_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/jetstream"
	"github.com/tensorfeed/tensorfeed/sink"
)

// benchSamples messages of benchBytes bytes (an MNIST digit) are read per
// pass.
const (
	benchSamples = 10_000
	benchBytes   = 784
)

// benchStream starts a server and stores the benchmark's messages.
func benchStream(b *testing.B) njs.JetStream {
	ns := startServer(b)
	js := connect(b, ns)
	newStream(b, js)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := jetstream.NewWriter(js, "s.data", func(v []byte) ([]byte, error) { return v, nil })
	data := make([]byte, benchBytes)
	for range benchSamples {
		if err := w.Write(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	return js
}

// BenchmarkRead reads the stream through a new durable consumer per
// iteration, acknowledging every message: Values (ack per sample),
// Tensorize (batches of 128, ack on release) and, to compare, the loop a
// user would write on the jetstream client (Messages, Ack).
func BenchmarkRead(b *testing.B) {
	js := benchStream(b)
	ctx := context.Background()
	identity := func(v []byte) ([]byte, error) { return v, nil }
	n := 0
	consumer := func() string {
		n++
		name := fmt.Sprint("bench", n)
		newConsumer(b, js, name, consumerConfig(time.Minute, 4096))
		return name
	}
	report := func(b *testing.B) {
		per := float64(b.Elapsed().Nanoseconds()) / float64(b.N*benchSamples)
		b.ReportMetric(per, "ns/sample")
		b.ReportMetric(1e3/per*benchBytes, "MB/s")
		b.ReportMetric(0, "ns/op")
	}

	b.Run("Values", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := jetstream.Values(jetstream.Read(js, "S", consumer(), identity, jetstream.EndAtTail()))
			got := 0
			for _, err := range r.All(ctx) {
				if err != nil {
					b.Fatal(err)
				}
				got++
			}
			if got != benchSamples {
				b.Fatalf("%d samples, want %d", got, benchSamples)
			}
		}
		report(b)
	})

	b.Run("Tensorize", func(b *testing.B) {
		b.ReportAllocs()
		s := sink.New(128, []sink.Field[[]byte]{sink.Slice("x", []int{benchBytes}, func(v []byte) []uint8 { return v })}, nil)
		for b.Loop() {
			r := jetstream.Tensorize(jetstream.Read(js, "S", consumer(), identity, jetstream.EndAtTail()), s, batch.Keep)
			got := 0
			for t, err := range r.All(ctx) {
				if err != nil {
					b.Fatal(err)
				}
				got += t.Len()
				t.Release()
			}
			if got != benchSamples {
				b.Fatalf("%d samples, want %d", got, benchSamples)
			}
		}
		report(b)
	})

	b.Run("plain-client", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := js.Consumer(ctx, "S", consumer())
			if err != nil {
				b.Fatal(err)
			}
			it, err := c.Messages()
			if err != nil {
				b.Fatal(err)
			}
			for range benchSamples {
				m, err := it.Next()
				if err != nil {
					b.Fatal(err)
				}
				if len(m.Data()) != benchBytes {
					b.Fatal("short message")
				}
				if err := m.Ack(); err != nil {
					b.Fatal(err)
				}
			}
			it.Stop()
		}
		report(b)
	})
}
