package source_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/samber/lo"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

var errBoom = errors.New("boom")

// tagged is a sample that says which reader yielded it, and where.
type tagged struct{ reader, index int }

// taggedReader yields n samples tagged with id.
func taggedReader(id, n int) source.Reader[tagged] {
	return source.Func[tagged](func(ctx context.Context) iter.Seq2[tagged, error] {
		return func(yield func(tagged, error) bool) {
			for i := range n {
				if !yield(tagged{id, i}, nil) {
					return
				}
			}
		}
	})
}

// checkTagged checks that got holds every sample of readers with the given
// lengths exactly once, each reader's in its own order.
func checkTagged(t *testing.T, got []tagged, lens []int) {
	t.Helper()
	next := make([]int, len(lens))
	for _, s := range got {
		if s.reader < 0 || s.reader >= len(lens) || s.index != next[s.reader] {
			t.Fatalf("sample %+v out of order (reader's next is %v)", s, next)
		}
		next[s.reader]++
	}
	if !slices.Equal(next, lens) {
		t.Fatalf("got %v samples per reader, want %v", next, lens)
	}
}

func TestConcurrentYieldsEverySampleOnce(t *testing.T) {
	lens := []int{0, 1, 100, 5000, 37}
	var readers []source.Reader[tagged]
	for id, n := range lens {
		readers = append(readers, taggedReader(id, n))
	}
	for _, buffer := range []int{1, 3, 64, 10000} {
		t.Run(fmt.Sprint("buffer=", buffer), func(t *testing.T) {
			r := source.Concurrent(readers, buffer)
			for range 2 {
				got, errs := fixture.Drain(context.Background(), r)
				if len(errs) != 0 {
					t.Fatal(errs)
				}
				checkTagged(t, got, lens)
			}
		})
	}
}

func TestConcurrentOneReaderKeepsOrder(t *testing.T) {
	got, errs := fixture.Drain(context.Background(), source.Concurrent([]source.Reader[tagged]{taggedReader(0, 3000)}, 5))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	checkTagged(t, got, []int{3000})
}

func TestConcurrentKeepsItsOwnReaders(t *testing.T) {
	readers := []source.Reader[tagged]{taggedReader(0, 2), taggedReader(1, 3)}
	r := source.Concurrent(readers, 4)
	readers[0] = taggedReader(0, 50) // the caller's slice is not the reader's
	got, _ := fixture.Drain(context.Background(), r)
	checkTagged(t, got, []int{2, 3})
}

func TestConcurrentNoReaders(t *testing.T) {
	got, errs := fixture.Drain(context.Background(), source.Concurrent[int](nil, 1))
	if len(got) != 0 || len(errs) != 0 {
		t.Fatalf("got %v, %v; want an empty pass", got, errs)
	}
}

func TestConcurrentErrorStopsOthers(t *testing.T) {
	readers := []source.Reader[int]{fixture.Endless(nil), sourcetest.FailAfter(fixture.Count(10), 10, errBoom), fixture.Endless(nil)}
	for _, buffer := range []int{1, 16} {
		_, errs := fixture.Drain(context.Background(), source.Concurrent(readers, buffer))
		if len(errs) != 1 || !errors.Is(errs[0], errBoom) {
			t.Fatalf("buffer=%d: errors = %v, want one errBoom", buffer, errs)
		}
	}
}

func TestConcurrentSamplesBeforeErrorArrive(t *testing.T) {
	got, errs := fixture.Drain(context.Background(), source.Concurrent([]source.Reader[int]{sourcetest.FailAfter(fixture.Count(100), 100, errBoom)}, 7))
	if len(errs) != 1 || !errors.Is(errs[0], errBoom) || !slices.Equal(got, lo.Range(100)) {
		t.Fatalf("got %d samples and %v; want 0..99, then errBoom", len(got), errs)
	}
}

