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
