package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	njs "github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/jetstream"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// intSink puts each sample in one int32 tensor "x".
func intSink(size int) *sink.Sink[int] {
	return sink.New(size, []sink.Field[int]{sink.Int32("x", nil, func(v int, dst []int32) { dst[0] = int32(v) })}, nil)
}

// rows returns the real rows of t's tensor x.
func rows(t *tensor.Batch) []int {
	x, _ := t.Get("x")
	var out []int
	for _, v := range x.I32[:t.Len()-t.Padded] {
		out = append(out, int(v))
	}
	return out
}

func TestReaderContract(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 50)
	// Every pass of the contract checks reads a new durable consumer from
	// the start of the stream. They are made beforehand: the embedded
	// server starts goroutines for each, which the checks would count as
	// the pass's.
	const passes = 12
	for i := range passes {
		newConsumer(t, js, fmt.Sprint("c", i), consumerConfig(time.Minute, 1000))
	}
	var next atomic.Int64
	r := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		d := fmt.Sprint("c", next.Add(1)-1)
		return jetstream.Values(jetstream.Read(js, "S", d, decodeInt,
			jetstream.EndAtTail(), jetstream.FetchBatch(7), jetstream.MaxWait(200*time.Millisecond))).All(ctx)
	})
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
	if next.Load() >= passes {
		t.Fatalf("%d passes, more than the %d consumers made", next.Load(), passes)
	}
	got, err := source.Collect(context.Background(), r)
	if err != nil || len(got) != 50 {
		t.Fatalf("pass = %d samples, %v; want 50", len(got), err)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("sample %d = %d: out of order", i, v)
		}
	}
}

// Every published sample is read exactly once when the batches are
// released, and a later pass finds nothing: the acks reached the server.
func TestTensorizeAcksOnRelease(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	const n = 1000
	publish(t, js, 0, n)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Minute, 256)),
		jetstream.EndAtTail(), jetstream.FetchBatch(64), jetstream.MaxWait(200*time.Millisecond))
	feed := jetstream.Tensorize(r, intSink(32), batch.Keep)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	var got []int
	for b, err := range feed.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rows(b)...)
		b.Release()
	}
	slices.Sort(got)
	if len(got) != n || got[0] != 0 || got[n-1] != n-1 || len(slices.Compact(got)) != n {
		t.Fatalf("got %d samples, want each of 0..%d once", len(got), n-1)
	}
	eventually(t, "every message acknowledged", func() bool {
		in := info(t, js, "c")
		return in.NumAckPending == 0 && in.NumPending == 0 && in.AckFloor.Stream == n
	})
	again, err := source.Count(ctx, feed)
	if err != nil || again != 0 {
		t.Fatalf("second pass: %d batches, %v; want none", again, err)
	}
}

// seqs returns the stream sequences of one pass of r, at most n of them,
// keeping the messages unacknowledged.
func seqs(t *testing.T, ctx context.Context, r source.Reader[jetstream.Message[int]], n int) ([]uint64, []jetstream.Message[int]) {
	t.Helper()
	var out []uint64
	var msgs []jetstream.Message[int]
	for m, err := range r.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, seqOf(m))
		msgs = append(msgs, m)
		if len(out) == n {
			break
		}
	}
	return out, msgs
}

