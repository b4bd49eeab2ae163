package main

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
)

// The ranks and their pipelines start goroutines; every test must leave
// none behind. A child process started by clitest.Run runs main instead
// of the tests.
func TestMain(m *testing.M) {
	clitest.RunIfChild("distributed", main)
	goleak.VerifyTestMain(m)
}

// runOK runs the program and fails the test unless it exits with status 0;
// it returns stdout.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit status %d, stdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
	}
	return stdout
}

// TestDefaultRun runs the default program (4 ranks, 2 epochs, 8 shards,
// batches of 128, PadShards) on the first 6,000 digits: every rank gets a
// quarter of every epoch and the check finds every sample once.
func TestDefaultRun(t *testing.T) {
	out := runOK(t, "-limit", "6000")
	want := regexp.MustCompile(`^shards: 8 of 6000 samples \(4\.9 MB\) in s3://tensorfeed/mnist/train-\*-of-00008\.rec on http://127\.0\.0\.1:\d+ \(in-process S3 server\)
epoch 0: world 4: samples per rank 1500 1500 1500 1500, 12 batches each
epoch 1: world 4: samples per rank 1500 1500 1500 1500, 12 batches each
cache: 4\.6 MiB of at most 256 MiB, shared by the ranks
duplicates: 0 missing: 0 padded: 0
samples/s: \d+ \(12000 samples read in \d+\.\d\d s\)
$`)
	if !want.MatchString(out) {
		t.Errorf("output:\n%s\nwant it to match:\n%s", out, want)
	}
}

// read is one line of -ids.
type read struct{ epoch, world, rank, id int }

// readIDs reads an -ids file.
func readIDs(t *testing.T, path string) []read {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var reads []read
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r read
		if _, err := fmt.Sscanf(sc.Text(), "%d\t%d\t%d\t%d", &r.epoch, &r.world, &r.rank, &r.id); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		reads = append(reads, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return reads
}

// orders returns, per epoch and rank, the ids in the order read.
func orders(reads []read) map[[2]int][]int {
	m := map[[2]int][]int{}
	for _, r := range reads {
		k := [2]int{r.epoch, r.rank}
		m[k] = append(m[k], r.id)
	}
	return m
}

// TestWorldSizesSplitOneOrder runs 1 rank and 8 ranks over 1000 digits:
// every epoch, the 8 ranks read the same set of ids as the single rank,
// and rank r reads the positions r, r+8, r+16, ... of the single rank's
// order, the 8 positions past the end repeating its start (PadShards):
// the split depends only on the seed, the epoch and the world size.
func TestWorldSizesSplitOneOrder(t *testing.T) {
	dir := t.TempDir()
	one, eight := filepath.Join(dir, "one.tsv"), filepath.Join(dir, "eight.tsv")
	out1 := runOK(t, "-limit", "1000", "-shards", "3", "-batch", "32", "-world", "1", "-ids", one)
	out8 := runOK(t, "-limit", "1000", "-shards", "3", "-batch", "32", "-world", "8", "-ids", eight)
	if !strings.Contains(out1, "epoch 1: world 1: samples per rank 1000, 32 batches each\n") ||
		!strings.Contains(out8, "epoch 1: world 8: samples per rank 125 125 125 125 125 125 125 125, 4 batches each\n") ||
		!strings.Contains(out8, "duplicates: 0 missing: 0 padded: 0\n") {
		t.Errorf("outputs:\n%s\n%s", out1, out8)
	}
	o1, o8 := orders(readIDs(t, one)), orders(readIDs(t, eight))
	for e := range 2 {
		order := o1[[2]int{e, 0}]
		if len(order) != 1000 {
			t.Fatalf("epoch %d: world 1 read %d samples", e, len(order))
		}
		if sorted := slices.Sorted(slices.Values(order)); sorted[0] != 0 || sorted[999] != 999 || len(slices.Compact(sorted)) != 1000 {
			t.Errorf("epoch %d: world 1 did not read ids 0..999 once each", e)
		}
		var union []int
		for r := range 8 {
			got := o8[[2]int{e, r}]
			var want []int
			for p := r; p < 1000; p += 8 {
				want = append(want, order[p])
			}
			if !slices.Equal(got, want) {
				t.Errorf("epoch %d rank %d of 8: read %v..., want positions %d, %d, ... of world 1's order %v...",
					e, r, got[:min(5, len(got))], r, r+8, want[:min(5, len(want))])
			}
			union = append(union, got...)
		}
		slices.Sort(union)
		if !slices.Equal(union, slices.Sorted(slices.Values(order))) {
			t.Errorf("epoch %d: the 8 ranks read another set of ids than 1 rank", e)
		}
	}
	if o8[[2]int{0, 0}][0] == o8[[2]int{1, 0}][0] && o8[[2]int{0, 1}][0] == o8[[2]int{1, 1}][0] {
		t.Error("epochs 0 and 1 begin alike: the shuffle did not change with the epoch")
	}
}

// TestEvenDrop gives 7 ranks floor(1000/7) = 142 samples each: the last 6
// positions of every epoch's order go to no rank, and are counted apart.
func TestEvenDrop(t *testing.T) {
	out := runOK(t, "-limit", "1000", "-shards", "4", "-batch", "32", "-world", "7", "-even", "drop")
	for _, line := range []string{
		"epoch 0: world 7: samples per rank 142 142 142 142 142 142 142, 5 batches each\n",
		"epoch 1: world 7: samples per rank 142 142 142 142 142 142 142, 5 batches each\n",
		"duplicates: 0 missing: 0 padded: 0 dropped: 12\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output:\n%s\nwant the line %q", out, line)
		}
	}
	// With padding the same run repeats 1 sample per epoch instead.
	out = runOK(t, "-limit", "1000", "-shards", "4", "-batch", "32", "-world", "7")
	if !strings.Contains(out, "samples per rank 143 143 143 143 143 143 143, 5 batches each\n") ||
		!strings.Contains(out, "duplicates: 0 missing: 0 padded: 2\n") {
		t.Errorf("output:\n%s", out)
	}
}

