//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/pipeline"
)

// buildMnist builds the program into a temporary folder, so that a test
// can send signals to it as a user does with Ctrl-C.
func buildMnist(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the program:", err)
	}
	bin := filepath.Join(t.TempDir(), "mnist")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// stopRun starts the program with args, sends it sig as soon as its dump
// holds a line (so in the first epoch's middle: the dump is flushed every
// few dozen batches of the 937 of an epoch) and returns its exit status
// and stderr.
func stopRun(t *testing.T, bin, dir, dump string, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fi, err := os.Stat(filepath.Join(dir, dump)); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no line in the dump after 60s; stderr:\n%s", stderr.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestSignalStopResume stops a run with SIGINT, as Ctrl-C does, in the
// middle of its first epoch: the program writes the checkpoint of the
// position its loop reached, says so on one plain line of stderr with the
// checkpoint's own epoch and step, and exits with status 130. Resumed
// from that checkpoint, it finishes the run, and the two dumps together
// equal a straight run's. SIGTERM, what a scheduler sends before it
// preempts a job, does the same with status 143.
func TestSignalStopResume(t *testing.T) {
	bin := buildMnist(t)
	dir := t.TempDir()
	args := []string{"-feed-only", "-epochs", "2", "-plots", ""}
	straight := exec.Command(bin, append(args, "-dump", "straight.tsv")...)
	straight.Dir = dir
	if out, err := straight.CombinedOutput(); err != nil {
		t.Fatalf("straight run: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(dir, "straight.tsv"))
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			ck, dump := "ck"+strconv.Itoa(tt.code)+".json", "d"+strconv.Itoa(tt.code)+".tsv"
			code, stderr := stopRun(t, bin, dir, dump, tt.sig, append(args, "-checkpoint", ck, "-dump", dump)...)
			m := regexp.MustCompile(`^mnist: stopped by (SIG[A-Z]+) at epoch (\d+) step (\d+); checkpoint written to (\S+)\n$`).FindStringSubmatch(stderr)
			if code != tt.code || m == nil || m[1] != map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tt.sig] || m[4] != ck {
				t.Fatalf("exit status %d, stderr %q; want %d and one line that says where the run stopped", code, stderr, tt.code)
			}
			c, err := pipeline.ReadCheckpoint(filepath.Join(dir, ck))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(c.Epoch) != m[2] || fmt.Sprint(c.Step) != m[3] {
				t.Errorf("the message says epoch %s step %s, the checkpoint epoch %d step %d", m[2], m[3], c.Epoch, c.Step)
			}
			if c.Step == 0 || c.Step >= 937 {
				t.Errorf("checkpoint at epoch %d step %d: want one in the middle of an epoch of 937 batches", c.Epoch, c.Step)
			}
			got, err := os.ReadFile(filepath.Join(dir, dump))
			if err != nil {
				t.Fatal(err)
			}
			if n := int64(bytes.Count(got, []byte("\n"))); n != int64(c.Epoch)*937+c.Step {
				t.Errorf("the stopped run dumped %d batches, its checkpoint is at epoch %d step %d", n, c.Epoch, c.Step)
			}

			resumed := exec.Command(bin, append(args, "-resume", ck, "-dump", dump)...)
			resumed.Dir = dir
			out, err := resumed.CombinedOutput()
			if err != nil {
				t.Fatalf("resumed run: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), fmt.Sprintf("resumed from %s at epoch %d step %d\n", ck, c.Epoch, c.Step)) {
				t.Errorf("the resumed run does not say where it resumed:\n%s", out)
			}
			if got, err = os.ReadFile(filepath.Join(dir, dump)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("stopped and resumed dump (%d bytes) differs from the straight one (%d bytes)", len(got), len(want))
			}
		})
	}
}
