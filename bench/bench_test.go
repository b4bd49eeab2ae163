package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/testkit/clitest"
	"go.uber.org/goleak"
)

// tinyConfig runs every workload once on the smallest inputs. The data
// directory is the shared one when it exists (next to the repository).
func tinyConfig() config {
	return config{reps: 1, tiny: true, dataDir: filepath.Join("..", "..", "shared", "data"), repo: ".."}
}

// validName reports whether name is one of the row names the table may
// hold.
func validName(name string) bool {
	switch name {
	case "mnist-epoch", "gan-compose", "csv", "parquet", "recordio", "recordio-s3-cold", "recordio-s3-warm", "tfrecord", "webdataset", "imagerec-decode", "imagerec-pipeline", "imagerec-s3-cold", "imagerec-s3-warm":
		return true
	}
	return strings.HasPrefix(name, "stage-") && len(name) > len("stage-")
}

// TestWorkloads runs each workload on tiny inputs and checks the rows and
// their JSON form. It asserts nothing about speed.
func TestWorkloads(t *testing.T) {
	cfg := tinyConfig()
	var all []Row
	for _, w := range workloads {
		t.Run(strings.TrimSuffix(w.name, "-"), func(t *testing.T) {
			rows, err := w.run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 {
				t.Fatal("no rows")
			}
			for _, r := range rows {
				checkRow(t, w.name, r)
			}
			all = append(all, rows...)
		})
	}

	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(b, &objs); err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(all) {
		t.Fatalf("%d JSON objects for %d rows", len(objs), len(all))
	}
	for i, o := range objs {
		for _, k := range []string{"name", "threads", "samples_per_sec", "mb_per_sec", "allocs_per_sample",
			"plain_ratio", "floor_ratio"} {
			if _, ok := o[k]; !ok {
				t.Errorf("row %d (%v): no %q in %s", i, o["name"], k, b)
			}
		}
		if strings.HasPrefix(o["name"].(string), "imagerec") {
			if d, _ := o["decoder"].(string); d == "" {
				t.Errorf("row %d (%v): no decoder", i, o["name"])
			}
		}
	}

	var md bytes.Buffer
	printTable(&md, all)
	if got, want := strings.Count(md.String(), "\n| "), len(all)+1; got != want {
		t.Errorf("table has %d rows, want %d (with the header):\n%s", got, want, md.String())
	}
}

// TestThreads checks that -threads sets the thread counts of the scaling
// rows, in the order given, that the pipelines with more threads than two
// agree with their plain loops (the workloads fail when the checksums
// differ), and that -decoder keeps one decoder's rows.
func TestThreads(t *testing.T) {
	ts, err := parseThreads("1,3,16")
	if err != nil || !slices.Equal(ts, []int{1, 3, 16}) {
		t.Fatalf("parseThreads(1,3,16) = %v, %v", ts, err)
	}
	if got := formatThreads(ts); got != "1,3,16" {
		t.Errorf("formatThreads(%v) = %q", ts, got)
	}
	for _, bad := range []string{"", "0", "1,,2", "-2", "two", "4,4"} {
		if ts, err := parseThreads(bad); err == nil {
			t.Errorf("parseThreads(%q) = %v, want an error", bad, ts)
		}
	}

	cfg := tinyConfig()
	cfg.threads = []int{3, 1}
	for _, w := range []struct {
		name string
		run  func(config) ([]Row, error)
	}{{"mnist-epoch", onMNIST(mnistOut, mnistEpoch)}, {"imagerec", imagerecRows}} {
		rows, err := w.run(cfg)
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		var got []string
		for _, r := range rows {
			checkRow(t, w.name, r)
			row := fmt.Sprint(r.Name, "/", r.Decoder, "/", r.Threads)
			if r.Variant != "" {
				row += "/" + r.Variant
			}
			got = append(got, row)
		}
		var want []string
		if w.name == "mnist-epoch" {
			want = []string{"mnist-epoch//3", "mnist-epoch//1"}
		} else {
			for _, name := range []string{"imagerec-decode", "imagerec-pipeline"} {
				for _, d := range imagerecDecoders() {
					want = append(want, fmt.Sprint(name, "/", d.Name(), "/3"), fmt.Sprint(name, "/", d.Name(), "/1"))
				}
			}
			// One auto row per decoder, on every core.
			for _, d := range imagerecDecoders() {
				want = append(want, fmt.Sprint("imagerec-pipeline/", d.Name(), "/", runtime.GOMAXPROCS(0), "/auto"))
			}
			slices.Sort(got)
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s with threads %v: rows %v, want %v", w.name, cfg.threads, got, want)
		}
	}

	// -decoder keeps the imagerec rows of one decoder.
	cfg.threads, cfg.decoder = []int{2}, "go"
	rows, err := imagerecRows(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r.Name, "/", r.Decoder, "/", r.Threads))
	}
	if want := []string{"imagerec-decode/go/2", "imagerec-pipeline/go/2", "imagerec-pipeline/go/" + fmt.Sprint(runtime.GOMAXPROCS(0))}; !slices.Equal(got, want) {
		t.Errorf("imagerec with decoder go: rows %v, want %v", got, want)
	}
}

