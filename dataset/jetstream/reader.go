package jetstream

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
)

type config struct {
	batch     int
	maxWait   time.Duration
	maxOutage time.Duration
	maxBytes  int
	create    *njs.ConsumerConfig
	endAtTail bool
	bad       *source.SkipPolicy
}

// Option configures a reader of [Read].
type Option = option.Option[config]

// FetchBatch sets how many messages a pass asks the server for ahead of its
// consumer (default 256), through one continuous pull
// (jetstream.Consumer.Messages with PullMaxMessages(n)) that asks for more
// when half of them were taken. A pass holds at most that many messages that
// it has received and not yet yielded. It panics when n < 1.
func FetchBatch(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("jetstream: FetchBatch(%d): want at least 1", n))
	}
	return option.New(func(c *config) { c.batch = n })
}

// MaxWait sets how long a pass waits for a message before it asks the
// server for the consumer's state (default 5s), and bounds
// each request a pass makes to the server (looking up the consumer, asking
// for its state). An idle pass goes on waiting after each look; it never
// ends for lack of messages unless [EndAtTail] is set. It panics when d <=
// 0.
func MaxWait(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("jetstream: MaxWait(%v): want a positive duration", d))
	}
	return option.New(func(c *config) { c.maxWait = d })
}

// MaxOutage sets how long a pass keeps retrying while the server does not
// answer (the connection is reconnecting, JetStream is recovering after a
// restart) before it ends with an error naming the consumer (default one
// minute). It panics when d <= 0.
func MaxOutage(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("jetstream: MaxOutage(%v): want a positive duration", d))
	}
	return option.New(func(c *config) { c.maxOutage = d })
}

// MaxMessageBytes sets the largest message data the reader hands to the
// decode function (default 64 MiB). A larger message is a bad record: an
// error that names it and wraps [ErrTooLarge]. The bytes of a
// message are already in memory when it arrives (the server's max_payload
// bounds them); the limit keeps a decode function from being handed more
// than the program expects. It panics when n < 1.
func MaxMessageBytes(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("jetstream: MaxMessageBytes(%d): want at least 1", n))
	}
	return option.New(func(c *config) { c.maxBytes = n })
}

// Create makes each pass create the durable consumer with cfg, or update
// it to cfg, before it reads (cfg.Durable is set to the reader's durable
// name). Without it the consumer must exist. cfg.AckPolicy must be
// jetstream.AckExplicitPolicy (its zero value) for messages to be
// redelivered when they are not acknowledged. cfg.MaxAckPending is the
// reader's flow control: the server delivers no more than that many
// messages that are not acknowledged, so it must be at least the batch size
// times the number of batches the pipeline holds at once (see the package
// doc).
func Create(cfg njs.ConsumerConfig) Option {
	return option.New(func(c *config) { c.create = &cfg })
}

// EndAtTail makes a pass end, without error, once the consumer has no
// message left that it has not delivered: after a message whose metadata
// says none is pending, or when no message came for MaxWait and the
// consumer's state says none is pending. By default a pass never ends on
// its own, like PaddlePaddle's online readers. Messages delivered before
// and not yet acknowledged are not waited for: they come again after the
// consumer's AckWait, to the pass that is running then.
func EndAtTail() Option { return option.New(func(c *config) { c.endAtTail = true }) }

// OnBad sets the bad-record policy (source.SkipBad), which may be shared
// with other readers. A message whose decode error wraps tensorfeed.ErrBadData, or
// that is larger than MaxMessageBytes, is bad: under a policy that skips it
// the message is counted, logged at warn level through the logger of the
// pass's context, and terminated (jetstream.Msg.TermWithReason), so that
// the server never delivers it again. A message the policy does not skip
// ends the pass with its error (see the package doc) and is handed back (Nak): a later
// pass gets it again. Decode errors that do not wrap ErrBadData end the
// pass under any policy. The default, a nil policy, fails the pass at the
// first bad message.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.bad = p }) }

