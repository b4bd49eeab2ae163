// Command bench prints tensorfeed's performance table.
//
// Every row is measured in one run against two references on the same data:
// the plain Go loop a user would write by hand for the same work, and the
// memory floor (copying the same output bytes). The ratios to them are the
// figures that travel between machines; absolute numbers do not.
//
//	go run ./bench                      # short run, Markdown table on stdout
//	go run ./bench -long                # more repetitions, larger files
//	go run ./bench -json out.json       # also write the rows as JSON
//	go run ./bench -only imagerec       # rows whose name starts with a prefix
//	go run ./bench -cpuprofile cpu.out  # profile the whole run (go tool pprof)
//	go run ./bench -threads 1,2,4,8     # thread counts of the scaling rows
//	go run ./bench -decoder go          # imagerec rows for one decoder only
//	go run -tags turbojpeg ./bench      # imagerec rows for libjpeg-turbo too
//
// The pipeline and its plain loop are run in alternation (see measureEach),
// and each keeps its fastest run. "x plain" compares wall times; "x plain
// CPU" compares the CPU time the process used, which other processes on a
// shared machine disturb less (but which counts every goroutine, so it does
// not show what parallelism saves).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Row is one line of the table.
type Row struct {
	Name            string  `json:"name"`
	Variant         string  `json:"variant,omitempty"`
	Decoder         string  `json:"decoder,omitempty"`
	Threads         int     `json:"threads"`
	Samples         int     `json:"samples"`
	SamplesPerSec   float64 `json:"samples_per_sec"`
	MBPerSec        float64 `json:"mb_per_sec"`
	NsPerSample     float64 `json:"ns_per_sample"`
	AllocsPerSample float64 `json:"allocs_per_sample"`
	PeakMB          float64 `json:"peak_mb"`
	// PeakRSSMB is the most memory the process held resident (VmHWM) while
	// the row's pipeline ran once, in a child process that runs only its
	// workload: what a training job would see. MemFloorMB is the least a
	// loader of the row's data must hold (MNIST: the decoded data set;
	// image pipeline: 64 MiB + prefetch x batch bytes) and MemRatio the
	// first over the second. Zero where a row does not measure them.
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	MemFloorMB    float64 `json:"mem_floor_mb"`
	MemRatio      float64 `json:"mem_ratio"`
	PlainRatio    float64 `json:"plain_ratio"`
	PlainCPURatio float64 `json:"plain_cpu_ratio"`
	FloorRatio    float64 `json:"floor_ratio"`
	Note          string  `json:"note,omitempty"`
}

// cheapReps is the number of repetitions for a workload whose passes take
// a fraction of a second: more of them make the fastest run more stable.
func (c config) cheapReps() int {
	if c.tiny {
		return c.reps
	}
	return 2 * c.reps
}

// size picks a workload's size: short for the default run, long for
// -long, tiny for the bench's own tests.
func (c config) size(short, long, tiny int) int {
	switch {
	case c.tiny:
		return tiny
	case c.long:
		return long
	}
	return short
}

// config is what every workload is given.
type config struct {
	reps    int    // timed repetitions; the fastest counts
	long    bool   // larger inputs
	tiny    bool   // the smallest inputs that exercise the code (tests)
	dataDir string // the shared data directory (imagerec photos)
	repo    string // the repository root (MNIST files)
	// threads are the thread counts of the rows that scale with them
	// (mnist-epoch, imagerec-decode, imagerec-pipeline); empty means 1, 2.
	threads []int
	// decoder, when not empty, is the one decoder of the imagerec-decode
	// and imagerec-pipeline rows.
	decoder string
}

// checkDecoder rejects a -decoder this binary does not hold.
func checkDecoder(name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, d := range imagerecDecoders() {
		if d.Name() == name {
			return nil
		}
		names = append(names, d.Name())
	}
	return fmt.Errorf("invalid value %q for -decoder: this binary holds %s (build with -tags turbojpeg for libjpeg-turbo)",
		name, strings.Join(names, ", "))
}

// threadCounts returns the thread counts of the scaling rows, in the order
// given to -threads.
func (c config) threadCounts() []int {
	if len(c.threads) == 0 {
		return defaultThreads
	}
	return c.threads
}

