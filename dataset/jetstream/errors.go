package jetstream

import (
	"errors"
	"fmt"

	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
)

// ErrTooLarge is the cause of the error of a message larger than the
// reader's [MaxMessageBytes]. It wraps tensorfeed.ErrBadData, so the
// bad-record policy may skip such a message.
var ErrTooLarge = cause.Sentinel("jetstream: message larger than the configured maximum", tensorfeed.ErrBadData)

// opError is the Err of this package's *tensorfeed.Error: what was being
// done, and the cause.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return "jetstream: " + e.op + ": " + e.err.Error() }

func (e *opError) Unwrap() error { return e.err }

// streamPath is the Path of the errors about a stream.
func streamPath(stream string) string { return "jetstream:" + stream }

// messageError returns the error of a message that could not become a
// sample.
func messageError(stream string, m njs.Msg, err error) *tensorfeed.Error {
	e := &tensorfeed.Error{Path: streamPath(stream), Offset: -1, Record: -1, Member: m.Subject(), Err: &opError{"decode", err}}
	if md, merr := m.Metadata(); merr == nil {
		e.Path, e.Record = streamPath(md.Stream), int64(md.Sequence.Stream)
		e.Err = &opError{fmt.Sprintf("decode, delivery %d", md.NumDelivered), err}
	}
	return e
}

// consumerError returns the error that ends a pass when op failed on the
// durable consumer.
func consumerError(stream, durable, op string, err error) *tensorfeed.Error {
	return &tensorfeed.Error{Path: streamPath(stream), Offset: -1, Record: -1, Member: durable, Err: &opError{op, err}}
}

// errNoAnswer is the cause of a pass's error when the server stayed silent
// for longer than MaxOutage.
var errNoAnswer = errors.New("no answer from the server")
