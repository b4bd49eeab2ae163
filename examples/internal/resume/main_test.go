package resume_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The pipelines of the tests start goroutines (prefetch) inside their
// passes; every test must leave none behind, including runs that stop in
// the middle of an epoch.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