// reader reads the messages of a JetStream stream through a durable pull
// consumer and decodes each into a sample ([Read]'s result; the type is
// not exported, users hold it as the source.Reader it is). It is a
// source.Reader[Message[T]]: every sample comes with its message, which the
// consumer acknowledges once the sample has been used ([Message.Msg]().Ack(),
// [Tensorize], [Values]).
type reader[T any] struct {
	js      njs.JetStream
	stream  string
	durable string
	decode  func([]byte) (T, error)
	cfg     config
}

// Read returns a reader of the stream's messages through the durable pull
// consumer named durable, each decoded by decode: a
// source.Reader[Message[T]] whose every sample comes with its message,
// which the consumer acknowledges once the sample has been used
// ([Message.Msg]().Ack(), [Tensorize], [Values]). It is a source.SkipCounted
// (Skipped). Every pass looks the
// consumer up (or creates it, with [Create]) on js and fetches from it; the
// connection is the caller's, and stays open after the passes.
//
// decode gets the message's data, which it may keep: each message has its
// own. An error that wraps tensorfeed.ErrBadData marks the message bad (see
// [OnBad]).
//
// Read panics when js or decode is nil, or stream or durable is empty.
func Read[T any](js njs.JetStream, stream, durable string, decode func([]byte) (T, error), opts ...Option) *reader[T] {
	switch {
	case js == nil:
		panic("jetstream: Read with a nil JetStream")
	case decode == nil:
		panic("jetstream: Read with a nil decode function")
	case stream == "" || durable == "":
		panic("jetstream: Read needs a stream and a durable consumer name")
	}
	cfg := config{
		batch:     256,
		maxWait:   5 * time.Second,
		maxOutage: time.Minute,
		maxBytes:  64 << 20,
	}
	option.Apply(&cfg, opts)
	return &reader[T]{js: js, stream: stream, durable: durable, decode: decode, cfg: cfg}
}

// Skipped returns how many bad messages the reader's policy (OnBad) has
// skipped, over all passes and all readers that share the
// policy; 0 without one. It makes the reader a source.SkipCounted.
func (r *reader[T]) Skipped() int64 { return r.cfg.bad.Skipped() }

// All starts a pass: it looks up (or creates) the durable consumer, pulls
// from it continuously, up to FetchBatch messages ahead, and yields the
// samples of the messages it delivers, in the order it delivers them. The pass ends when the consumer stops ranging, when
// ctx is cancelled (yielding ctx.Err() once), with [EndAtTail] at the
// consumer's tail, or with an error (a *tensorfeed.Error, see the package
// doc): a bad message the policy does not skip, the consumer gone or the
// server silent for longer than [MaxOutage]. While the connection
// reconnects the pass waits, and pulls again once it is back.
//
// No message is acknowledged by the reader: the consumer acknowledges the
// messages it yields. Messages received but not yielded when the pass ends
// are handed back at once (Nak), so a later pass gets them first; those on
// their way when the connection is down come again after AckWait.
func (r *reader[T]) All(ctx context.Context) iter.Seq2[Message[T], error] {
	return func(yield func(Message[T], error) bool) {
		p := &pass[T]{r: r, ctx: ctx, logger: tensorfeed.Logger(ctx)}
		defer p.handBack()
		p.run(yield)
	}
}

// pass is the state of one pass of a reader.
type pass[T any] struct {
	r      *reader[T]
	ctx    context.Context
	logger *zap.Logger
	cons   njs.Consumer
	it     njs.MessagesContext
	held   njs.Msg   // received and not yielded, to hand back
	silent time.Time // when the server stopped answering; zero while it answers
	warned bool      // the MaxAckPending warning was logged
}