// A message that is not acknowledged comes again after AckWait, also to a
// consumer on a restarted server; once acknowledged it does not.
func TestRedeliveryWithoutAck(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	const n = 20
	publish(t, js, 0, n)
	const ackWait = 300 * time.Millisecond
	opts := []jetstream.Option{jetstream.Create(consumerConfig(ackWait, 100)), jetstream.MaxWait(100 * time.Millisecond)}
	r := jetstream.Read(js, "S", "c", decodeInt, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	first, _ := seqs(t, ctx, r, n)
	// A batch that is never released: its messages come again.
	ns.restart()
	second, msgs := seqs(t, ctx, jetstream.Read(js, "S", "c", decodeInt, opts...), n)
	if !slices.Equal(first, second) {
		t.Fatalf("redelivered %v, want %v", second, first)
	}
	ackAll(t, msgs)
	eventually(t, "acks reached the server", func() bool { return info(t, js, "c").NumAckPending == 0 })
	time.Sleep(2 * ackWait)
	short, cancelShort := context.WithTimeout(ctx, 4*ackWait)
	defer cancelShort()
	n3 := 0
	for _, err := range r.All(short) {
		if err == nil {
			n3++
		}
	}
	if n3 != 0 {
		t.Fatalf("%d messages delivered after their ack", n3)
	}
}

// Tensorize does not acknowledge batches that are not released.
func TestTensorizeUnreleasedRedelivered(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 16)
	const ackWait = 300 * time.Millisecond
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(ackWait, 100)),
		jetstream.EndAtTail(), jetstream.MaxWait(100*time.Millisecond))
	feed := jetstream.Tensorize(r, intSink(8), batch.Keep)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var kept []*tensor.Batch
	for b, err := range feed.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, b)
	}
	if len(kept) != 2 {
		t.Fatalf("%d batches, want 2", len(kept))
	}
	kept[0].Release()
	eventually(t, "first batch acknowledged", func() bool { return info(t, js, "c").NumAckPending == 8 })
	time.Sleep(2 * ackWait) // the second batch's messages are due again
	var again []int
	for b, err := range feed.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		again = append(again, rows(b)...)
		b.Release()
		if len(again) == 8 {
			break
		}
	}
	slices.Sort(again)
	if !slices.Equal(again, []int{8, 9, 10, 11, 12, 13, 14, 15}) {
		t.Fatalf("redelivered %v, want the second batch", again)
	}
	eventually(t, "all acknowledged", func() bool { return info(t, js, "c").NumAckPending == 0 })
}

// The server stops and starts again on the same store in the middle of a
// pass: the pass goes on after the reconnect (or ends with an error and the
// next pass resumes), and no sample is lost.
func TestServerRestartMidStream(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	const n = 300
	publish(t, js, 0, n)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Second, 1000)),
		jetstream.FetchBatch(16), jetstream.MaxWait(200*time.Millisecond), jetstream.MaxOutage(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	seen := map[int]int{}
	restarted, passes := false, 0
	for len(seen) < n && passes < 5 {
		passes++
		for v, err := range jetstream.Values(r).All(ctx) {
			if err != nil {
				if ctx.Err() != nil {
					t.Fatalf("%d of %d samples before the deadline: %v", len(seen), n, err)
				}
				t.Logf("pass %d ended: %v", passes, err)
				break
			}
			seen[v]++
			if len(seen) == n/3 && !restarted {
				restarted = true
				ns.restart()
			}
			if len(seen) == n {
				break
			}
		}
	}
	if len(seen) != n {
		t.Fatalf("%d of %d samples after %d passes", len(seen), n, passes)
	}
	dup := 0
	for _, c := range seen {
		dup += c - 1
	}
	t.Logf("%d passes, %d samples delivered twice", passes, dup)
}

// A pass whose server is gone for longer than MaxOutage ends with an error
// naming the stream and the consumer; a later pass on the same durable
// resumes.
func TestOutageEndsPass(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 10)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Second, 100)),
		jetstream.MaxWait(100*time.Millisecond), jetstream.MaxOutage(500*time.Millisecond), jetstream.FetchBatch(2))
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var got []int
	var end error
	for v, err := range jetstream.Values(r).All(ctx) {
		if err != nil {
			end = err
			break
		}
		got = append(got, v)
		if len(got) == 4 {
			ns.stop()
		}
	}
	var ce *tensorfeed.Error
	if !errors.As(end, &ce) || ce.Path != "jetstream:S" || ce.Member != "c" || ce.Record != -1 || ce.Offset != -1 ||
		!strings.Contains(end.Error(), "no answer from the server for more than 500ms") {
		t.Fatalf("pass ended with %v, want a *tensorfeed.Error naming S and c and the outage", end)
	}
	t.Logf("pass ended %v after the start: %v", time.Since(start), end)
	ns.start()
	missing := func() bool {
		for i := range 10 {
			if !slices.Contains(got, i) {
				return true
			}
		}
		return false
	}
	if !missing() {
		t.Fatalf("the first pass read all of %v despite the outage", got)
	}
	for v, err := range jetstream.Values(r).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, v); !missing() {
			break
		}
	}
	t.Logf("resumed %v after the start", time.Since(start))
	slices.Sort(got)
	if len(slices.Compact(got)) != 10 {
		t.Fatalf("got %v, want 0..9", got)
	}
}