// TestResumeWithThreeRanks stops 4 ranks half way through epoch 0 and
// finishes with 3 ranks from the checkpoint: over both, every id of epoch
// 0 is read once (the pad aside), and epoch 1 is whole.
func TestResumeWithThreeRanks(t *testing.T) {
	for _, even := range []string{"pad", "drop"} {
		t.Run(even, func(t *testing.T) {
			ids := filepath.Join(t.TempDir(), "ids.tsv")
			out := runOK(t, "-limit", "1000", "-shards", "4", "-batch", "25", "-world", "4", "-resume-world", "3", "-even", even, "-ids", ids)
			lines := []string{
				"epoch 0: world 4: samples per rank 125 125 125 125, 5 batches each, stopped at position 500\n",
				"checkpoint: epoch 0 step 5 of every rank",
			}
			if even == "pad" {
				lines = append(lines,
					"epoch 0: world 3: samples per rank 167 167 167, 7 batches each, resumed at position 500\n",
					"epoch 1: world 3: samples per rank 334 334 334, 14 batches each\n",
					"duplicates: 0 missing: 0 padded: 3\n")
			} else {
				lines = append(lines,
					"epoch 0: world 3: samples per rank 166 166 166, 7 batches each, resumed at position 500\n",
					"epoch 1: world 3: samples per rank 333 333 333, 14 batches each\n",
					"duplicates: 0 missing: 0 padded: 0 dropped: 3\n")
			}
			for _, line := range lines {
				if !strings.Contains(out, line) {
					t.Errorf("output:\n%s\nwant the line %q", out, line)
				}
			}
			seen := map[int]int{}
			for _, r := range readIDs(t, ids) {
				if r.epoch == 0 {
					seen[r.id]++
				}
			}
			once, more := 0, 0
			for id := range 1000 {
				switch {
				case seen[id] == 1:
					once++
				case seen[id] > 1:
					more++
				}
			}
			// Padding repeats 1 id of epoch 0 (3*167 = 501 positions after
			// 500); dropping leaves 500 mod 3 = 2 out.
			if want := map[string][2]int{"pad": {999, 1}, "drop": {998, 0}}[even]; once != want[0] || more != want[1] {
				t.Errorf("epoch 0: %d ids read once, %d more than once; want %d and %d", once, more, want[0], want[1])
			}
		})
	}
}

