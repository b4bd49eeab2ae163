package main

import (
	"errors"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
)

// csvOptionFlags turns the hints of dataset/csv's messages, which name its
// Go options, into the flags of check that set them, or into words where
// check has no flag.
var csvOptionFlags = strings.NewReplacer(
	"(string labels need Classes)", "(string labels need --classes)",
	"is not finite (Finite)", "is not finite (--finite)",
	"bytes (MaxLineBytes)", "bytes (--max-line-bytes)",
	"bytes (MaxFieldBytes)", "bytes, the most a field may hold",
)

// csvFlagNames returns err with the message of its *tensorfeed.Error's
// cause naming check's flags rather than dataset/csv's options; the cause
// stays in the chain, for errors.Is.
func csvFlagNames(err error) error {
	var pe *tensorfeed.Error
	if !errors.Is(err, csv.ErrFormat) || !errors.As(err, &pe) || pe.Err == nil {
		return err
	}
	if msg := csvOptionFlags.Replace(pe.Err.Error()); msg != pe.Err.Error() {
		// pe was made for this error alone: the reader keeps no reference.
		pe.Err = &renamedError{msg: msg, err: pe.Err}
	}
	return err
}

// renamedError is err with another message.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
