package pipeline_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/batch"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/pipeline"
)

// wdsPipe is a pipeline over a WebDataset shard: each sample's .cls bytes.
func wdsPipe(path string) func() *pipeline.Pipe[batch.Batch[int]] {
	return func() *pipeline.Pipe[batch.Batch[int]] {
		p := pipeline.Map(pipeline.From(webdataset.Open(path)), func(s webdataset.Sample) int { return len(s.Fields["cls"]) })
		return pipeline.Batch(p, 4, batch.Keep)
	}
}

// TestCheckpointWebDatasetOffset: an offset past the end of a plain shard,
// or not at a tar block, cannot be a header's: refused, naming the
// checkpoint and the field, instead of reading nothing or a header taken
// from the middle of a member.
func TestCheckpointWebDatasetOffset(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "train.tar")
	f, err := os.Create(shard)
	if err != nil {
		t.Fatal(err)
	}
	w := webdataset.NewWriter(f)
	for i := range 40 {
		if err := w.Write(webdataset.Sample{Key: fmt.Sprintf("%04d", i), Fields: map[string][]byte{"cls": []byte(fmt.Sprint(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(shard)
	if err != nil {
		t.Fatal(err)
	}
	data := takeAfter(t, wdsPipe(shard)(), 3)
	if err := resumeFirst(writeRaw(t, dir, "as-taken.json", data), wdsPipe(shard), 2); err != nil {
		t.Fatalf("as taken: %v", err)
	}
	var c pipeline.Checkpoint
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	leaf := &c.State
	for len(leaf.In) > 0 {
		leaf = &leaf.In[0]
	}
	if len(leaf.Pos) != 3 {
		t.Fatalf("the reader's state is %v, want [shard, offset, n]", leaf)
	}
	for _, c2 := range []struct {
		off  int64
		says string
	}{{fi.Size() + 512, "past the end"}, {1 << 62, "past the end"}, {leaf.Pos[1] + 100, "not at a tar block"}} {
		leaf.Pos[1] = c2.off
		crafted, _ := c.Encode()
		path := writeRaw(t, dir, "ck.json", crafted)
		err := resumeFirst(path, wdsPipe(shard), 2)
		refused(t, fmt.Sprintf("offset %d of a shard of %d bytes", c2.off, fi.Size()), err, path, "pos[1]")
		if err != nil && !strings.Contains(err.Error(), c2.says) {
			t.Errorf("offset %d: %v: want it to say %q", c2.off, err, c2.says)
		}
	}
}
