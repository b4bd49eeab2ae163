package sink_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Tests that prefetch tensors (pipeline's Buffered) must leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
