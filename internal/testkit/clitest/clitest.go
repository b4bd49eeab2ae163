// Package clitest runs a program's main function in a child
// process of its test binary, so that a test can see its exit status and
// its output without building the program.
package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// argsEnv carries the arguments from Run to the child's RunIfChild.
const argsEnv = "TENSORFEED_EXAMPLE_MAIN_ARGS"

// RunIfChild runs main with the arguments Run passed and exits with status
// 0 when main returns, if this process is a child started by Run; it
// returns at once otherwise. Call it first in TestMain.
func RunIfChild(name string, main func()) {
	enc, ok := os.LookupEnv(argsEnv)
	if !ok {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(enc), &args); err != nil {
		panic(err)
	}
	os.Args = append([]string{name}, args...)
	// The program's flags alone, without the testing package's.
	flag.CommandLine = flag.NewFlagSet(name, flag.ExitOnError)
	main()
	os.Exit(0)
}

// Run starts the test binary again to run the program's main with args
// (see RunIfChild) and returns its exit status and what it wrote to
// stdout and stderr.
func Run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	enc, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), argsEnv+"="+string(enc))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// BadFlags is one bad command line and a text its error message must hold.
type BadFlags struct {
	Name string
	Args []string
	Msg  string
}

// CheckBadFlags runs the program once per case (see Run) and fails the test
// unless each run ends with exit status 2, nothing on stdout, and on stderr
// the case's message and the usage ("Usage of"), never a panic's trace.
func CheckBadFlags(t *testing.T, cases []BadFlags) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			code, stdout, stderr := Run(t, tt.Args...)
			if code != 2 || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine 1 [") ||
				!strings.Contains(stderr, tt.Msg) || !strings.Contains(stderr, "Usage of") || stdout != "" {
				t.Errorf("exit status %d, stdout %q, stderr:\n%s\nwant status 2, a message with %q and the usage",
					code, stdout, stderr, tt.Msg)
			}
		})
	}
}