func TestConcurrentPanicBecomesPanicError(t *testing.T) {
	bad := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			yield(1, nil)
			panic("reader broke")
		}
	})
	_, errs := fixture.Drain(context.Background(), source.Concurrent([]source.Reader[int]{fixture.Endless(nil), bad}, 4))
	var pe *tensorfeed.PanicError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Value != "reader broke" || len(pe.Stack) == 0 {
		t.Fatalf("errors = %v, want one PanicError with a stack", errs)
	}
}

func TestConcurrentEarlyBreakBoundsReadAhead(t *testing.T) {
	var read atomic.Int64
	const buffer, readers = 8, 3
	r := source.Concurrent([]source.Reader[int]{fixture.Endless(&read), fixture.Endless(&read), fixture.Endless(&read)}, buffer)
	for pass := range 3 {
		n := 0
		for _, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if n == 100 {
				break
			}
		}
		// buffer waiting, up to buffer in the consumer's block, and one
		// held by each reader while it waits for room.
		if got := read.Swap(0); got > 100+2*buffer+readers {
			t.Fatalf("pass %d: read %d samples for 100 consumed", pass, got)
		}
	}
}

func TestConcurrentCancelWhileRanging(t *testing.T) {
	// Cancelled after 500 samples, the readers are blocked on the full buffer.
	sourcetest.CancelAfter(t, source.Concurrent([]source.Reader[int]{fixture.Endless(nil), fixture.Endless(nil)}, 4), 500)
}

// TestConcurrentCancelStopsWithinABlock: a pass cancelled while the buffer
// is full stops within 256 samples, not after the whole block of ready
// samples it took.
func TestConcurrentCancelStopsWithinABlock(t *testing.T) {
	var produced atomic.Int64
	up := source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			for i := 0; ; i++ {
				produced.Add(1)
				if !yield(i, nil) {
					return
				}
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	after, cancelled := 0, false
	for _, err := range source.Concurrent([]source.Reader[int]{up}, 10000).All(ctx) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			continue
		}
		if cancelled {
			after++
			continue
		}
		for produced.Load() < 10000 { // let the producer fill the buffer
			runtime.Gosched()
		}
		cancel()
		cancelled = true
	}
	if after > 256 {
		t.Fatalf("%d samples after the cancel, want at most 256", after)
	}
}

func TestConcurrentCancelWhileConsumerWaits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := 0
	for _, err := range source.Concurrent([]source.Reader[int]{fixture.Stalling(2), fixture.Stalling(3)}, 8).All(ctx) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			continue
		}
		got++
		if got == 5 {
			go cancel() // both readers stall: the consumer waits
		}
	}
	if got != 5 {
		t.Fatalf("got %d samples, want 5", got)
	}
}

func TestConcurrentDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, errs := fixture.Drain(ctx, source.Concurrent([]source.Reader[int]{fixture.Endless(nil)}, 2))
	if len(errs) != 1 || !errors.Is(errs[0], context.DeadlineExceeded) {
		t.Fatalf("errors = %v, want one DeadlineExceeded", errs)
	}
}

// errLine is the sentinel of the line reader below.
var errLine = errors.New("lines: bad line")

// lineReader reads the lines of a text file; the file is opened when a pass
// starts. A line "bad" is an error that gives the line number, not the path.
func lineReader(path string) source.Reader[string] {
	return source.Func[string](func(ctx context.Context) iter.Seq2[string, error] {
		f, err := os.Open(path)
		if err != nil {
			return source.Fail[string](err)
		}
		return func(yield func(string, error) bool) {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for line := 1; sc.Scan(); line++ {
				if sc.Text() == "bad" {
					yield("", fmt.Errorf("line %d: %w", line, errLine))
					return
				}
				if !yield(sc.Text(), nil) {
					return
				}
			}
			if err := sc.Err(); err != nil {
				yield("", err)
			}
		}
	})
}

// writeFiles writes files named f0.txt, f1.txt, ... with the given lines.
func writeFiles(t *testing.T, files ...[]string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, lines := range files {
		p := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func linesOf(file, n int) []string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("%d:%d", file, i))
	}
	return s
}

