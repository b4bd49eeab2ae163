package jetstream

import (
	"errors"

	njs "github.com/nats-io/nats.go/jetstream"
)

// errNoMessage is returned by the methods of a Message that carries no
// JetStream message (the zero Message).
var errNoMessage = errors.New("jetstream: no message")

// Message is a sample and the JetStream message it was decoded from, whose
// acknowledgement is the consumer's to send once the sample has been used.
// A message that is never acknowledged is delivered again after the
// consumer's AckWait.
//
// [Tensorize] acknowledges the messages of each batch when the batch is
// released, [Values] acknowledges a message when the next sample is asked
// for; a consumer that batches by hand calls [Message.Ack] for each.
type Message[T any] struct {
	Value T
	msg   njs.Msg
}

// Msg returns the JetStream message (nil for the zero Message): its
// subject, headers and metadata, and the other acknowledgements (Nak,
// Term, InProgress).
func (m Message[T]) Msg() njs.Msg { return m.msg }

// Ack acknowledges the message: the server will not deliver it again. The
// acknowledgement is sent without waiting for the server's reply; if it is
// lost the message comes again after AckWait (at-least-once). Acknowledging
// a message twice is an error (jetstream.ErrMsgAlreadyAckd).
func (m Message[T]) Ack() error {
	if m.msg == nil {
		return errNoMessage
	}
	return m.msg.Ack()
}

// Seq returns the stream sequence of the message, or 0 when it is not
// known (the zero Message).
func (m Message[T]) Seq() uint64 {
	if m.msg == nil {
		return 0
	}
	md, err := m.msg.Metadata()
	if err != nil {
		return 0
	}
	return md.Sequence.Stream
}
