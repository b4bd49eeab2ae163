package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/source"
)

// checkCSV reads a CSV file through csv.Reader with the command line's CSV
// options. With --all, the reader's SkipBad policy goes on past bad rows
// and every one is reported; a row that is too long still ends the check,
// since where the next row starts is not known. The labels are described
// only when label columns were asked for: without them the reader gives
// every row a zero label, which the file does not hold.
func checkCSV(ctx context.Context, path string, opts []csv.Option, rep *reporter, e *env) error {
	stdout := e.stdout
	opts = append([]csv.Option{csv.Storage(e.storage...)}, opts...)
	if rep.all {
		opts = append(opts, csv.OnBad(source.SkipBad(1, source.OnSkip(func(err error) { rep.report(csvFlagNames(err)) }))))
	}
	r := csv.New(path, opts...)
	var labels checkstat.Labels
	rows, dataLen, labelLen := 0, 0, 0
	for row, err := range r.All(ctx) {
		if err != nil {
			return csvFlagNames(err)
		}
		rows++
		dataLen, labelLen = len(row.Data), len(row.Label)
		for _, l := range row.Label {
			labels.Add(float64(l))
		}
	}
	if rep.bad > 0 {
		return nil
	}
	// The layout is read after the pass, which has already checked the
	// columns it names, so that only a good file is opened twice.
	layout, err := r.Layout()
	if err != nil {
		return csvFlagNames(err)
	}
	if len(layout.LabelCols) == 0 {
		fmt.Fprintf(stdout, "%s: CSV: %d rows of %d data values, no label columns\n", path, rows, dataLen)
		return nil
	}
	fmt.Fprintf(stdout, "%s: CSV: %d rows of %d data values and %d labels; %s\n", path, rows, dataLen, labelLen, &labels)
	return nil
}

// csvOptionFlags turns the hints of dataset/csv's messages, which name its
// Go options, into the flags of check that set them, or into words where
// check has no flag.
var csvOptionFlags = strings.NewReplacer(
	"(string labels need Classes)", "(string labels need --classes)",
	"is not finite (Finite)", "is not finite (--finite)",
	"bytes (MaxLineBytes)", "bytes (--max-line-bytes)",
	"bytes (MaxFieldBytes)", "bytes, the most a field may hold",
)

// csvFlagNames returns err with the message of its *tensorfeed.Error's
// cause naming check's flags rather than dataset/csv's options; the cause
// stays in the chain, for errors.Is.
func csvFlagNames(err error) error {
	var pe *tensorfeed.Error
	if !errors.Is(err, csv.ErrFormat) || !errors.As(err, &pe) || pe.Err == nil {
		return err
	}
	if msg := csvOptionFlags.Replace(pe.Err.Error()); msg != pe.Err.Error() {
		// pe was made for this error alone: the reader keeps no reference.
		pe.Err = &renamedError{msg: msg, err: pe.Err}
	}
	return err
}

// renamedError is err with another message.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