func TestFilesReadsEveryFile(t *testing.T) {
	lens := []int{3, 0, 500, 1, 70}
	var files [][]string
	var want []string
	for i, n := range lens {
		files = append(files, linesOf(i, n))
		want = append(want, linesOf(i, n)...)
	}
	paths := writeFiles(t, files...)
	for _, workers := range []int{1, 2, 5, 32} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			r := source.Files(paths, workers, lineReader, 4)
			for range 2 {
				got, errs := fixture.Drain(context.Background(), r)
				if len(errs) != 0 {
					t.Fatal(errs)
				}
				if workers == 1 {
					if !slices.Equal(got, want) {
						t.Fatalf("one worker: got %v..., want the files in order", got[:min(5, len(got))])
					}
					continue
				}
				var parsed []tagged
				for _, s := range got {
					var f, i int
					if _, err := fmt.Sscanf(s, "%d:%d", &f, &i); err != nil {
						t.Fatal(err)
					}
					parsed = append(parsed, tagged{f, i})
				}
				checkTagged(t, parsed, lens)
			}
		})
	}
}

func TestFilesErrorsNameTheFile(t *testing.T) {
	paths := writeFiles(t, linesOf(0, 50), []string{"a", "b", "bad", "c"}, linesOf(2, 50))
	missing := filepath.Join(filepath.Dir(paths[0]), "missing.txt")
	for _, workers := range []int{1, 3} {
		_, errs := fixture.Drain(context.Background(), source.Files(paths, workers, lineReader, 2))
		if len(errs) != 1 || !errors.Is(errs[0], errLine) {
			t.Fatalf("errors = %v, want one errLine", errs)
		}
		if msg := errs[0].Error(); !strings.Contains(msg, paths[1]) || !strings.Contains(msg, "line 3") {
			t.Fatalf("error %q does not say which file and line", msg)
		}

		_, errs = fixture.Drain(context.Background(), source.Files([]string{paths[0], missing}, workers, lineReader, 2))
		if len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) {
			t.Fatalf("errors = %v, want one ErrNotExist", errs)
		}
		if msg := errs[0].Error(); strings.Count(msg, missing) != 1 {
			t.Fatalf("error %q should name the file once", msg)
		}
	}
}

func TestFilesNamesTheFile(t *testing.T) {
	fail := func(err error) source.Reader[int] { return sourcetest.FailAfter(fixture.Count(2), 2, err) }
	open := func(path string) source.Reader[int] {
		switch path {
		case "plain":
			return fail(errBoom)
		case "named":
			return fail(fmt.Errorf("decode: %w", &tensorfeed.Error{Path: "named", Offset: 12, Record: -1, Err: errBoom}))
		case "positioned":
			// a *tensorfeed.Error names the file at fault, this one or not
			return fail(fmt.Errorf("seam: %w", &tensorfeed.Error{Path: "next", Offset: 0, Record: -1, Err: errBoom}))
		case "unnamed":
			// a position without a file: Files names the file
			return fail(&tensorfeed.Error{Offset: 8, Record: -1, Err: errBoom})
		}
		return fail(&tensorfeed.Error{Path: path, Offset: -1, Record: -1, Err: errBoom})
	}
	for _, tc := range []struct {
		path    string
		wrapped bool
	}{{"plain", true}, {"named", false}, {"already", false}, {"positioned", false}, {"unnamed", true}} {
		_, errs := fixture.Drain(context.Background(), source.Files([]string{tc.path}, 1, open, 4))
		if len(errs) != 1 {
			t.Fatalf("%s: errors = %v, want one", tc.path, errs)
		}
		var fe *tensorfeed.Error
		isFE := errors.As(errs[0], &fe)
		if tc.wrapped && (!isFE || fe.Path != tc.path || fe != errs[0] || fe.Offset != -1 || fe.Record != -1) {
			t.Errorf("%s: error %v, want a *tensorfeed.Error for the file", tc.path, errs[0])
		}
		if !tc.wrapped && isFE && fe == errs[0] && tc.path != "already" && tc.path != "positioned" {
			t.Errorf("%s: error %v wrapped again", tc.path, errs[0])
		}
		name := tc.path
		if tc.path == "positioned" {
			name = "next"
			if !isFE || fe.Path != "next" || fe.Offset != 0 {
				t.Errorf("%s: error %v, want the reader's *tensorfeed.Error for next", tc.path, errs[0])
			}
		}
		if n := strings.Count(errs[0].Error(), name); n != 1 {
			t.Errorf("%s: error %q names the file %d times, want once", tc.path, errs[0], n)
		}
	}
}

