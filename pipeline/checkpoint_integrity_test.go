package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/parquet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/internal/stage"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
)

// edit is a checkpoint's JSON with one integer changed.
type edit struct {
	field string // "epoch", "state.in[0].pos[1]"
	to    string // the new value
	data  []byte
}

// intEdits returns every checkpoint that differs from data in one integer:
// each integer of the JSON changed by +1 and to 2^62.
func intEdits(t *testing.T, data []byte) []edit {
	t.Helper()
	var paths []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, v[k])
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		case json.Number:
			paths = append(paths, path)
		}
	}
	walk("", decode(t, data))
	var out []edit
	for _, p := range paths {
		for _, change := range []func(int64) int64{func(x int64) int64 { return x + 1 }, func(int64) int64 { return 1 << 62 }} {
			doc := decode(t, data)
			to := set(t, doc, p, change)
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, edit{field: p, to: to, data: b})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no integer in %s", data)
	}
	return out
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// set changes the integer at path ("state.in[0].pos[1]") in doc.
func set(t *testing.T, doc any, path string, change func(int64) int64) string {
	t.Helper()
	var parent any = doc
	parts := strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(path), ".")
	for i, part := range parts {
		last := i == len(parts)-1
		var cur any
		switch p := parent.(type) {
		case map[string]any:
			cur = p[part]
			if last {
				n, _ := cur.(json.Number).Int64()
				v := json.Number(fmt.Sprint(change(n)))
				p[part] = v
				return string(v)
			}
		case []any:
			var k int
			fmt.Sscan(part, &k)
			cur = p[k]
			if last {
				n, _ := cur.(json.Number).Int64()
				v := json.Number(fmt.Sprint(change(n)))
				p[k] = v
				return string(v)
			}
		}
		parent = cur
	}
	t.Fatalf("no integer at %s", path)
	return ""
}

