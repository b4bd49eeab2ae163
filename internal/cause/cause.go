// Package cause builds the Err of a positioned error (tensorfeed.Error):
// a format's sentinel, what is wrong, and the underlying error if any.
package cause

// New returns an error that reads "SENTINEL: msg" and wraps sentinel and
// err (when err is not nil). err's text is not repeated: msg says what
// matters of it, so that a position's cause is one short phrase.
func New(sentinel, err error, msg string) error {
	return &cause{sentinel, err, msg}
}

type cause struct {
	sentinel error
	err      error // may be nil
	msg      string
}

func (c *cause) Error() string { return c.sentinel.Error() + ": " + c.msg }

func (c *cause) Unwrap() []error {
	if c.err == nil {
		return []error{c.sentinel}
	}
	return []error{c.sentinel, c.err}
}

// Sentinel returns a sentinel error that reads msg and wraps parent (a
// format's ErrFormat, tensorfeed.ErrBadData), so that errors built on it
// say msg without the whole chain of parent's text.
func Sentinel(msg string, parent error) error { return &sentinel{msg, parent} }

type sentinel struct {
	msg    string
	parent error
}

func (s *sentinel) Error() string { return s.msg }
func (s *sentinel) Unwrap() error { return s.parent }

// Prefixed returns an error that reads prefix followed by err's text, and
// wraps sentinel and err: the cause of a positioned error whose err already
// says what is wrong ("webdataset: " and "truncated shard: ...").
func Prefixed(prefix string, sentinel, err error) error { return &prefixed{prefix, sentinel, err} }

type prefixed struct {
	prefix   string
	sentinel error
	err      error
}

func (p *prefixed) Error() string   { return p.prefix + p.err.Error() }
func (p *prefixed) Unwrap() []error { return []error{p.sentinel, p.err} }
