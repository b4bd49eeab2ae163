package sink_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Tests that prefetch tensors (stage.Buffered) must leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
