// Package cli holds what the example programs share as command-line tools.
package cli

import (
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Logger returns a console logger for a command-line program: Info and
// above, or Debug when debug is set.
func Logger(debug bool) *zap.Logger {
	c := zap.NewDevelopmentConfig()
	c.Level = zap.NewAtomicLevelAt(zapcore.InfoLevel)
	if debug {
		c.Level.SetLevel(zapcore.DebugLevel)
	}
	c.DisableStacktrace = true
	log, err := c.Build()
	if err != nil {
		panic(err) // only a broken static configuration fails here
	}
	return log
}

// PipelineLogger returns the logger a program puts on the context of its
// passes (tensorfeed.WithLogger): log itself, named "pipeline", with debug;
// otherwise only its warnings, so the per-epoch statistics do not crowd the
// program's own output.
func PipelineLogger(log *zap.Logger, debug bool) *zap.Logger {
	if debug {
		return log.Named("pipeline")
	}
	return log.WithOptions(zap.IncreaseLevel(zapcore.WarnLevel))
}
