package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

func sha(b string) string {
	s := sha256.Sum256([]byte(b))
	return hex.EncodeToString(s[:])
}

// ls lists files of four formats in one command, in order, each record
// with its index, offset, key, size and SHA-256.
func TestLs(t *testing.T) {
	dir := t.TempDir()
	var rec bytes.Buffer
	rw := recordio.NewWriter(&rec)
	rw.Write([]byte("r0"))
	rw.Write([]byte("r-one"))
	writeFile(t, filepath.Join(dir, "a.rec"), rec.Bytes())
	var tf bytes.Buffer
	tw := tfrecord.NewWriter(&tf)
	tw.Write([]byte("t0"))
	tw.Close()
	writeFile(t, filepath.Join(dir, "b.tfrecord"), tf.Bytes())
	var tar bytes.Buffer
	ww := webdataset.NewWriter(&tar)
	ww.Write(webdataset.Sample{Key: "s0", Fields: map[string][]byte{"txt": []byte("hi"), "cls": []byte("3")}})
	ww.Close()
	writeFile(t, filepath.Join(dir, "c.tar"), tar.Bytes())
	writeFile(t, filepath.Join(dir, "d.csv"), []byte("x,1\r\ny,2"))
	p := func(n string) string { return filepath.Join(dir, n) }

	code, stdout, stderr := runCmd("ls", p("a.rec"), p("b.tfrecord"), p("c.tar"), p("d.csv"))
	want := lsHeader +
		fmt.Sprintf("%s\t0\t0\t-\t2\t%s\n", p("a.rec"), sha("r0")) +
		fmt.Sprintf("%s\t1\t12\t-\t5\t%s\n", p("a.rec"), sha("r-one")) +
		fmt.Sprintf("%s\t0\t0\t-\t2\t%s\n", p("b.tfrecord"), sha("t0")) +
		fmt.Sprintf("%s\t0\t0\ts0\t3\tcls:1:%s,txt:2:%s\n", p("c.tar"), sha("3"), sha("hi")) +
		fmt.Sprintf("%s\t0\t0\t-\t3\t%s\n", p("d.csv"), sha("x,1")) +
		fmt.Sprintf("%s\t1\t5\t-\t3\t%s\n", p("d.csv"), sha("y,2"))
	if code != 0 || stdout != want {
		t.Fatalf("exit %d, stderr %q\nstdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}

	// --format names the format; --no-header drops the header.
	code, stdout, _ = runCmd("ls", "--format", "csv", "--no-header", p("a.rec"))
	if code != 0 || strings.Count(stdout, "\n") < 1 || strings.HasPrefix(stdout, "file\t") {
		t.Fatalf("--format csv: exit %d: %q", code, stdout)
	}

	// A bad record: the lines before it, then a positioned error.
	cut := p("e.rec")
	writeFile(t, cut, rec.Bytes()[:rec.Len()-3])
	code, stdout, stderr = runCmd("ls", "--no-header", cut)
	if code != 1 || !strings.HasPrefix(stdout, cut+"\t0\t0\t-\t2\t") || strings.Count(stdout, "\n") != 1 ||
		!strings.HasPrefix(stderr, "tensorfeed ls: "+cut+": record ") {
		t.Fatalf("truncated: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestLsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"ls"}, 2, "at least one file"},
		{[]string{"ls", "--format", "zip", "x"}, 2, `unknown --format "zip"`},
		{[]string{"ls", "no/such/file"}, 1, "no file matches"},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.says)
		}
	}
}
