// Package clitest runs an example program's main function in a child
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
