package jetstream

import njs "github.com/nats-io/nats.go/jetstream"

// Message is a sample and the JetStream message it was decoded from, whose
// acknowledgement is the consumer's to send once the sample has been used.
// A message that is never acknowledged is delivered again after the
// consumer's AckWait.
//
// [Tensorize] acknowledges the messages of each batch when the batch is
// released, [Values] acknowledges a message when the next sample is asked
// for; a consumer that batches by hand calls Msg().Ack() for each.
type Message[T any] struct {
	Value T
	msg   njs.Msg
}

// Msg returns the JetStream message (nil for the zero Message): its
// subject, headers and metadata (its stream sequence is
// Metadata().Sequence.Stream), and its acknowledgements: Ack, sent without
// waiting for the server's reply (a lost one means the message comes again
// after AckWait: at-least-once), and Nak, Term, InProgress.
func (m Message[T]) Msg() njs.Msg { return m.msg }
