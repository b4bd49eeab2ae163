package jetstream

import (
	"errors"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
)

// ErrTooLarge is the cause of a [*MessageError] about a message larger than
// the reader's [MaxMessageBytes]. It wraps tensorfeed.ErrBadData, so the
// bad-record policy may skip such a message.
var ErrTooLarge = fmt.Errorf("jetstream: message larger than the configured maximum: %w", tensorfeed.ErrBadData)

// MessageError reports a message that could not become a sample: its data
// is larger than [MaxMessageBytes] (the cause wraps [ErrTooLarge]) or the
// decode function failed (the cause is its error). It names the stream, the
// message's subject and its stream sequence, the position of the message
// that stays the same however often it is delivered.
//
// A MessageError wraps its cause only: it wraps tensorfeed.ErrBadData when
// the cause does, and only then does the reader's bad-record policy
// (SkipBad, OnBad) consider skipping the message.
type MessageError struct {
	Stream    string // the stream the message is stored in
	Subject   string // the subject it was published to
	Seq       uint64 // its stream sequence
	Delivered uint64 // how many times it was delivered, this time included
	Err       error  // the cause
}

// FilePath names the stream the way tensorfeed names the file of a
// positioned error: "jetstream:" and the stream's name.
func (e *MessageError) FilePath() string { return "jetstream:" + e.Stream }

func (e *MessageError) Error() string {
	return fmt.Sprintf("jetstream: stream %q, subject %q, sequence %d (delivery %d): %v",
		e.Stream, e.Subject, e.Seq, e.Delivered, e.Err)
}

// Unwrap returns the cause.
func (e *MessageError) Unwrap() error { return e.Err }

// ConsumerError reports a pass that could not go on: the durable consumer
// could not be looked up or created, a fetch failed, the connection was
// closed, or the server did not answer for longer than [MaxOutage]. It
// names the stream and the durable consumer. Nothing was lost: the
// messages that the pass did not yield are delivered again to a later pass
// of the same durable consumer.
type ConsumerError struct {
	Stream  string
	Durable string
	Op      string // what failed: "look up the consumer", "fetch", ...
	Err     error
}

// FilePath names the stream, as [MessageError.FilePath] does.
func (e *ConsumerError) FilePath() string { return "jetstream:" + e.Stream }

func (e *ConsumerError) Error() string {
	return fmt.Sprintf("jetstream: stream %q, consumer %q: %s: %v", e.Stream, e.Durable, e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *ConsumerError) Unwrap() error { return e.Err }

// PublishError reports a sample that a [Writer] could not publish: its
// encoding failed, the publish failed, or the stream did not acknowledge
// it. Index counts the writer's samples from 0.
type PublishError struct {
	Subject string
	Index   int64
	Err     error
}

func (e *PublishError) Error() string {
	return fmt.Sprintf("jetstream: publish to %q, sample %d: %v", e.Subject, e.Index, e.Err)
}

// Unwrap returns the cause.
func (e *PublishError) Unwrap() error { return e.Err }

// errNoAnswer is the cause of a ConsumerError when the server stayed
// silent for longer than MaxOutage.
var errNoAnswer = errors.New("no answer from the server")
