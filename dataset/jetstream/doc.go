// Package jetstream reads training samples from a NATS JetStream stream and
// publishes them to one: an online source, like PaddlePaddle's readers that
// never end, whose data outlives the process that reads it.
//
// # Reading
//
// [Read] returns a source.Reader of [Message] values: each pass looks up
// the durable pull consumer (or creates it, [Create]) and yields the
// samples of the messages it delivers, decoded by the caller's function.
// The consumer's state lives in the server, so a pass, a new process or a
// restarted server goes on where the consumer left off. A pass pulls
// continuously, up to [FetchBatch] messages ahead of its consumer, and
// looks at the consumer's state after [MaxWait] without a message. A pass
// never ends on its own unless [EndAtTail] is set: it ends when its
// consumer stops ranging, when its context is cancelled, or with an error.
//
// # Acknowledgement
//
// Delivery is at-least-once: the reader acknowledges nothing itself, and a
// message that is not acknowledged is delivered again after the
// consumer's AckWait. The sample's user acknowledges it once the sample
// has been used:
//
//   - [Tensorize] (pipeline.Tensorize for messages) acknowledges the messages of
//     a batch when the training loop releases the batch
//     (tensor.Batch.Release), the library's one signal that a batch has
//     been used, and safe through prefetching stages;
//   - [Values] acknowledges a message when the consumer asks for the next
//     sample, for loops that use each sample before taking the next;
//   - [Message.Msg]().Ack() for batches made by hand.
//
// A pass that fails, is cancelled or stopped loses nothing: what it yielded
// and was not acknowledged comes again after AckWait, and what it received
// and did not yield is handed back (Nak) at once.
//
// # Flow control
//
// The consumer's MaxAckPending bounds the messages delivered and not yet
// acknowledged, so it bounds how far the reader runs ahead of the training
// loop and how much memory the messages in flight hold. Since messages are
// acknowledged when their batch is released, MaxAckPending must be at least
// the batch size times the number of batches held at once (by the loop and
// by prefetching stages); a smaller value stalls the pass, and the reader
// logs a warning when it finds delivery stopped for that reason.
//
// # Bad messages
//
// A message whose decode error wraps tensorfeed.ErrBadData, or whose data
// is larger than [MaxMessageBytes], is a bad record: an error naming the
// stream, the subject and the stream sequence (see Errors). By default it
// ends the pass (and is handed back, so a later pass meets it again);
// under a policy of [OnBad] that skips it, it is counted, logged and
// terminated, so that the server never delivers it again. A consumer that
// cannot be found, or a server that does not answer for longer than
// [MaxOutage] while the connection reconnects, ends the pass with an error
// naming the stream and the durable consumer; a later pass of the same
// durable consumer resumes with nothing lost.
//
// # Errors
//
// Errors are *tensorfeed.Error values, the positioned error of every
// tensorfeed reader, so that one errors.As finds the position:
//
//   - a message that could not become a sample: Path is "jetstream:" and
//     the stream's name, Record the message's stream sequence (from 1, the
//     same however often it is delivered), Member its subject; Err reads
//     "jetstream: decode, delivery N: " and the cause, which it wraps (the
//     decode function's error, or one wrapping [ErrTooLarge]);
//   - a pass that could not go on: Path is "jetstream:" and the stream's
//     name, Record -1, Member the durable consumer's name; Err names what
//     failed ("jetstream: look up the consumer: ", "jetstream: fetch: ",
//     ...) and wraps the client's error (jetstream.ErrConsumerNotFound,
//     nats.ErrConnectionClosed, ...);
//   - a sample a [Writer] could not publish: Path is "jetstream:" and the
//     stream named by [ExpectStream] ("" without it: a subject does not say
//     which stream stores it), Record the writer's index of the sample (from
//     0), Member the subject; Err reads "jetstream: encode: " or
//     "jetstream: publish: " and the cause, which it wraps.
//
// Offset is -1. For example:
//
//	jetstream:S: record 6: member "s.bad": jetstream: decode, delivery 1: not a number: tensorfeed: bad data: "x"
//	jetstream:S: member "c": jetstream: look up the consumer: nats: API error: code=404 err_code=10014 description=consumer not found
//	jetstream:S: record 3: member "s.data": jetstream: publish: nats: API error: code=400 err_code=10060 description=expected stream does not match
//
// # Writing
//
// [Writer] publishes samples to a subject asynchronously, with a bounded
// window of publishes in flight, and checks the stream's acknowledgement of
// every one.
//
// # Connections
//
// The nats.Conn and its jetstream.JetStream belong to the caller, who
// chooses its reconnect policy (nats.MaxReconnects, nats.ReconnectWait)
// and closes it after the passes: acknowledgements of batches released
// after a pass has ended still need it. The goroutines that the client
// starts for a pass's pull end with the pass.
package jetstream
