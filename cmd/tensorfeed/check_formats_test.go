package main

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

// TFRecord: the summary names the features; without --all the first bad
// data checksum is reported, with --all every one, and --format tfrecord
// reads a file whatever its name.
func TestCheckTFRecord(t *testing.T) {
	var buf bytes.Buffer
	w := tfrecord.NewWriter(&buf)
	for i := range 4 {
		var ex tfrecord.Example
		ex.SetInt64s("label", int64(i))
		ex.SetBytes("text", []byte("hello"))
		if err := w.Write(ex.Marshal()); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	dir := t.TempDir()
	goodPath := filepath.Join(dir, "good.data")
	writeFile(t, goodPath, good)
	code, stdout, stderr := runCmd("check", goodPath)
	if code != 0 || stdout != goodPath+`: TFRecord: 4 records, 148 payload bytes; 4 tf.train.Example; features: "label" (int64_list 4) "text" (bytes_list 4)`+"\n" {
		t.Errorf("good: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Records 1 and 3 have a flipped data byte.
	bad := bytes.Clone(good)
	recLen := len(good) / 4 // the records have the same length
	bad[recLen*1+12] ^= 1
	bad[recLen*3+12] ^= 1
	badPath := filepath.Join(dir, "bad.tfrecord")
	writeFile(t, badPath, bad)
	code, _, stderr = runCmd("check", badPath)
	if code != 1 || !strings.HasPrefix(stderr, badPath+": record 1 at byte "+strconv.Itoa(recLen)+": tfrecord: bad format: data checksum mismatch") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("bad: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd("check", "--all", badPath)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], badPath+": record 1 at byte ") || !strings.HasPrefix(lines[1], badPath+": record 3 at byte "+strconv.Itoa(3*recLen)+": tfrecord: bad format: data checksum mismatch") {
		t.Errorf("--all: exit %d, stderr %q", code, stderr)
	}

	// A name that says nothing and a first length CRC that fails: only
	// --format reads it as TFRecord.
	odd := bytes.Clone(good)
	odd[9] ^= 1
	oddPath := filepath.Join(dir, "odd")
	writeFile(t, oddPath, odd)
	if code, _, stderr = runCmd("check", oddPath); code != 1 || !strings.Contains(stderr, "unknown format") {
		t.Errorf("odd: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = runCmd("check", "--format", "tfrecord", oddPath); code != 1 || !strings.HasPrefix(stderr, oddPath+": record 0 at byte 0: tfrecord: bad format: length checksum mismatch") {
		t.Errorf("--format tfrecord: exit %d, stderr %q", code, stderr)
	}
}

// WebDataset: the summary counts the fields; a sample with a field that
// does not parse is reported, and --all goes past it to the next one.
func TestCheckWebDataset(t *testing.T) {
	write := func(name string, gzip bool, samples ...webdataset.Sample) string {
		var buf bytes.Buffer
		var opts []webdataset.WriterOption
		if gzip {
			opts = append(opts, webdataset.Gzip(6))
		}
		w := webdataset.NewWriter(&buf, opts...)
		for _, s := range samples {
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), name)
		writeFile(t, p, buf.Bytes())
		return p
	}
	s := func(key, cls, json string) webdataset.Sample {
		return webdataset.Sample{Key: key, Fields: map[string][]byte{"cls": []byte(cls), "json": []byte(json), "txt": []byte("a caption")}}
	}
	good := write("shard", true, s("a", "1", "{}"), s("b", "2", "[1]"))
	code, stdout, stderr := runCmd("check", good)
	if code != 0 || stdout != good+": WebDataset, gzip: 2 samples, 25 bytes of fields; fields: cls 2 json 2 txt 2\n" {
		t.Errorf("good: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	bad := write("bad.tar", false, s("a", "x", "{}"), s("b", "2", "[1]"), s("c", "3", "{"))
	code, _, stderr = runCmd("check", bad)
	if code != 1 || stderr != bad+`: byte 0: member "a.cls": webdataset: field does not decode: strconv.Atoi: parsing "x": invalid syntax`+"\n" {
		t.Errorf("bad: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd("check", "--all", bad)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[1], bad+`: byte 6144: member "c.json": webdataset: field does not decode`) {
		t.Errorf("--all: exit %d, stderr %q", code, stderr)
	}
	// --format wds on a file that is not a tar says where it breaks.
	notTar := filepath.Join(t.TempDir(), "x")
	writeFile(t, notTar, bytes.Repeat([]byte("x"), 600))
	if code, _, stderr = runCmd("check", "--format", "wds", notTar); code != 1 || !strings.HasPrefix(stderr, notTar+": byte 0: ") {
		t.Errorf("--format wds: exit %d, stderr %q", code, stderr)
	}
}
