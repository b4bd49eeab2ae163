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
