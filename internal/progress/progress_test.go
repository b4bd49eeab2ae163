package progress_test

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/internal/progress"
)

// Live bars draw from goroutines of their group; Finish and Wait must end
// them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSummaryLineOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "epoch 1/3", 100, "samples")
	for range 10 {
		b.Add(10)
	}
	el, r := b.Finish()
	el2, r2 := b.Finish() // a second Finish writes nothing
	want := regexp.MustCompile(`^epoch 1/3: 100/100 samples in [0-9.]+[nµm]?s, [0-9]+ samples/s\n$`)
	if !want.MatchString(buf.String()) {
		t.Errorf("output = %q, want one line matching %v", buf.String(), want)
	}
	if el <= 0 || r <= 0 || el2 != el || r2 != r {
		t.Errorf("Finish = %v, %v then %v, %v", el, r, el2, r2)
	}
}

func TestUnknownTotalAndShortfall(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "reading", 0, "records")
	b.Add(7)
	b.Finish()
	c := progress.New(&buf, "packing", 10, "images")
	c.Add(3) // stopped early, by an error say
	c.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "reading: 7 records in ") ||
		!strings.HasPrefix(lines[1], "packing: 3/10 images in ") {
		t.Errorf("output = %q", buf.String())
	}
}

func TestQuiet(t *testing.T) {
	var buf bytes.Buffer
	b := progress.New(&buf, "x", 5, "steps", progress.Quiet())
	b.Add(5)
	if _, r := b.Finish(); r <= 0 || buf.Len() != 0 {
		t.Errorf("rate %v, output %q: want a rate and no output", r, buf.String())
	}
}

func TestNilWriter(t *testing.T) {
	b := progress.New(nil, "x", 5, "steps")
	b.Add(5)
	b.Finish()
}

func TestLiveGroup(t *testing.T) {
	var buf syncBuffer
	g := progress.NewGroup(&buf, progress.Terminal(true))
	a := g.Bar("train", 1000, "samples")
	u := g.Bar("scan", 0, "records")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 250 {
				a.Add(1)
				u.Add(2)
			}
		})
	}
	wg.Wait()
	if _, r := a.Finish(); r <= 0 {
		t.Errorf("rate = %v", r)
	}
	g.Wait() // finishes u
	out := buf.String()
	for _, want := range []string{"train", "1000/1000 samples", "100 %", "samples/s", "scan", "2000 records", "records/s", "in "} {
		if !strings.Contains(out, want) {
			t.Errorf("live output lacks %q:\n%s", want, out)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	if progress.IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
