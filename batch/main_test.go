package batch_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Tests that prefetch batches (stage.Buffered) must leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
