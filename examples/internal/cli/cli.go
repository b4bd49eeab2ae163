// Package cli holds what the example programs share as command-line
// tools: flag checks, the logging flags, the one-line error and exit
// status of a failed or stopped run, and the check that outputs can be
// written before a run starts.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tensorfeed/tensorfeed"
)

// Logging is the logging flags every example shares. Without them a
// program logs only warnings: its results go to stdout and its error is
// one line on stderr (Exit). -v logs the program's steps and the
// pipeline's one entry per epoch; -debug adds every pass of every step.
type Logging struct {
	Verbose bool
	Debug   bool
}

// Register defines -v and -debug on fs.
func (l *Logging) Register(fs *flag.FlagSet) {
	fs.BoolVar(&l.Verbose, "v", l.Verbose, "log the program's steps and the pipeline's statistics of every epoch to stderr")
	fs.BoolVar(&l.Debug, "debug", l.Debug, "log as -v does, and every pass of every pipeline step")
}

// Logger returns a console logger on stderr: warnings and errors by
// default, Info with -v, Debug with -debug.
func (l Logging) Logger() *zap.Logger {
	c := zap.NewDevelopmentConfig()
	switch {
	case l.Debug:
		c.Level = zap.NewAtomicLevelAt(zapcore.DebugLevel)
	case l.Verbose:
		c.Level = zap.NewAtomicLevelAt(zapcore.InfoLevel)
	default:
		c.Level = zap.NewAtomicLevelAt(zapcore.WarnLevel)
	}
	c.DisableStacktrace = true
	log, err := c.Build()
	if err != nil {
		panic(err) // only a broken static configuration fails here
	}
	return log
}

// PipelineLogger returns the logger a program puts on the context of its
// passes (tensorfeed.WithLogger): log itself, named "pipeline", at the
// level the flags chose.
func (l Logging) PipelineLogger(log *zap.Logger) *zap.Logger {
	return log.Named("pipeline")
}

// Exit ends the program after its run returned err, when err is not nil:
// it prints "name: err" as one plain line on stderr (the lines of a joined
// error separated by "; ") and exits with tensorfeed.ExitCode: 130 or 143
// for a run stopped by SIGINT or SIGTERM, 1 for a failure. ctx is the
// run's context (tensorfeed.NotifyStop's): an error that is only the
// cancellation a signal caused (context.Canceled, without the signal) is
// reported with the signal and its status.
func Exit(ctx context.Context, err error) {
	if err == nil {
		return
	}
	if cause := context.Cause(ctx); cause != nil && tensorfeed.ExitCode(err) == 1 && tensorfeed.ExitCode(cause) > 1 {
		err = fmt.Errorf("%w: %w", cause, err)
	}
	msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	fmt.Fprintf(os.Stderr, "%s: %s\n", filepath.Base(os.Args[0]), msg)
	os.Exit(tensorfeed.ExitCode(err))
}

// Main runs run with a context that a SIGINT or SIGTERM cancels
// (tensorfeed.NotifyStop), restores the signals' default action once run
// returns (a second signal kills at once), and ends the program as Exit
// does when run failed or was stopped by a signal. It returns run's result
// otherwise.
func Main[R any](run func(ctx context.Context) (R, error)) R {
	ctx, stop := tensorfeed.NotifyStop(context.Background())
	defer stop()
	res, err := run(ctx)
	stop()
	Exit(ctx, err)
	return res
}

// WritableDir checks, before a run starts, that the folder of the flag
// name can hold the files the run will write at its end: it creates dir
// if need be and a file in it, which it removes. dir "" (no output) is
// good.
func WritableDir(name, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-%s %s: %w", name, dir, err)
	}
	return probe(name, dir, dir)
}

// WritableFile checks, before a run starts, that the file of the flag name
// can be written: that its folder exists and takes a new file (created and
// removed; path itself is left as it is). path "" (no output) is good.
func WritableFile(name, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("-%s %s: is a directory", name, path)
	}
	return probe(name, path, filepath.Dir(path))
}

// probe creates and removes a file in dir, for the flag name of value v.
func probe(name, v, dir string) error {
	f, err := os.CreateTemp(dir, ".tensorfeed-probe*")
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // its path is the probe's, not the user's
		}
		return fmt.Errorf("-%s %s: cannot create a file in %s: %w", name, v, dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