func (p *pass[T]) run(yield func(Message[T], error) bool) {
	var zero Message[T]
	if err := p.ctx.Err(); err != nil {
		yield(zero, err)
		return
	}
	if err := p.lookup(); err != nil {
		yield(zero, err)
		return
	}
	counter := (*skipcount.Policy)(p.r.cfg.bad).Pass(-1, p.logger)
	it, err := p.cons.Messages(njs.PullMaxMessages(p.r.cfg.batch))
	if err != nil {
		yield(zero, consumerError(p.r.stream, p.r.durable, "start fetching", err))
		return
	}
	p.it = it
	// Cancelling the pass wakes a Next that waits for a message.
	defer context.AfterFunc(p.ctx, p.stopFetching)()
	for {
		m, err := it.Next(njs.NextMaxWait(p.r.cfg.maxWait))
		if perr := p.ctx.Err(); perr != nil {
			p.held = m
			yield(zero, perr)
			return
		}
		if errors.Is(err, nats.ErrTimeout) {
			tail, err := p.idle()
			if err != nil {
				yield(zero, err)
				return
			}
			if tail {
				if err := counter.End(); err != nil {
					yield(zero, err)
				}
				return
			}
			continue
		}
		if err != nil {
			yield(zero, consumerError(p.r.stream, p.r.durable, "fetch", err))
			return
		}
		p.silent = time.Time{}
		v, err := p.decode(m)
		skipped := false
		if err != nil && errors.Is(err, tensorfeed.ErrBadData) {
			if err = counter.Bad(err); err == nil {
				skipped = true
				if terr := m.TermWithReason("tensorfeed: bad record skipped"); terr != nil {
					p.logger.Warn("jetstream: could not terminate a skipped message; it will be delivered again",
						zap.String("stream", p.r.stream), zap.Error(terr))
				}
			}
		}
		if err != nil {
			p.held = m
			yield(zero, err)
			return
		}
		if !skipped {
			counter.Good()
			if !yield(Message[T]{Value: v, msg: m}, nil) {
				return
			}
		}
		if p.r.cfg.endAtTail && atTail(m) {
			if err := counter.End(); err != nil {
				yield(zero, err)
			}
			return
		}
	}
}

// lookup finds (or creates) the durable consumer, retrying while the server
// does not answer.
func (p *pass[T]) lookup() error {
	op := "look up the consumer"
	if p.r.cfg.create != nil {
		op = "create the consumer"
	}
	return p.retry(op, func(ctx context.Context) error {
		var err error
		if c := p.r.cfg.create; c != nil {
			cfg := *c
			cfg.Durable = p.r.durable
			p.cons, err = p.r.js.CreateOrUpdateConsumer(ctx, p.r.stream, cfg)
		} else {
			p.cons, err = p.r.js.Consumer(ctx, p.r.stream, p.r.durable)
		}
		return err
	})
}

// decode turns m into a sample, or the message's error.
func (p *pass[T]) decode(m njs.Msg) (T, error) {
	data := m.Data()
	if len(data) > p.r.cfg.maxBytes {
		var zero T
		return zero, messageError(p.r.stream, m, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), p.r.cfg.maxBytes))
	}
	v, err := p.r.decode(data)
	if err != nil {
		return v, messageError(p.r.stream, m, err)
	}
	return v, nil
}

// atTail reports whether m was delivered for the first time and its
// metadata says that no message is left undelivered after it. A message
// delivered again says nothing about the others that are due again.
func atTail(m njs.Msg) bool {
	md, err := m.Metadata()
	return err == nil && md.NumDelivered == 1 && md.NumPending == 0
}

// handBack stops the pass's fetching and returns the messages received and
// not yielded to the server (Nak), so that they are delivered again at once
// rather than after AckWait. The server answers the last hand-back before
// handBack returns: it takes a consumer's acknowledgements in order, so the
// next pass's first pull finds all of them due again, in their order.
func (p *pass[T]) handBack() {
	if p.it == nil {
		return
	}
	p.stopFetching()
	var last njs.Msg
	if p.held != nil {
		last, p.held = p.held, nil
	}
	for {
		m, err := p.it.Next(njs.NextMaxWait(p.r.cfg.maxWait))
		if err != nil {
			break
		}
		if last != nil {
			p.nak(last)
		}
		last = m
	}
	if last != nil {
		p.nakConfirmed(last)
	}
}

// stopFetching ends the pass's subscription. While the connection is up it
// drains it, so that the messages on their way are received and handed
// back; while it is down it drops it at once: a subscription left draining
// would be subscribed again on reconnect, and a pull request of the pass
// still in the connection's reconnect buffer would deliver messages to it.
func (p *pass[T]) stopFetching() {
	if p.r.js.Conn().Status() == nats.CONNECTED {
		p.it.Drain()
	} else {
		p.it.Stop()
	}
}

