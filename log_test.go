package tensorfeed_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
)

func TestLoggerDefaultsToNop(t *testing.T) {
	if l := tensorfeed.Logger(context.Background()); l == nil || l.Core().Enabled(zap.ErrorLevel) {
		t.Fatalf("Logger without WithLogger = %v, want a no-op logger", l)
	}
	l := zap.NewExample()
	if got := tensorfeed.Logger(tensorfeed.WithLogger(context.Background(), l)); got != l {
		t.Fatal("Logger does not return the logger set by WithLogger")
	}
	if got := tensorfeed.Logger(tensorfeed.WithLogger(context.Background(), nil)); got.Core().Enabled(zap.ErrorLevel) {
		t.Fatal("WithLogger(nil) must turn logging off")
	}
}

func TestSlogLogger(t *testing.T) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})
	l := tensorfeed.SlogLogger(h).Named("mnist").With(zap.String("file", "train.idx"))
	l.Debug("hidden")
	l.Warn("skipped a bad record", zap.Int64("record", 7), zap.Duration("took", 3*time.Millisecond),
		zap.Error(errors.New("bad label 200")))
	out := buf.String()
	for _, want := range []string{"level=WARN", `msg="skipped a bad record"`, "logger=mnist", "file=train.idx",
		"record=7", "took=3ms", `error="bad label 200"`} {
		if !strings.Contains(out, want) {
			t.Errorf("slog output %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "hidden") {
		t.Errorf("a debug message passed an info-level handler: %q", out)
	}
}

// A program that logs through log/slog sends tensorfeed's messages to the
// same handler.
func ExampleSlogLogger() {
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the output stable
			}
			return a
		}})
	ctx := tensorfeed.WithLogger(context.Background(), tensorfeed.SlogLogger(h))
	tensorfeed.Logger(ctx).Info("pass done", zap.Int("epoch", 3))
	// Output: level=INFO msg="pass done" epoch=3
}
