package main

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/parquet"
)

// parquetRow and parquetDataRow are the rows of the Parquet shards
// convert writes from images with labels and from payloads, declared here
// apart from the writer's own so that a change of its schema fails.
type parquetRow struct {
	Key   string `parquet:"key"`
	Image []byte `parquet:"image"`
	Label int64  `parquet:"label"`
}

type parquetDataRow struct {
	Key  string `parquet:"key"`
	Data []byte `parquet:"data"`
}

// A Parquet shard has the columns of what it holds and no column that
// stays empty: key, image and label for MNIST's digits, key and data for
// the registry's records (every shard had all four, data empty for images
// and image and label empty for records).
func TestConvertParquetColumns(t *testing.T) {
	dir := writeMNIST(t, rand.New(rand.NewPCG(3, 4)), 5)
	out := t.TempDir()
	if code, _, stderr := runCmd("convert", "--from", "mnist", "--to", "parquet", "--out", out, "--prefix", "m", dir); code != 0 {
		t.Fatalf("mnist: exit %d: %s", code, stderr)
	}
	images := filepath.Join(out, "m-00000.parquet")
	code, stdout, stderr := runCmd("check", images)
	if code != 0 || !strings.HasSuffix(stdout, "; 3 columns: key STRING, image BYTE_ARRAY, label INT(64,true)\n") {
		t.Errorf("mnist: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	n := 0
	for r, err := range parquet.Read[parquetRow](images).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Image) != 784 || r.Key != recordKey(n) {
			t.Errorf("row %d: key %q, %d image bytes", n, r.Key, len(r.Image))
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d rows", n)
	}

	if code, _, stderr := runCmd("convert", "--from", "mnist", "--to", "recordio", "--out", out, "--prefix", "r", dir); code != 0 {
		t.Fatalf("recordio: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd("convert", "--to", "parquet", "--out", out, "--prefix", "p", "recordio:"+filepath.Join(out, "r-00000.rec")); code != 0 {
		t.Fatalf("registry: exit %d: %s", code, stderr)
	}
	payloads := filepath.Join(out, "p-00000.parquet")
	code, stdout, stderr = runCmd("check", payloads)
	if code != 0 || !strings.HasSuffix(stdout, "; 2 columns: key STRING, data BYTE_ARRAY\n") {
		t.Errorf("registry: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	rows := 0
	for r, err := range parquet.Read[parquetDataRow](payloads).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Data) != 24+784 { // the image record header, then the pixels
			t.Errorf("row %d: %d bytes of data", rows, len(r.Data))
		}
		rows++
	}
	if rows != 5 {
		t.Errorf("%d payload rows", rows)
	}
}

// A WebDataset sample converted to Parquet is refused for what is wrong,
// that convert's Parquet shards have fixed columns, naming its fields;
// fields that are the same in every sample do not "vary".
func TestConvertParquetFieldsMessage(t *testing.T) {
	dir := writeMNIST(t, rand.New(rand.NewPCG(5, 6)), 3)
	out := t.TempDir()
	if code, _, stderr := runCmd("convert", "--from", "mnist", "--to", "wds", "--out", out, "--prefix", "w", dir); code != 0 {
		t.Fatalf("wds: exit %d: %s", code, stderr)
	}
	shard := filepath.Join(out, "w-00000.tar")
	code, _, stderr := runCmd("convert", "--to", "parquet", "--out", out, "--prefix", "q", shard)
	want := shard + `: record 0 at byte 0: sample "00000000": its fields (a WebDataset sample's members, a Parquet row's columns) have names (bin, cls), and the Parquet files written have fixed columns (key and data for a payload; key, image and label for an image), not a column for each field: convert it to tfrecord or wds`
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "vary") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
