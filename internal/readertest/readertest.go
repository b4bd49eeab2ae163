// Package readertest holds test helpers that check the parts of the
// source.Reader contract that every reader shares: a consumer may stop
// ranging at any time, and a cancelled context ends the pass with exactly
// one context.Canceled error.
package readertest

import (
	"context"
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

// BreakAfter ranges over one pass of r with a background context and breaks
// out of the loop after n samples. It fails the test at once on an error.
// It returns the samples taken: fewer than n when the pass ends first.
func BreakAfter[T any](t testing.TB, r source.Reader[T], n int) []T {
	t.Helper()
	var got []T
	for v, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, v); len(got) == n {
			break
		}
	}
	return got
}

// CancelAfter ranges over one pass of r, cancels its context after the n-th
// sample and keeps ranging to the end of the pass. It fails the test when a
// sample comes after an error, or when the pass does not yield exactly one
// error that is context.Canceled. It returns the samples before the error.
func CancelAfter[T any](t testing.TB, r source.Reader[T], n int) []T {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []T
	var errs []error
	for v, err := range r.All(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			t.Fatal("sample after the error")
		}
		if got = append(got, v); len(got) == n {
			cancel()
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors = %v, want one context.Canceled", errs)
	}
	return got
}