// TestSmallCache bounds the shared cache below the dataset: shards are
// evicted while the ranks read them, and those that do not fit are read
// from the server by byte ranges; the run is whole all the same.
func TestSmallCache(t *testing.T) {
	out := runOK(t, "-limit", "3000", "-cache-mb", "1", "-batch", "64")
	m := regexp.MustCompile(`cache: (\d+\.\d) MiB of at most 1 MiB`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "duplicates: 0 missing: 0 padded: 0\n") {
		t.Fatalf("output:\n%s", out)
	}
	if used, _ := strconv.ParseFloat(m[1], 64); used > 1 {
		t.Errorf("the cache holds %s MiB, over its bound", m[1])
	}
}

// TestS3Endpoint points -s3 at an S3 server outside the program (gofakes3
// on 127.0.0.1, as MinIO would be) with credentials from the environment:
// the shards land in its bucket under the URL's prefix.
func TestS3Endpoint(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	out := runOK(t, "-s3", srv.URL+"/data/runs/a", "-limit", "500", "-shards", "2", "-world", "2", "-batch", "50")
	if !strings.Contains(out, "in s3://data/runs/a/train-*-of-00002.rec on "+srv.URL+"\n") ||
		!strings.Contains(out, "duplicates: 0 missing: 0 padded: 0\n") {
		t.Errorf("output:\n%s", out)
	}
	list, err := backend.ListBucket("data", &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range list.Contents {
		keys = append(keys, o.Key)
	}
	want := []string{"runs/a/train-00000-of-00002.idx", "runs/a/train-00000-of-00002.rec", "runs/a/train-00001-of-00002.idx", "runs/a/train-00001-of-00002.rec"}
	if !slices.Equal(keys, want) {
		t.Errorf("bucket holds %v, want %v", keys, want)
	}

	// A bucket that does not exist: exit status 1 and an error naming it.
	code, _, stderr := clitest.Run(t, "-s3", srv.URL+"/nope", "-limit", "10", "-shards", "1")
	if code != 1 || !strings.Contains(stderr, "nope") {
		t.Errorf("missing bucket: exit status %d, stderr:\n%s", code, stderr)
	}
}

// TestBadFlagsPrintUsage runs the program with bad flags: each must end
// with exit status 2, a message naming the flag and the usage, never a
// panic.
func TestBadFlagsPrintUsage(t *testing.T) {
	clitest.CheckBadFlags(t, []clitest.BadFlags{
		{Name: "shards 0", Args: []string{"-shards", "0"}, Msg: "-shards"},
		{Name: "world 0", Args: []string{"-world", "0"}, Msg: "-world"},
		{Name: "epochs 0", Args: []string{"-epochs", "0"}, Msg: "-epochs"},
		{Name: "batch 0", Args: []string{"-batch", "0"}, Msg: "-batch"},
		{Name: "even", Args: []string{"-even", "round"}, Msg: "-even"},
		{Name: "limit -1", Args: []string{"-limit", "-1"}, Msg: "-limit"},
		{Name: "more shards than samples", Args: []string{"-limit", "3", "-shards", "4"}, Msg: "-shards"},
		{Name: "resume-world -1", Args: []string{"-resume-world", "-1"}, Msg: "-resume-world"},
		{Name: "prefetch -1", Args: []string{"-prefetch", "-1"}, Msg: "-prefetch"},
		{Name: "cache-mb 0", Args: []string{"-cache-mb", "0"}, Msg: "-cache-mb"},
		{Name: "s3 scheme", Args: []string{"-s3", "s3://bucket"}, Msg: "-s3"},
		{Name: "s3 no bucket", Args: []string{"-s3", "http://127.0.0.1:9000"}, Msg: "-s3"},
		{Name: "argument", Args: []string{"extra"}, Msg: "unexpected argument"},
		{Name: "unknown flag", Args: []string{"-nope"}, Msg: "-nope"},
	})
}