// Cancelling a pass of the endless reader ends it with context.Canceled;
// breaking hands the fetched messages back at once.
func TestCancelAndBreak(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 100)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Minute, 1000)),
		jetstream.FetchBatch(50), jetstream.MaxWait(100*time.Millisecond))
	sourcetest.CancelAfter(t, r, 5)
	sourcetest.CancelAfter(t, r, 0)
	// 5 yielded and not acknowledged, due again in a minute; the 45 others
	// fetched were handed back and come again at once.
	got := sourcetest.BreakAfter(t, jetstream.Values(r), 95)
	want := make([]int, 95)
	for i := range want {
		want[i] = 5 + i
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after cancel: %v, want 5..99", got)
	}
}

// A message that does not decode is skipped, counted, and terminated; under
// the default policy it ends the pass with an error naming its position.
func TestDecodeErrors(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 5)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := js.Publish(ctx, "s.bad", []byte("not a number")); err != nil {
		t.Fatal(err)
	}
	publish(t, js, 5, 5)

	opts := []jetstream.Option{jetstream.Create(consumerConfig(time.Minute, 100)), jetstream.EndAtTail(),
		jetstream.MaxWait(100 * time.Millisecond)}
	strict := jetstream.Read(js, "S", "strict", decodeInt, opts...)
	got, err := source.Collect(ctx, jetstream.Values(strict))
	var me *tensorfeed.Error
	if !errors.As(err, &me) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.Is(err, errNotNumber) {
		t.Fatalf("pass ended with %v, want a *tensorfeed.Error wrapping ErrBadData", err)
	}
	if me.Path != "jetstream:S" || me.Member != "s.bad" || me.Record != 6 || me.Offset != -1 || len(got) != 5 {
		t.Fatalf("error %+v after %d samples, want stream S, subject s.bad, sequence 6 after 5", me, len(got))
	}
	if want := `jetstream:S: record 6: member "s.bad": jetstream: decode, delivery 1: not a number: tensorfeed: bad data: "not a number"`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}

	skip := source.SkipBad(0.5)
	lenient := jetstream.Read(js, "S", "lenient", decodeInt, append(opts, jetstream.OnBad(skip))...)
	got, err = source.Collect(ctx, jetstream.Values(lenient))
	if err != nil || len(got) != 10 || skip.Skipped() != 1 || lenient.Skipped() != 1 {
		t.Fatalf("lenient pass: %d samples, %d skipped, %v; want 10, 1", len(got), skip.Skipped(), err)
	}
	eventually(t, "nothing left pending", func() bool {
		in := info(t, js, "lenient")
		return in.NumAckPending == 0 && in.NumPending == 0 && in.AckFloor.Stream == 11
	})

	big := jetstream.Read(js, "S", "big", decodeInt, append(opts, jetstream.MaxMessageBytes(4))...)
	_, err = source.Collect(ctx, jetstream.Values(big))
	if !errors.Is(err, jetstream.ErrTooLarge) || !errors.Is(err, tensorfeed.ErrBadData) || !errors.As(err, &me) || me.Record != 6 {
		t.Fatalf("pass ended with %v, want ErrTooLarge at sequence 6", err)
	}
	if want := `jetstream:S: record 6: member "s.bad": jetstream: decode, delivery 1: jetstream: message larger than the configured maximum: 12 bytes, at most 4`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

