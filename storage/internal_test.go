package storage

import "testing"

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-0/10", "bytes */0", "bytes 5-9/10", "bytes -1-2/3", "bytes 1-2/-3", "", "bytes 9223372036854775807-1/9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, total, ok := parseContentRange(s)
		if ok && (total < 0 || first < 0) {
			t.Fatalf("%q: negative first %d or total %d", s, first, total)
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