// defaultThreads are the thread counts of the scaling rows without
// -threads: what every machine has.
var defaultThreads = []int{1, 2}

// parseThreads parses the value of -threads: distinct positive counts
// separated by commas.
func parseThreads(v string) ([]int, error) {
	var ts []int
	for f := range strings.SplitSeq(v, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || t < 1 {
			return nil, fmt.Errorf("invalid value %q for -threads: %q is not a positive thread count", v, f)
		}
		if slices.Contains(ts, t) {
			return nil, fmt.Errorf("invalid value %q for -threads: %d is there twice", v, t)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// formatThreads is the inverse of parseThreads.
func formatThreads(ts []int) string {
	fs := make([]string, len(ts))
	for i, t := range ts {
		fs[i] = strconv.Itoa(t)
	}
	return strings.Join(fs, ",")
}

// workload measures one group of rows.
type workload struct {
	name string
	run  func(cfg config) ([]Row, error)
}

// workloads lists every group in table order.
var workloads = []workload{
	{"mnist-epoch", onMNIST(mnistOut, mnistEpoch)},
	{"mnist-epoch-", onMNIST(mnistOut, mnistAutoRows)}, // the Auto rows (auto.go)
	{"gan-compose", onMNIST(ganOut, ganCompose)},
	{"stage-", stageOverheads},
	{"csv", csvRows},
	{"parquet", parquetRows},
	{"recordio", recordioRead},
	{"recordio-s3", s3Rows},
	{"tfrecord", tfrecordRows},
	{"webdataset", webdatasetRows},
	{"imagerec", imagerecRows},
	{"imagerec-s3", imagerecS3Rows},
}

func main() {
	serveS3Child() // exits when this process is an s3 rows' server
	long := flag.Bool("long", false, "longer run: more repetitions and larger generated files")
	jsonPath := flag.String("json", "", "also write the rows as a JSON array to this file")
	dataDir := flag.String("data", "../shared/data", "the shared data directory (imagerec/bench/photos_1536.rec)")
	only := flag.String("only", "", "run only the workloads whose name starts with this prefix")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	inProcess := flag.Bool("inprocess", false, "run every workload in this process instead of one child process each "+
		"(the peak RSS column then includes what earlier workloads left behind)")
	child := flag.String("child", "", "internal: run the one workload of this name and write its rows as JSON to -child-out")
	childOut := flag.String("child-out", "", "internal: where -child writes its rows")
	threadsFlag := flag.String("threads", formatThreads(defaultThreads),
		"thread counts of the mnist-epoch, imagerec-decode and imagerec-pipeline rows, separated by commas")
	decoder := flag.String("decoder", "", "run the imagerec-decode and imagerec-pipeline rows with this decoder only (go, turbojpeg)")
	flag.Parse()
	threads, err := parseThreads(*threadsFlag)
	if err == nil {
		err = checkDecoder(*decoder)
	}
	if err == nil {
		err = checkFlags(*only, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(flag.CommandLine.Output(), "bench:", err)
		flag.Usage()
		os.Exit(2)
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}

	cfg := config{reps: 3, long: *long, dataDir: *dataDir, repo: ".", threads: threads, decoder: *decoder}
	if *long {
		cfg.reps = 7
	}
	if *child != "" {
		os.Exit(runChild(cfg, *child, *childOut))
	}
	// A child process per workload gives each its own peak RSS. Under
	// the test binary (clitest), which cannot be started again with
	// these flags, everything runs in this process.
	_, underTest := os.LookupEnv("TENSORFEED_EXAMPLE_MAIN_ARGS")
	separate := !*inProcess && !underTest && *cpuProfile == ""
	var rows []Row
	for _, w := range workloads {
		if !selected(w.name, *only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "measuring %s...\n", w.name)
		var rs []Row
		var err error
		if separate {
			rs, err = runInChild(w.name, cfg)
		} else {
			rs, err = w.run(cfg)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", w.name, err)
			pprof.StopCPUProfile()
			os.Exit(1)
		}
		rows = append(rows, rs...)
	}
	printTable(os.Stdout, rows)
	if *jsonPath != "" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // notes hold "->"
		enc.SetIndent("", "  ")
		err := enc.Encode(rows)
		if err == nil {
			err = os.WriteFile(*jsonPath, buf.Bytes(), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

// runInChild runs one workload in a new process of this program (-child)
// and returns its rows.
func runInChild(name string, cfg config) ([]Row, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	out, err := os.CreateTemp("", "tensorfeed-bench-rows-*.json")
	if err != nil {
		return nil, err
	}
	out.Close()
	defer os.Remove(out.Name())
	cmd := exec.Command(exe, "-child", name, "-child-out", out.Name(), "-data", cfg.dataDir,
		"-long="+strconv.FormatBool(cfg.long), "-threads", formatThreads(cfg.threadCounts()), "-decoder", cfg.decoder)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("child process: %w", err)
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		return nil, err
	}
	var rows []Row
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("child process: %w", err)
	}
	return rows, nil
}

// runChild is the child of runInChild: it runs the workload named name
// and writes its rows to path. It returns the exit status.
func runChild(cfg config, name, path string) int {
	for _, w := range workloads {
		if w.name != name {
			continue
		}
		rows, err := w.run(cfg)
		if err == nil {
			var b []byte
			if b, err = json.Marshal(rows); err == nil {
				err = os.WriteFile(path, b, 0o644)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", name, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "bench: no workload %q\n", name)
	return 2
}

// checkFlags rejects what would otherwise run nothing without a word: an
// -only prefix that selects no workload, and arguments after the flags.
func checkFlags(only string, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q", args[0])
	}
	if only == "" {
		return nil
	}
	var names []string
	for _, w := range workloads {
		if selected(w.name, only) {
			return nil
		}
		names = append(names, w.name)
	}
	return fmt.Errorf("invalid value %q for -only: no workload starts with it (workloads: %s)", only, strings.Join(names, ", "))
}

// selected reports whether the workload name is run under -only prefix
// only: the prefix starts the workload's name, or names one of its rows
// (starts with the name) and no workload of a longer name, so that
// "imagerec-s3-cold" runs imagerec-s3 and not imagerec as well.
func selected(name, only string) bool {
	if only == "" || strings.HasPrefix(name, only) {
		return true
	}
	if !strings.HasPrefix(only, name) {
		return false
	}
	for _, w := range workloads {
		if len(w.name) > len(name) && (strings.HasPrefix(only, w.name) || strings.HasPrefix(w.name, only)) {
			return false
		}
	}
	return true
}

// newRow fills the derived columns of a row from its measurements: the
// pipeline's run, the plain loop's and the memory floor's (either reference
// may be zero when the row has none), the samples and output bytes per run.
func newRow(name string, threads, samples int, outBytes int64, r, plain, floor run) Row {
	secs := r.elapsed.Seconds()
	row := Row{
		Name:            name,
		Threads:         threads,
		Samples:         samples,
		SamplesPerSec:   float64(samples) / secs,
		MBPerSec:        float64(outBytes) / 1e6 / secs,
		NsPerSample:     float64(r.elapsed.Nanoseconds()) / float64(samples),
		AllocsPerSample: float64(r.mallocs) / float64(samples),
		PeakMB:          float64(r.peak) / 1e6,
	}
	if plain.elapsed > 0 {
		row.PlainRatio = secs / plain.elapsed.Seconds()
	}
	if plain.cpu > 0 && r.cpu > 0 {
		row.PlainCPURatio = r.cpu.Seconds() / plain.cpu.Seconds()
	}
	if floor.elapsed > 0 {
		row.FloorRatio = secs / floor.elapsed.Seconds()
	}
	return row
}

func printTable(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "%s, %d CPUs, %s, %s\n\n", runtime.Version(), runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintln(w, "| name | variant | decoder | threads | samples/s | MB/s | ns/sample | allocs/sample | peak heap MB | peak RSS MB | x plain | x plain CPU | x floor | x mem floor | note |")
	fmt.Fprintln(w, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %s | %.3f | %.1f | %s | %s | %s | %s | %s | %s |\n",
			r.Name, r.Variant, r.Decoder, r.Threads, num(r.SamplesPerSec), num(r.MBPerSec), num(r.NsPerSample),
			r.AllocsPerSample, r.PeakMB, num(r.PeakRSSMB), ratio(r.PlainRatio), ratio(r.PlainCPURatio), ratio(r.FloorRatio),
			ratio(r.MemRatio), r.Note)
	}
}

func num(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func ratio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}