// A consumer that does not exist, or a stream that does not, ends the pass
// at once with an error naming the stream and the consumer.
func TestMissingConsumer(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for stream, cause := range map[string]error{"S": njs.ErrConsumerNotFound, "NONE": njs.ErrStreamNotFound} {
		_, err := source.Count(ctx, jetstream.Read(js, stream, "nobody", decodeInt))
		var ce *tensorfeed.Error
		if !errors.As(err, &ce) || ce.Path != "jetstream:"+stream || ce.Member != "nobody" || ce.Record != -1 || !errors.Is(err, cause) ||
			!strings.HasPrefix(err.Error(), "jetstream:"+stream+`: member "nobody": jetstream: look up the consumer: `) {
			t.Fatalf("stream %s: pass ended with %v, want a *tensorfeed.Error naming the stream and the consumer", stream, err)
		}
		t.Log(err)
	}
}

// With MaxAckPending smaller than what the consumer holds, the reader stops
// at MaxAckPending and goes on once some are acknowledged.
func TestMaxAckPendingFlowControl(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 30)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Minute, 10)),
		jetstream.MaxWait(100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ctx = tensorfeed.WithLogger(ctx, zaptest.NewLogger(t))
	var held []jetstream.Message[int]
	total := 0
	for m, err := range r.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		total++
		held = append(held, m)
		if len(held) > 10 {
			t.Fatalf("%d messages unacknowledged, MaxAckPending is 10", len(held))
		}
		if len(held) == 10 {
			if in := info(t, js, "c"); in.NumAckPending != 10 {
				t.Fatalf("NumAckPending = %d, want 10", in.NumAckPending)
			}
			ackAll(t, held)
			held = held[:0]
		}
		if total == 30 {
			break
		}
	}
}

// A MaxAckPending smaller than a batch stalls the pass, and the reader says
// why in the log.
func TestMaxAckPendingStallWarns(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 40)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Minute, 10)),
		jetstream.MaxWait(100*time.Millisecond))
	core, logs := observer.New(zap.WarnLevel)
	ctx, cancel := context.WithTimeout(tensorfeed.WithLogger(context.Background(), zap.New(core)), time.Second)
	defer cancel()
	n := 0
	var end error
	for _, err := range jetstream.Tensorize(r, intSink(16), batch.Keep).All(ctx) {
		if err != nil {
			end = err
			continue
		}
		n++
	}
	if n != 0 || !errors.Is(end, context.DeadlineExceeded) {
		t.Fatalf("%d batches, then %v; want none and the deadline", n, end)
	}
	if logs.FilterMessageSnippet("MaxAckPending").Len() != 1 {
		t.Fatalf("warnings %v, want one about MaxAckPending", logs.All())
	}
}

// Through a prefetching stage, messages are acknowledged when the loop
// releases their batch, not when the stage takes it.
func TestTensorizeBufferedAcksOnRelease(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	publish(t, js, 0, 64)
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Minute, 64)),
		jetstream.EndAtTail(), jetstream.MaxWait(100*time.Millisecond))
	feed := stage.Buffered(jetstream.Tensorize(r, intSink(8), batch.Keep), 4)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	got := 0
	for b, err := range feed.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got += b.Len()
		if got == 16 {
			// Two batches taken, one released: the prefetched ones are not acknowledged.
			eventually(t, "released batch acknowledged", func() bool { return info(t, js, "c").AckFloor.Stream == 8 })
			if in := info(t, js, "c"); in.NumAckPending < 8 {
				t.Fatalf("%d messages pending, want those of the held and prefetched batches", in.NumAckPending)
			}
		}
		b.Release()
	}
	if got != 64 {
		t.Fatalf("%d samples, want 64", got)
	}
	eventually(t, "all acknowledged", func() bool { return info(t, js, "c").AckFloor.Stream == 64 })
}