func (p *pass[T]) nak(m njs.Msg) {
	if err := m.Nak(); err != nil {
		if ce := p.logger.Check(zap.DebugLevel, "jetstream: could not hand back a message; it comes again after AckWait"); ce != nil {
			ce.Write(zap.String("stream", p.r.stream), zap.Error(err))
		}
	}
}

// nakConfirmed hands m back and waits for the server's answer, as
// DoubleAck does for an acknowledgement (the client library has no
// confirmed Nak). "-NAK" is the negative acknowledgement of the JetStream
// wire protocol.
func (p *pass[T]) nakConfirmed(m njs.Msg) {
	ctx, cancel := context.WithTimeout(context.Background(), p.r.cfg.maxWait)
	defer cancel()
	if _, err := p.r.js.Conn().RequestWithContext(ctx, m.Reply(), []byte("-NAK")); err != nil {
		if ce := p.logger.Check(zap.DebugLevel, "jetstream: the server did not confirm a message handed back"); ce != nil {
			ce.Write(zap.String("stream", p.r.stream), zap.Error(err))
		}
	}
}

// idle looks at the consumer's state after MaxWait without a message: it
// reports whether the pass is at the tail (with EndAtTail), and warns once
// when the consumer holds MaxAckPending unacknowledged messages, which
// stops delivery until the consumer of the pass acknowledges some.
func (p *pass[T]) idle() (tail bool, err error) {
	var info *njs.ConsumerInfo
	err = p.retry("read the consumer's state", func(ctx context.Context) error {
		var err error
		info, err = p.cons.Info(ctx)
		return err
	})
	if err != nil {
		return false, err
	}
	if max := info.Config.MaxAckPending; max > 0 && info.NumAckPending >= max && !p.warned {
		p.warned = true
		p.logger.Warn("jetstream: the consumer has MaxAckPending messages not acknowledged; "+
			"nothing more is delivered until some are (release batches, or raise MaxAckPending)",
			zap.String("stream", p.r.stream), zap.String("consumer", p.r.durable),
			zap.Int("max_ack_pending", max))
	}
	return p.r.cfg.endAtTail && info.NumPending == 0, nil
}

// retry runs f with a context bounded by MaxWait until it succeeds, fails
// for good, or the server has not answered for MaxOutage. A cancelled pass
// returns its context's error.
func (p *pass[T]) retry(op string, f func(ctx context.Context) error) error {
	for {
		ctx, cancel := context.WithTimeout(p.ctx, p.r.cfg.maxWait)
		err := f(ctx)
		cancel()
		if perr := p.ctx.Err(); perr != nil {
			return perr
		}
		if err == nil {
			p.silent = time.Time{}
			return nil
		}
		if !transient(err) {
			return consumerError(p.r.stream, p.r.durable, op, err)
		}
		now := time.Now()
		if p.silent.IsZero() {
			p.silent = now
		}
		if now.Sub(p.silent) > p.r.cfg.maxOutage {
			return consumerError(p.r.stream, p.r.durable, op,
				fmt.Errorf("%w for more than %v: %w", errNoAnswer, p.r.cfg.maxOutage, err))
		}
		if ce := p.logger.Check(zap.DebugLevel, "jetstream: the server did not answer; retrying"); ce != nil {
			ce.Write(zap.String("stream", p.r.stream), zap.String("op", op), zap.Error(err))
		}
		if !p.pause(retryPause) {
			return p.ctx.Err()
		}
	}
}

// retryPause is the wait between two attempts while the server does not
// answer.
const retryPause = 100 * time.Millisecond

// pause waits d, or less if the pass is cancelled; it reports whether the
// pass may go on.
func (p *pass[T]) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// transient tells errors that a retry may cure (no answer, a reconnecting
// connection, a server shutting down or recovering) from those it cannot
// (no such stream or consumer, a closed connection, a bad request).
func transient(err error) bool {
	var api *njs.APIError
	switch {
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, njs.ErrConsumerDeleted),
		errors.Is(err, njs.ErrBadRequest), errors.Is(err, njs.ErrInvalidOption),
		errors.Is(err, njs.ErrStreamNotFound), errors.Is(err, njs.ErrConsumerNotFound):
		return false
	case errors.As(err, &api):
		return api.Code >= 500
	}
	return true
}
