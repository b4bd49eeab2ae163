//go:build unix

package tensorfeed_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed"
)

// TestNotifyStop sends the test process SIGINT and SIGTERM while
// NotifyStop catches them: each cancels the context with the signal as its
// cause and the exit status a shell reports for it.
func TestNotifyStop(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tt := range []struct {
		sig  syscall.Signal
		msg  string
		code int
	}{
		{syscall.SIGINT, "stopped by SIGINT", 130},
		{syscall.SIGTERM, "stopped by SIGTERM", 143},
	} {
		t.Run(tt.msg, func(t *testing.T) {
			ctx, stop := tensorfeed.NotifyStop(context.Background())
			defer stop()
			if err := syscall.Kill(os.Getpid(), tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("%v: the context is not cancelled after 10s", tt.sig)
			}
			cause := context.Cause(ctx)
			se, ok := errors.AsType[*tensorfeed.SignalError](cause)
			if !ok || se.Signal != tt.sig {
				t.Fatalf("cause %#v, want a *SignalError of %v", cause, tt.sig)
			}
			if cause.Error() != tt.msg || !errors.Is(cause, context.Canceled) || !errors.Is(ctx.Err(), context.Canceled) {
				t.Errorf("cause %q (is context.Canceled: %v), ctx.Err %v", cause, errors.Is(cause, context.Canceled), ctx.Err())
			}
			wrapped := fmt.Errorf("epoch 0: %w", cause)
			if got := tensorfeed.ExitCode(wrapped); got != tt.code {
				t.Errorf("ExitCode(%q) = %d, want %d", wrapped, got, tt.code)
			}
		})
	}
}

// TestNotifyStopStop checks that stop cancels the context without a
// signal: its cause is context.Canceled, whose exit status is 1.
func TestNotifyStopStop(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent, cancel := context.WithCancel(context.Background())
	ctx, stop := tensorfeed.NotifyStop(parent)
	cancel() // the parent's cancellation ends the watching goroutine too
	<-ctx.Done()
	stop()
	stop() // a second call does nothing
	if cause := context.Cause(ctx); cause != context.Canceled {
		t.Errorf("cause %v, want context.Canceled", cause)
	}
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{context.Canceled, 1},
		{errors.New("bad data"), 1},
		{&tensorfeed.SignalError{Signal: syscall.SIGINT}, 130},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", &tensorfeed.SignalError{Signal: syscall.SIGTERM})), 143},
		{&tensorfeed.SignalError{Signal: syscall.SIGHUP}, 129},
	} {
		if got := tensorfeed.ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// childEnv makes the test binary act as the program of
// TestSecondSignalKills.
const childEnv = "TENSORFEED_SIGNAL_TEST_CHILD"

// TestSecondSignalKills runs a child process that takes a first SIGINT
// through NotifyStop, then receives a second one while it is still
// running: the second kills it, as Ctrl-C does a program that does not
// catch it.
func TestSecondSignalKills(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		ctx, stop := tensorfeed.NotifyStop(context.Background())
		defer stop()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-ctx.Done()
		fmt.Println(context.Cause(ctx))
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(10 * time.Second) // a program slow to stop
		fmt.Println("still running")
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSecondSignalKills$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.Output()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT || !strings.HasPrefix(string(out), "stopped by SIGINT\n") {
		t.Errorf("child: %v, stdout %q; want it killed by SIGINT after it printed the first", err, out)
	}
}
