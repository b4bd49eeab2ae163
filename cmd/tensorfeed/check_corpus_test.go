package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/idx"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/source"
)

// TestCorpus writes the adversarial corpus (internal/testkit/badinput) once and
// runs the readers and the tensorfeed binary over it.
func TestCorpus(t *testing.T) {
	cases, err := badinput.Write(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("readers", func(t *testing.T) { testReadersCorpus(t, cases) })
	t.Run("check", func(t *testing.T) { testCheckCorpus(t, cases) })
}

// positionRE matches the positioned form of check's reports.
var positionRE = regexp.MustCompile(`(?m)^[^\n]+: (record \d+|line \d+|column \d+|byte \d+|offset \d+)(, (line|column) \d+)*( at byte \d+)?: \S`)

// checkLimits bound one run of "tensorfeed check" on any corpus file.
const (
	checkTimeout = 10 * time.Second
	checkMaxRSS  = 256 << 10 // KiB
)

// Every corpus file through the tensorfeed binary: good files exit 0, bad
// ones exit 1 with a positioned report, none panics (exit 3), runs out of
// time or memory.
func testCheckCorpus(t *testing.T, cases []badinput.Case) {
	bin := filepath.Join(t.TempDir(), "tensorfeed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// GNU time reports the child's own peak RSS. Without it, the
	// rusage of the child is used: on Linux it keeps the high-water mark
	// of this process's memory shared until exec, so it bounds the
	// child's peak from above.
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil || exec.Command(gnuTime, "-f", "%M", "true").Run() != nil {
		gnuTime = ""
		t.Log("/usr/bin/time (GNU time) is missing: peak RSS is the rusage upper bound, this process's memory included")
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-36s %4s %8s %6s\n", "case", "exit", "rss KiB", "ms")
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		var cmd *exec.Cmd
		var rssFile string
		args := []string{"check", c.Path}
		if c.Format == badinput.Lines { // text that detection takes for CSV
			args = []string{"check", "--format", "csv", "--lines", c.Path}
		}
		if gnuTime != "" {
			rssFile = filepath.Join(t.TempDir(), "rss")
			cmd = exec.CommandContext(ctx, gnuTime, append([]string{"-f", "%M", "-o", rssFile, bin}, args...)...)
		} else {
			cmd = exec.CommandContext(ctx, bin, args...)
		}
		// On a timeout, kill the whole process group: GNU time does not
		// pass SIGKILL on to the check it runs.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		timedOut := ctx.Err() != nil
		cancel()
		code := cmd.ProcessState.ExitCode()
		var rss int64
		if gnuTime != "" {
			b, rerr := os.ReadFile(rssFile)
			// GNU time writes "Command exited with non-zero status N"
			// before the figure when the command fails.
			lines := strings.Fields(string(b))
			if rerr != nil || len(lines) == 0 {
				t.Errorf("%s: no peak RSS from GNU time: %v %q", c.Name, rerr, b)
			} else if rss, rerr = strconv.ParseInt(lines[len(lines)-1], 10, 64); rerr != nil {
				t.Errorf("%s: GNU time wrote %q", c.Name, b)
			}
		} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss
		}
		fmt.Fprintf(&table, "%-36s %4d %8d %6d\n", c.Name, code, rss, elapsed.Milliseconds())
		switch {
		case timedOut:
			t.Errorf("%s: still running after %v: %v", c.Name, checkTimeout, err)
		case code == 3:
			t.Errorf("%s: internal error (exit 3):\n%s", c.Name, stderr.String())
		case c.Good && code != 0:
			t.Errorf("%s (good): exit %d, stderr:\n%s", c.Name, code, stderr.String())
		case c.Good && !strings.HasPrefix(stdout.String(), c.Path+": "):
			t.Errorf("%s (good): no summary on stdout: %q", c.Name, stdout.String())
		case !c.Good && code != 1:
			t.Errorf("%s (bad: %s): exit %d, want 1; stdout %q, stderr %q", c.Name, c.Why, code, stdout.String(), stderr.String())
		case !c.Good && !positionRE.MatchString(stderr.String()):
			t.Errorf("%s (bad: %s): report without a position: %q", c.Name, c.Why, stderr.String())
		}
		if rss > checkMaxRSS {
			t.Errorf("%s: peak RSS %d KiB, want below %d KiB", c.Name, rss, checkMaxRSS)
		}
		if elapsed > checkTimeout {
			t.Errorf("%s: took %v", c.Name, elapsed)
		}
	}
	t.Logf("tensorfeed check on the corpus:\n%s", table.String())
}

// Every corpus file through the readers' public API, in this process: bad
// files give an error that wraps tensorfeed.ErrBadData, good ones none, and
// nothing panics. The cases only check rejects (CheckOnly) are left out.
func testReadersCorpus(t *testing.T, cases []badinput.Case) {
	for _, c := range cases {
		if c.CheckOnly {
			continue
		}
		err := readCase(c)
		switch {
		case c.Good && err != nil:
			t.Errorf("%s (good): %v", c.Name, err)
		case !c.Good && err == nil:
			t.Errorf("%s (bad: %s): read without error", c.Name, c.Why)
		case !c.Good && !errors.Is(err, tensorfeed.ErrBadData):
			t.Errorf("%s (bad: %s): error %q does not wrap tensorfeed.ErrBadData", c.Name, c.Why, err)
		}
	}
}

// readCase reads the file of c with its format's reader, to the end, and
// returns the first error, or a panic as an error.
func readCase(c badinput.Case) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	ctx := context.Background()
	switch c.Format {
	case badinput.IDX:
		_, err = idx.ReadFile(c.Path)
		return err
	case badinput.CSV:
		_, err = source.Collect(ctx, source.Reader[csv.Row](csv.New(c.Path)))
		return err
	case badinput.ImageRecord:
		if c.Index != "" {
			ix, err := recordio.ReadIndex(context.Background(), c.Index)
			if err != nil {
				return err
			}
			f, err := os.Open(c.Path)
			if err != nil {
				return err
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				return err
			}
			if err := recordio.ValidateIndex(f, st.Size(), c.Path, ix); err != nil {
				return err
			}
		}
		for _, err := range imagerec.Decode(recordio.Open(c.Path, recordio.ReuseBuffer()), nil, decode.Options{}, nil).All(ctx) {
			if err != nil {
				return err
			}
		}
		return nil
	case badinput.List:
		_, err = imagerec.ReadList(c.Path)
		return err
	case badinput.TFRecord:
		_, err = source.Collect(ctx, source.Reader[tfrecord.Record](tfrecord.Open(c.Path)))
		return err
	case badinput.WebDataset:
		wds, _ := format.Default().Lookup("wds")
		return wds.Check(ctx, []string{c.Path}, io.Discard)
	case badinput.Lines:
		_, err = source.Collect(ctx, format.Open([]string{"csv:" + c.Path}))
		return err
	case badinput.Parquet:
		_, err = source.Collect(ctx, source.Reader[parquet.RawRow](parquet.ReadRaw(c.Path)))
		return err
	case badinput.Image:
		data, err := os.ReadFile(c.Path)
		if err != nil {
			return err
		}
		_, err = decode.Default().Decode(data, decode.Options{})
		return err
	case badinput.MeanImage:
		data, err := os.ReadFile(c.Path)
		if err != nil {
			return err
		}
		_, _, err = imagerec.ParseMeanImage(data, c.Path)
		return err
	}
	return fmt.Errorf("unknown format %q", c.Format)
}