// writeRaw writes bytes as a checkpoint file in dir.
func writeRaw(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// resumeFirst reads the checkpoint file at path and resumes build() from
// it for epochs epochs, up to the first item of the first pass: it returns
// the first error of the three.
func resumeFirst[T any](path string, build func() *pipeline.Pipe[T], epochs int) error {
	ck, err := pipeline.ReadCheckpoint(path)
	if err != nil {
		return err
	}
	rest, err := build().EpochsFrom(context.Background(), ck, epochs)
	if err != nil {
		return err
	}
	for _, pass := range rest {
		for _, err := range pass {
			return err
		}
		return nil
	}
	return nil
}

// refused checks that err refuses the checkpoint at path: it wraps
// ErrCheckpoint and names the file and one of the fields.
func refused(t *testing.T, what string, err error, path string, fields ...string) {
	t.Helper()
	t.Logf("%s: %v", what, err)
	if err == nil {
		t.Errorf("%s: accepted", what)
		return
	}
	msg := err.Error()
	if !errors.Is(err, pipeline.ErrCheckpoint) || !strings.Contains(msg, path) {
		t.Errorf("%s: %v: want an error wrapping ErrCheckpoint that names %s", what, err, path)
		return
	}
	for _, f := range fields {
		if strings.Contains(msg, f) {
			return
		}
	}
	t.Errorf("%s: %v: want it to name one of %q", what, err, fields)
}

// recordFile writes n records of 10 to 40 bytes to a RecordIO file.
func recordFile(t *testing.T, path string, n int) {
	t.Helper()
	var buf bytes.Buffer
	w := recordio.NewWriter(&buf)
	for i := range n {
		if err := w.Write(bytes.Repeat([]byte{byte(i)}, 10+i%31)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordPipe batches the records of a RecordIO file, by 4.
func recordPipe(path string) func() *pipeline.Pipe[batch.Batch[int]] {
	return func() *pipeline.Pipe[batch.Batch[int]] {
		p := pipeline.Map(pipeline.From(recordio.Open(path)), func(r recordio.Record) int { return len(r.Data) })
		return pipeline.Batch(p, 4, batch.Keep)
	}
}

// takeAfter runs a pass of epoch 0 of p for k items and returns its
// checkpoint, as a training loop takes it.
func takeAfter[T any](t *testing.T, p *pipeline.Pipe[T], k int) []byte {
	t.Helper()
	got, e, step := runEpochs[T](t, p.Epochs(context.Background(), 2), k)
	if len(got) != k {
		t.Fatalf("%d items, want %d", len(got), k)
	}
	if pe, ps := p.Position(); pe != e || ps != step {
		t.Fatalf("position (%d, %d), the loop counted (%d, %d)", pe, ps, e, step)
	}
	ck, err := p.Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, err := ck.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCheckpointEveryIntegerEdit changes every integer of real checkpoints
// (of an in-memory pipeline and of one over a RecordIO file) by +1 and to
// 2^62: each edit is refused when the file is read, and the error names
// the file and the field.
func TestCheckpointEveryIntegerEdit(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "train.rec")
	recordFile(t, rec, 50)
	checkpoints := map[string][]byte{
		"indexed":  takeAfter(t, mnistLike(1000, 32)(0), 37),
		"recordio": takeAfter(t, recordPipe(rec)(), 5),
	}
	for name, data := range checkpoints {
		path := writeRaw(t, dir, name+".json", data)
		if _, err := pipeline.ReadCheckpoint(path); err != nil {
			t.Fatalf("%s: the checkpoint as written: %v", name, err)
		}
		for _, e := range intEdits(t, data) {
			path := writeRaw(t, dir, name+"-edited.json", e.data)
			_, err := pipeline.ReadCheckpoint(path)
			what := fmt.Sprintf("%s with %s = %s", name, e.field, e.to)
			if e.field == "version" {
				refused(t, what, err, path, "version")
				continue
			}
			// The marks name the one value edited.
			refused(t, what, err, path, path+": "+e.field+": changed after")
		}
	}
}

// TestCheckpointCraftedEdits changes integers of a checkpoint and writes
// it again with a checksum that matches (as a checkpoint made by another
// program would be): what the resume can tell from the pipeline and its
// data is still refused, naming the file and the field. Every integer set
// to 2^62 is refused, and so is a step, a batch count or a version that is
// one more.
func TestCheckpointCraftedEdits(t *testing.T) {
	dir := t.TempDir()
	build := func() *pipeline.Pipe[batch.Batch[int]] { return mnistLike(1000, 32)(0) }
	data := takeAfter(t, build(), 37) // epoch 1 of 2, step 5
	for _, e := range intEdits(t, data) {
		if e.to != fmt.Sprint(int64(1)<<62) && !strings.HasPrefix(e.field, "step") && e.field != "version" && e.field != "state.in[0].pos[0]" {
			continue // +1 of an epoch or a position inside the data is a valid position: the checksum alone refuses it
		}
		var c pipeline.Checkpoint
		if err := json.Unmarshal(e.data, &c); err != nil {
			t.Fatal(err)
		}
		crafted, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		path := writeRaw(t, dir, "crafted.json", crafted)
		err = resumeFirst(path, build, 2)
		// A step that disagrees with the batch count names both.
		refused(t, fmt.Sprintf("%s = %s", e.field, e.to), err, path, e.field)
	}
}

// TestCheckpointEpochPastRun: a checkpoint of epoch 99 does not resume a
// run of 3 epochs (which would end at once, having read nothing).
func TestCheckpointEpochPastRun(t *testing.T) {
	build := func() *pipeline.Pipe[batch.Batch[int]] { return mnistLike(100, 8)(0) }
	ck, err := build().CheckpointAt(context.Background(), 99, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ck.Encode()
	path := writeRaw(t, t.TempDir(), "ck.json", data)
	refused(t, "epoch 99 of 3", resumeFirst(path, build, 3), path, "epoch")
	if err := resumeFirst(path, build, -1); err != nil {
		t.Errorf("epoch 99 of an endless run: %v", err)
	}
	if err := resumeFirst(path, build, 100); err != nil {
		t.Errorf("epoch 99 of 100: %v", err)
	}
}

// TestCheckpointOfAnotherParquetFile: a checkpoint taken over one Parquet
// file does not resume a pipeline over another file with as many rows,
// nor over the same name rewritten with other rows; the same file moved
// to another directory resumes.
func TestCheckpointOfAnotherParquetFile(t *testing.T) {
	type row struct {
		X int64 `parquet:"x"`
	}
	dir := t.TempDir()
	rows := func(add int64) []row {
		r := make([]row, 40)
		for i := range r {
			r[i].X = int64(i)*3 + add
		}
		return r
	}
	write := func(path string, add int64) {
		t.Helper()
		w, err := parquet.Create[row](path, parquet.RowGroupRows(8))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rows(add)...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	write(a, 0)
	write(b, 1)
	build := func(path string) func() *pipeline.Pipe[batch.Batch[row]] {
		return func() *pipeline.Pipe[batch.Batch[row]] {
			return pipeline.Batch(pipeline.From[row](parquet.Read[row](path)), 4, batch.Keep)
		}
	}
	data := takeAfter(t, build(a)(), 3)
	if len(data) > 1024 {
		t.Errorf("checkpoint of %d bytes, want at most 1 KiB: %s", len(data), data)
	}
	path := writeRaw(t, dir, "ck.json", data)
	if err := resumeFirst(path, build(a), 2); err != nil {
		t.Fatalf("the same file: %v", err)
	}
	refused(t, "another file of as many rows", resumeFirst(path, build(b), 2), path, "data")

	moved := filepath.Join(t.TempDir(), "a.parquet")
	content, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, content, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(a)
	if err := os.Chtimes(moved, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := resumeFirst(path, build(moved), 2); err != nil {
		t.Errorf("the same file moved (mtime kept): %v", err)
	}

	write(a, 2) // rewritten in place: same name, same size, another time
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	refused(t, "the file rewritten", resumeFirst(path, build(a), 2), path, "data")
}

// TestCheckpointRecordIOOffsetPastFile: a RecordIO offset past the end of
// the file (in a checkpoint whose checksum matches) is refused before the
// first item, naming the checkpoint and the field, not as a failed seek.
func TestCheckpointRecordIOOffsetPastFile(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "train.rec")
	recordFile(t, rec, 50)
	fi, err := os.Stat(rec)
	if err != nil {
		t.Fatal(err)
	}
	data := takeAfter(t, recordPipe(rec)(), 5)
	var c pipeline.Checkpoint
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	leaf := &c.State
	for len(leaf.In) > 0 {
		leaf = &leaf.In[0]
	}
	if len(leaf.Pos) != 3 {
		t.Fatalf("the reader's state is %v, want [file, offset, n]", leaf)
	}
	for _, off := range []int64{(fi.Size() + 4) &^ 3, 1 << 62} {
		leaf.Pos[1] = off
		crafted, _ := c.Encode()
		path := writeRaw(t, dir, "ck.json", crafted)
		err := resumeFirst(path, recordPipe(rec), 2)
		refused(t, fmt.Sprintf("offset %d of a file of %d bytes", off, fi.Size()), err, path, "pos[1]")
		if err != nil && !strings.Contains(err.Error(), "past the end") {
			t.Errorf("offset %d: %v: want it to say the offset is past the end of the file", off, err)
		}
	}
}

// TestCheckpointZipInputSetBack: of two zipped readers of the same kind
// (the images and labels of one dataset), one set back in the checkpoint
// would pair each sample with another's label: refused, naming the input.
func TestCheckpointZipInputSetBack(t *testing.T) {
	build := func() *pipeline.Pipe[batch.Batch[int]] {
		a := source.ReadIndexed(source.IndexSlice(seq(0, 100)), source.ShuffleIndex(3))
		b := source.ReadIndexed(source.IndexSlice(seq(1000, 1100)), source.ShuffleIndex(3))
		z := pipeline.Zip2(pipeline.From[int](a), b)
		return pipeline.Batch(pipeline.Map(z, func(v stage.Tuple2[int, int]) int { return v.B - v.A }), 10, batch.Keep)
	}
	data := takeAfter(t, build(), 3)
	dir := t.TempDir()
	path := writeRaw(t, dir, "ck.json", data)
	if err := resumeFirst(path, build, 2); err != nil {
		t.Fatalf("as taken: %v", err)
	}
	var c pipeline.Checkpoint
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	var zip *source.State
	var find func(st *source.State)
	find = func(st *source.State) {
		if len(st.In) == 2 {
			zip = st
			return
		}
		for i := range st.In {
			find(&st.In[i])
		}
	}
	find(&c.State)
	if zip == nil {
		t.Fatalf("no zip in %v", c.State)
	}
	leaf := &zip.In[1]
	for len(leaf.In) > 0 {
		leaf = &leaf.In[0]
	}
	leaf.Pos[0] -= 5
	crafted, _ := c.Encode()
	path = writeRaw(t, dir, "crafted.json", crafted)
	refused(t, "a zipped input set back", resumeFirst(path, build, 2), path, "in[1]")
}

// TestCheckpointVersion1: checkpoints of version 1 (no checksum, no data
// digest) are refused with a message that names the version.
func TestCheckpointVersion1(t *testing.T) {
	v1 := `{"version":1,"fingerprint":"1156773b160018ce","epoch":1,"step":5,"state":{"kind":"buffered","in":[{"kind":"batch(32,keep)","pos":[5],"in":[{"kind":"parallel_map","in":[{"kind":"map","in":[{"kind":"indexed(1000,shuffle=7)","pos":[160]}]}]}]}]}}`
	path := writeRaw(t, t.TempDir(), "v1.json", []byte(v1))
	_, err := pipeline.ReadCheckpoint(path)
	refused(t, "version 1", err, path, "version")
}
