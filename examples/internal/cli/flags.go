package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CheckFlags ends the program with exit status 2 when the flags it parsed
// are bad: when checks holds an error, or when positional arguments follow
// the flags (no example takes any). It prints every error and the usage to
// the flag set's output first, as the flag package does for a flag it
// cannot parse, so a bad value gets a usage message instead of a panic
// deep in the pipeline.
func CheckFlags(checks ...error) {
	if flag.NArg() > 0 {
		checks = append(checks, fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	err := errors.Join(checks...)
	if err == nil {
		return
	}
	out := flag.CommandLine.Output()
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(out, "%s: %s\n", filepath.Base(os.Args[0]), line)
	}
	flag.Usage()
	os.Exit(2)
}

// AtLeast checks that the int flag name holds at least lowest.
func AtLeast(name string, v, lowest int) error {
	if v < lowest {
		return fmt.Errorf("invalid value %d for -%s: must be at least %d", v, name, lowest)
	}
	return nil
}

// Positive checks that the float flag name holds a finite value above 0.
func Positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("invalid value %v for -%s: must be a finite number above 0", v, name)
	}
	return nil
}

// InRange checks that the float flag name holds a value in [lo, hi).
func InRange(name string, v, lo, hi float64) error {
	if !(v >= lo && v < hi) {
		return fmt.Errorf("invalid value %v for -%s: must be at least %v and below %v", v, name, lo, hi)
	}
	return nil
}

// OneOf checks that the string flag name holds one of allowed.
func OneOf(name, v string, allowed ...string) error {
	if !slices.Contains(allowed, v) {
		return fmt.Errorf("invalid value %q for -%s: must be one of %s", v, name, strings.Join(allowed, ", "))
	}
	return nil
}
