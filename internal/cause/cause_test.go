package cause_test

import (
	"errors"
	"io"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/cause"
)

func TestNew(t *testing.T) {
	sentinel := errors.New("fmt: bad format")
	err := cause.New(sentinel, io.ErrUnexpectedEOF, "truncated header")
	if err.Error() != "fmt: bad format: truncated header" || !errors.Is(err, sentinel) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("with a cause: %q", err)
	}
	err = cause.New(sentinel, nil, "bad magic")
	if err.Error() != "fmt: bad format: bad magic" || !errors.Is(err, sentinel) || errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("without: %q", err)
	}
}

func TestSentinel(t *testing.T) {
	parent := errors.New("fmt: bad format")
	s := cause.Sentinel("fmt: bad header", parent)
	err := cause.New(s, nil, "short")
	if s.Error() != "fmt: bad header" || err.Error() != "fmt: bad header: short" || !errors.Is(err, parent) || !errors.Is(err, s) {
		t.Errorf("%q %q", s, err)
	}
}

func TestPrefixed(t *testing.T) {
	sentinel := errors.New("fmt: bad format")
	err := cause.Prefixed("fmt: ", sentinel, io.ErrUnexpectedEOF)
	if err.Error() != "fmt: unexpected EOF" || !errors.Is(err, sentinel) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%q", err)
	}
}
