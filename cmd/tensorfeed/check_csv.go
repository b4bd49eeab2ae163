package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/source"
)

// checkCSV reads a CSV file through csv.Reader with the command line's CSV
// options. With --all, the reader's SkipBad policy goes on past bad rows
// and every one is reported; a row that is too long still ends the check,
// since where the next row starts is not known.
func checkCSV(ctx context.Context, path string, opts []csv.Option, rep *reporter, stdout io.Writer) error {
	opts = append([]csv.Option{csv.Storage(rep.storage...)}, opts...)
	if rep.all {
		opts = append(opts, csv.SkipBad(1, source.OnSkip(func(err error) { rep.report(err) })))
	}
	r := csv.New(path, opts...)
	var labels labelStats
	rows, dataLen, labelLen := 0, 0, 0
	for row, err := range r.All(ctx) {
		if err != nil {
			return err
		}
		rows++
		dataLen, labelLen = len(row.Data), len(row.Label)
		for _, l := range row.Label {
			labels.add(float64(l))
		}
	}
	if rep.bad > 0 {
		return nil
	}
	fmt.Fprintf(stdout, "%s: CSV: %d rows of %d data values and %d labels; %s\n", path, rows, dataLen, labelLen, &labels)
	return nil
}
