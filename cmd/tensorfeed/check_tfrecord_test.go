package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

// tfrecordFile writes payloads as a TFRecord file in a temporary folder
// and returns its path and the offset of each record.
func tfrecordFile(t *testing.T, payloads ...[]byte) (string, []int64) {
	t.Helper()
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf)
	var offs []int64
	for _, p := range payloads {
		offs = append(offs, int64(buf.Len()))
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mixed.tfrecord")
	writeFile(t, path, buf.Bytes())
	return path, offs
}

// examples returns n serialized tf.train.Example with a label and a text.
func examples(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var ex tfrecord.Example
		ex.SetInt64s("label", int64(i))
		ex.SetBytes("text", []byte("hello"))
		out[i] = ex.Marshal()
	}
	return out
}

// malformed is an Example whose feature "x" holds a packed float_list of 1 byte.
var malformed = []byte{0x0a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 'x', 0x12, 0x05, 0x12, 0x03, 0x0a, 0x01, 0x00}

// A record that does not parse among tf.train.Example is reported with its
// index, offset and why, wherever it is, and the file is bad; --mixed
// counts it instead.
func TestCheckTFRecordMalformedExample(t *testing.T) {
	for _, at := range []int{20, 0, 49} {
		recs := examples(50)
		recs[at] = malformed
		path, offs := tfrecordFile(t, recs...)
		code, stdout, stderr := runCmd("check", path)
		want := fmt.Sprintf("%s: record %d at byte %d: member \"x\": byte 11 of its tf.train.Example: tfrecord: bad tf.train.Example: packed float_list of 1 bytes, not a multiple of 4\n", path, at, offs[at])
		if code != 1 || stderr != want || stdout != "" {
			t.Errorf("record %d malformed: exit %d, stdout %q, stderr %q\nwant stderr %q", at, code, stdout, stderr, want)
		}
		code, stdout, stderr = runCmd("check", "--mixed", path)
		if code != 0 || !strings.Contains(stdout, "; 49 tf.train.Example and 1 other records; features:") || stderr != "" {
			t.Errorf("--mixed, record %d malformed: exit %d, stdout %q, stderr %q", at, code, stdout, stderr)
		}
	}

	// Records before the first Example that fail are reported as one,
	// with --all every one after it.
	recs := append([][]byte{malformed, []byte("junk"), malformed}, examples(3)...)
	recs = append(recs, malformed)
	path, offs := tfrecordFile(t, recs...)
	code, _, stderr := runCmd("check", "--all", path)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 1 || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], fmt.Sprintf("%s: record 0 at byte 0: ", path)) ||
		!strings.HasSuffix(lines[0], "(and 2 more records before record 3, the first tf.train.Example with features, do not parse either)") ||
		!strings.HasPrefix(lines[1], fmt.Sprintf("%s: record 6 at byte %d: ", path, offs[6])) {
		t.Errorf("--all: exit %d, stderr %q", code, stderr)
	}

	// A file of other payloads, an empty record among them, is good.
	path, _ = tfrecordFile(t, []byte("not an Example"), nil, malformed)
	if code, stdout, stderr := runCmd("check", path); code != 0 || !strings.Contains(stdout, "1 tf.train.Example and 2 other records; no features") {
		t.Errorf("other payloads: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// An Example over the parser's limits is reported with its position, even
// with --mixed, in memory bounded by the limits rather than by what the
// record would decode to.
func TestCheckTFRecordExampleLimits(t *testing.T) {
	const maxValues = 1 << 20 // tfrecord.MaxValues's default
	bomb := badinput.TFExampleEmptyBytes(2 << 20)
	path, offs := tfrecordFile(t, append(examples(2), bomb)...)
	for _, args := range [][]string{{"check", path}, {"check", "--mixed", path}} {
		code, _, stderr := runCmd(args...)
		want := fmt.Sprintf("%s: record 2 at byte %d: member \"b\": byte %d of its tf.train.Example: tfrecord: tf.train.Example over a limit: more than %d bytes_list and int64_list values (MaxValues)\n",
			path, offs[2], 2*maxValues+23, maxValues)
		if code != 1 || stderr != want {
			t.Errorf("%q: exit %d, stderr %q\nwant %q", args, code, stderr, want)
		}
	}
}
