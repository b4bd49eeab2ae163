package tensorfeed_test

import (
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/scope"
)

var errBoom = errors.New("boom")

func TestPanicError(t *testing.T) {
	p := scope.Recovered(errBoom)
	if !errors.Is(p, errBoom) || len(p.Stack) == 0 {
		t.Fatalf("PanicError of an error: Is = %v, stack %d bytes", errors.Is(p, errBoom), len(p.Stack))
	}
	msg := p.Error()
	if want := "tensorfeed: panic: boom"; len(msg) < len(want) || msg[:len(want)] != want {
		t.Fatalf("Error() = %q...", msg[:min(40, len(msg))])
	}
	q := scope.Recovered("not an error")
	if q.Unwrap() != nil {
		t.Fatal("Unwrap of a non-error panic value is not nil")
	}
}