func TestFilesStopsOtherWorkersOnError(t *testing.T) {
	open := func(path string) source.Reader[int] {
		if path == "bad" {
			return sourcetest.FailAfter(fixture.Count(3), 3, errBoom)
		}
		return fixture.Endless(nil)
	}
	_, errs := fixture.Drain(context.Background(), source.Files([]string{"a", "bad", "c"}, 3, open, 4))
	if len(errs) != 1 || !errors.Is(errs[0], errBoom) || !strings.Contains(errs[0].Error(), "bad") {
		t.Fatalf("errors = %v, want one errBoom naming the file", errs)
	}
}

func TestFilesPassesTheEpoch(t *testing.T) {
	open := func(string) source.Reader[int] {
		return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
			return func(yield func(int, error) bool) {
				yield(fixture.EpochOf(ctx), nil)
			}
		})
	}
	r := source.Files([]string{"a", "b"}, 2, open, 1)
	for pass := range 3 {
		got, _ := fixture.Drain(context.Background(), r)
		if !slices.Equal(got, []int{pass, pass}) {
			t.Fatalf("pass %d: file readers saw epochs %v", pass, got)
		}
	}
	got, _ := fixture.Drain(source.WithEpoch(context.Background(), 7), r)
	if !slices.Equal(got, []int{7, 7}) {
		t.Fatalf("with WithEpoch(7): file readers saw epochs %v", got)
	}
}

func TestFilesCancelWhileRanging(t *testing.T) {
	open := func(string) source.Reader[int] { return fixture.Endless(nil) }
	// One context.Canceled, not wrapped with a file.
	sourcetest.CancelAfter(t, source.Files([]string{"a", "b", "c"}, 2, open, 4), 300)
}

func TestFilesEarlyBreak(t *testing.T) {
	var read atomic.Int64
	open := func(string) source.Reader[int] { return fixture.Endless(&read) }
	r := source.Files([]string{"a", "b", "c", "d"}, 4, open, 2)
	for range 2 {
		for _, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
}

func TestFilesNoPaths(t *testing.T) {
	got, errs := fixture.Drain(context.Background(), source.Files(nil, 3, lineReader, 2))
	if len(got) != 0 || len(errs) != 0 {
		t.Fatalf("got %v, %v; want an empty pass", got, errs)
	}
}

func TestConcurrentAndFilesPanicOnMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"Concurrent buffer=0": func() { source.Concurrent([]source.Reader[int]{fixture.Endless(nil)}, 0) },
		"Files workers=0":     func() { source.Files([]string{"a"}, 0, lineReader, 1) },
		"Files buffer=0":      func() { source.Files([]string{"a"}, 1, lineReader, 0) },
		"Files nil open":      func() { source.Files[int]([]string{"a"}, 1, nil, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

func TestFilesNamesEachFileOnce(t *testing.T) {
	open := func(p string) source.Reader[int] {
		if p == "b" {
			return sourcetest.FailAfter(source.Slice([]int{1}), 1, &tensorfeed.Error{Path: "b", Offset: 3, Record: -1, Err: errors.New("bad")})
		}
		return sourcetest.FailAfter(source.Slice([]int{1}), 1, errBoom)
	}
	for _, tc := range []struct{ path, want string }{
		{"a", "a: boom"},        // the error does not know its file: Files names it
		{"b", "b: byte 3: bad"}, // it does: left as it is
	} {
		_, err := source.Collect(context.Background(), source.Files([]string{tc.path}, 1, open, 4))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.path, err, tc.want)
		}
	}
}