// checkRow checks the fields of one row of workload w.
func checkRow(t *testing.T, w string, r Row) {
	t.Helper()
	if !validName(r.Name) || !strings.HasPrefix(r.Name, strings.TrimSuffix(w, "-")) {
		t.Errorf("workload %s: row named %q", w, r.Name)
	}
	if r.Threads < 1 {
		t.Errorf("%s: threads %d", r.Name, r.Threads)
	}
	if r.Samples == 0 { // a row whose data is missing says so
		if r.Note == "" || r.SamplesPerSec != 0 {
			t.Errorf("%s: no samples, note %q, %v samples/s", r.Name, r.Note, r.SamplesPerSec)
		}
		return
	}
	for k, v := range map[string]float64{"samples/s": r.SamplesPerSec, "MB/s": r.MBPerSec,
		"ns/sample": r.NsPerSample, "x plain": r.PlainRatio, "x floor": r.FloorRatio} {
		if !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("%s (%s, %d threads): %s = %v", r.Name, r.Variant, r.Threads, k, v)
		}
	}
	if r.AllocsPerSample < 0 || math.IsNaN(r.AllocsPerSample) {
		t.Errorf("%s: allocs/sample %v", r.Name, r.AllocsPerSample)
	}
}

// TestMain checks that the workloads leave no goroutine and no temporary
// file behind: every workload removes what it creates.
func TestMain(m *testing.M) {
	serveS3Child()
	clitest.RunIfChild("bench", main)
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "tensorfeed-bench-*"))
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "tensorfeed-bench-*"))
	if code == 0 && len(after) > len(before) {
		fmt.Fprintf(os.Stderr, "temporary files left behind: %v\n", after)
		code = 1
	}
	os.Exit(code)
}

// TestBadFlagsPrintUsage checks that flags that would run nothing end the
// program with exit status 2 and the usage, before any measurement.
func TestBadFlagsPrintUsage(t *testing.T) {
	clitest.CheckBadFlags(t, []clitest.BadFlags{
		{Name: "unknown workload", Args: []string{"-only", "nosuch"}, Msg: `-only`},
		{Name: "argument", Args: []string{"mnist"}, Msg: `unexpected argument "mnist"`},
		{Name: "unknown flag", Args: []string{"-fast"}, Msg: `-fast`},
		{Name: "zero threads", Args: []string{"-threads", "1,0"}, Msg: `-threads`},
		{Name: "threads twice", Args: []string{"-threads", "2,2"}, Msg: `-threads`},
		{Name: "unknown decoder", Args: []string{"-decoder", "nosuch"}, Msg: `-decoder`},
	})
}

// -only runs the workloads whose names it starts, or the one whose rows it
// names: the most specific, so a row of imagerec-s3 does not run imagerec.
func TestOnlySelects(t *testing.T) {
	for only, want := range map[string][]string{
		"imagerec":          {"imagerec", "imagerec-s3"},
		"imagerec-pipeline": {"imagerec"},
		"imagerec-s3":       {"imagerec-s3"},
		"imagerec-s3-cold":  {"imagerec-s3"},
		"recordio-s3-warm":  {"recordio-s3"},
		"recordio-indexed":  {"recordio"},
		"mnist-epoch":       {"mnist-epoch", "mnist-epoch-"},
		"stage-map":         {"stage-"},
	} {
		var got []string
		for _, w := range workloads {
			if selected(w.name, only) {
				got = append(got, w.name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("-only %q runs %v, want %v", only, got, want)
		}
	}
}

// The benchmarks below run single rows under go test, for profiling:
//
//	go test ./bench -run '^$' -bench MNIST -cpuprofile cpu.out

func BenchmarkMNISTEpoch(b *testing.B) {
	f, err := prepareMNIST(config{repo: "..", reps: 1}, mnistOut)
	if err != nil {
		b.Fatal(err)
	}
	defer f.remove()
	data, err := loadMNIST(f)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range mnistVariants(defaultThreads) {
		p := newMNISTPipeline(f, v)
		threads := v.threads
		plain, plainName := func() (uint64, error) { return mnistBest(data, threads) }, "best"
		if v.naive {
			plain, plainName = func() (uint64, error) { return mnistPlain(f, threads) }, "streaming"
		}
		b.Run(fmt.Sprintf("pipeline/threads=%d/%s", threads, v.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.epoch(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.n), "ns/sample")
		})
		b.Run(fmt.Sprintf("plain/threads=%d/%s", threads, plainName), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := plain(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.n), "ns/sample")
		})
	}
}
