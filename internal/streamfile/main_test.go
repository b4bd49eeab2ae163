package streamfile_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test in this package must leave no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
