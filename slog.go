package tensorfeed

import (
	"context"
	"log/slog"
	"math"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// SlogLogger returns a *zap.Logger that writes to h, for programs that log
// through log/slog: pass it to WithLogger and tensorfeed's messages reach
// the same handler as the program's own.
//
//	ctx = tensorfeed.WithLogger(ctx, tensorfeed.SlogLogger(slog.Default().Handler()))
//
// zap levels map to slog's (debug, info, warn, error; anything above error
// is logged as error), and zap fields become slog attributes.
func SlogLogger(h slog.Handler) *zap.Logger {
	return zap.New(&slogCore{h: h})
}

// slogCore is a zapcore.Core that hands every entry to a slog.Handler.
type slogCore struct {
	h      slog.Handler
	fields []zapcore.Field
}

func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	}
	return slog.LevelError
}

func (c *slogCore) Enabled(l zapcore.Level) bool {
	return c.h.Enabled(context.Background(), slogLevel(l))
}

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	return &slogCore{h: c.h, fields: append(c.fields[:len(c.fields):len(c.fields)], fields...)}
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	r := slog.NewRecord(e.Time, slogLevel(e.Level), e.Message, 0)
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fields {
		f.AddTo(enc)
	}
	if e.LoggerName != "" {
		r.AddAttrs(slog.String("logger", e.LoggerName))
	}
	for _, f := range append(c.fields[:len(c.fields):len(c.fields)], fields...) {
		if v, ok := enc.Fields[f.Key]; ok {
			r.AddAttrs(slog.Any(f.Key, slogValue(v)))
			delete(enc.Fields, f.Key) // a key given twice is written once
		}
	}
	return c.h.Handle(context.Background(), r)
}

// slogValue turns what zap's map encoder stored into a value slog prints
// well (durations stay durations, floats stay numbers).
func slogValue(v any) any {
	switch x := v.(type) {
	case time.Duration:
		return x
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return x
		}
	}
	return v
}

func (c *slogCore) Sync() error { return nil }
