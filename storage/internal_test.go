package storage

import "testing"

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-0/10", "bytes */0", "bytes 5-9/10", "bytes -1-2/3", "bytes 1-2/-3", "", "bytes 9223372036854775807-1/9223372036854775807", "bytes 5-4/10", "bytes 5/10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, ok := parseContentRange(s)
		if !ok {
			return
		}
		if total < 0 {
			t.Fatalf("%q: negative total %d", s, total)
		}
		if (first < 0 || last < 0) && (first != -1 || last != -1) {
			t.Fatalf("%q: first %d last %d: only */total has no range", s, first, last)
		}
		if last < first {
			t.Fatalf("%q: last %d before first %d", s, last, first)
		}
	})
}

func TestScheme(t *testing.T) {
	for name, want := range map[string]string{
		"s3://b/k": "s3", "HTTPS://x/y": "https", "data/x.rec": "", `C://x`: "", "/a://b": "", "a b://c": "",
	} {
		if got := scheme(name); got != want {
			t.Errorf("scheme(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestBackoffBounded(t *testing.T) {
	cfg := defaults()
	for attempt := 1; attempt < 100; attempt++ {
		if d := backoff(cfg, attempt); d < 0 || d > cfg.backoffMax {
			t.Fatalf("backoff(%d) = %v", attempt, d)
		}
	}
}
