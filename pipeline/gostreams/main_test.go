package gostreams_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test in this package must leave no goroutine behind: the go-streams
// bridge joins every goroutine it starts or causes.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
