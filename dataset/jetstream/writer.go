package jetstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/source"
)

type writerConfig[T any] struct {
	window     int
	ackTimeout time.Duration
	msgID      func(T) string
	stream     string
}

// WriterOption configures a [Writer] of samples of type T.
type WriterOption[T any] = option.Option[writerConfig[T]]

// Window sets how many publishes may wait for their acknowledgement at
// once (default 256): Write waits for the oldest when the
// window is full, so a writer holds at most n encoded samples. It panics
// when n < 1.
func Window[T any](n int) WriterOption[T] {
	if n < 1 {
		panic(fmt.Sprintf("jetstream: Window(%d): want at least 1", n))
	}
	return option.New(func(c *writerConfig[T]) { c.window = n })
}

// AckTimeout sets how long the writer waits for the stream to acknowledge
// a publish (default 10s). A publish not acknowledged in
// time is an error; the sample may or may not be stored (use [MsgID] to
// make publishing it again safe). It panics when d <= 0.
func AckTimeout[T any](d time.Duration) WriterOption[T] {
	if d <= 0 {
		panic(fmt.Sprintf("jetstream: AckTimeout(%v): want a positive duration", d))
	}
	return option.New(func(c *writerConfig[T]) { c.ackTimeout = d })
}

// MsgID gives every published sample the message ID id(sample)
// (Nats-Msg-Id), by which the stream drops a sample published twice within
// its duplicate window: a producer that publishes again after an error
// then stores each sample once.
func MsgID[T any](id func(T) string) WriterOption[T] {
	return option.New(func(c *writerConfig[T]) { c.msgID = id })
}

// ExpectStream makes every publish fail unless the subject belongs to the
// named stream.
func ExpectStream[T any](stream string) WriterOption[T] {
	return option.New(func(c *writerConfig[T]) { c.stream = stream })
}

// Writer publishes samples to a JetStream subject, for producers: each
// sample is encoded and published asynchronously, with up to [Window]
// publishes in flight, and every publish's acknowledgement by the stream is
// checked, oldest first. The first failure is kept: every later call
// returns it.
//
// A Writer is used by one goroutine. Call Flush (or use WriteAll) before
// counting on the samples being stored.
type Writer[T any] struct {
	js      njs.JetStream
	subject string
	encode  func(T) ([]byte, error)
	cfg     writerConfig[T]

	inflight []njs.PubAckFuture // oldest first
	index    int64              // index of the next sample
	acked    int64              // samples the stream acknowledged
	err      error              // sticky
}

// NewWriter returns a writer that publishes to subject on js, encoding
// each sample with encode. The connection is the caller's. NewWriter
// panics when js or encode is nil or subject is empty.
func NewWriter[T any](js njs.JetStream, subject string, encode func(T) ([]byte, error), opts ...WriterOption[T]) *Writer[T] {
	switch {
	case js == nil:
		panic("jetstream: NewWriter with a nil JetStream")
	case encode == nil:
		panic("jetstream: NewWriter with a nil encode function")
	case subject == "":
		panic("jetstream: NewWriter with an empty subject")
	}
	cfg := writerConfig[T]{window: 256, ackTimeout: 10 * time.Second}
	option.Apply(&cfg, opts)
	return &Writer[T]{js: js, subject: subject, encode: encode, cfg: cfg}
}

// Write encodes v and publishes it, after waiting for the oldest publish
// when Window publishes are in flight. An error is a *tensorfeed.Error
// whose Member is the subject and whose Record is the sample's index (this
// one's, or an earlier one's whose acknowledgement failed; see the package
// doc), or ctx's error.
func (w *Writer[T]) Write(ctx context.Context, v T) error {
	if w.err != nil {
		return w.err
	}
	i := w.index
	data, err := w.encode(v)
	if err != nil {
		return w.fail(i, "encode", err)
	}
	for len(w.inflight) >= w.cfg.window {
		if err := w.waitOldest(ctx); err != nil {
			return err
		}
	}
	var opts []njs.PublishOpt
	if w.cfg.msgID != nil {
		opts = append(opts, njs.WithMsgID(w.cfg.msgID(v)))
	}
	if w.cfg.stream != "" {
		opts = append(opts, njs.WithExpectStream(w.cfg.stream))
	}
	f, err := w.js.PublishAsync(w.subject, data, opts...)
	if err != nil {
		return w.fail(i, "publish", err)
	}
	w.index++
	w.inflight = append(w.inflight, f)
	return nil
}

// Flush waits until the stream has acknowledged every sample written, and
// returns the first error, if any.
func (w *Writer[T]) Flush(ctx context.Context) error {
	for len(w.inflight) > 0 {
		if err := w.waitOldest(ctx); err != nil {
			return err
		}
	}
	return w.err
}

// WriteAll writes every sample of one pass of r and flushes. It returns how
// many samples the stream acknowledged during the call and the first
// error, of r or of a publish.
func (w *Writer[T]) WriteAll(ctx context.Context, r source.Reader[T]) (int64, error) {
	start := w.acked
	for v, err := range r.All(ctx) {
		if err != nil {
			if ferr := w.Flush(ctx); ferr != nil {
				err = errors.Join(err, ferr)
			}
			return w.acked - start, err
		}
		if err := w.Write(ctx, v); err != nil {
			return w.acked - start, err
		}
	}
	err := w.Flush(ctx)
	return w.acked - start, err
}

// Acked returns how many samples the stream has acknowledged so far.
func (w *Writer[T]) Acked() int64 { return w.acked }

// waitOldest waits for the acknowledgement of the oldest publish in flight.
func (w *Writer[T]) waitOldest(ctx context.Context) error {
	f := w.inflight[0]
	i := w.index - int64(len(w.inflight))
	if err := ctx.Err(); err != nil {
		// Checked first, so that a cancelled context ends the wait whether
		// or not the acknowledgement is already there.
		return err // the publish may still be acknowledged: keep it
	}
	t := time.NewTimer(w.cfg.ackTimeout)
	defer t.Stop()
	var err error
	select {
	case <-f.Ok():
	case err = <-f.Err():
	case <-t.C:
		err = fmt.Errorf("no acknowledgement within %v", w.cfg.ackTimeout)
	case <-ctx.Done():
		return ctx.Err() // the publish may still be acknowledged: keep it
	}
	w.inflight[0] = nil
	w.inflight = w.inflight[1:]
	if err != nil {
		return w.fail(i, "publish", err)
	}
	w.acked++
	return nil
}

// fail keeps and returns the error of op on sample i.
func (w *Writer[T]) fail(i int64, op string, err error) error {
	e := &tensorfeed.Error{Offset: -1, Record: i, Member: w.subject, Err: &opError{op, err}}
	if w.cfg.stream != "" {
		e.Path = streamPath(w.cfg.stream)
	}
	w.err = e
	return e
}
