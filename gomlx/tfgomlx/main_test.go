package tfgomlx_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every pass a Dataset starts (its prefetch goroutines, the pulls over the
// pipeline's epochs) must be over once the Dataset is closed; the pure-Go
// backend's worker pool is GoMLX's own and idles between executions.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
