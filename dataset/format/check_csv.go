package format

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/option"
)

// Rows makes the csv format's Check parse each file's rows with
// dataset/csv under opts (a header, label columns, classes, ...) and say
// what they hold, instead of reading raw lines. Under OnBad, the policy
// goes on past bad rows; a row that is too long still ends the file's
// check, since where the next row starts is not known. The other formats
// and Open do not use it.
func Rows(opts ...csv.Option) Option {
	return option.New(func(c *config) { c.rows = append([]csv.Option{}, opts...) })
}

// checkRows reads the CSV file of c through csv.Reader with c.rows. The
// labels are described only when label columns were asked for: without
// them the reader gives every row a zero label, which the file does not
// hold.
func checkRows(ctx context.Context, c *checker, stdout io.Writer) error {
	opts := append(slices.Clip(c.rows), csv.Storage(c.sopts...))
	if c.policy != nil {
		opts = append(opts, csv.OnBad(c.policy))
	}
	r := csv.New(c.path, opts...)
	var labels checkstat.Labels
	rows, dataLen, labelLen := 0, 0, 0
	for row, err := range r.All(ctx) {
		if err != nil {
			return err
		}
		rows++
		dataLen, labelLen = len(row.Data), len(row.Label)
		for _, l := range row.Label {
			labels.Add(float64(l))
		}
	}
	if c.bad() > 0 {
		return nil
	}
	// The layout is read after the pass, which has already checked the
	// columns it names, so that only a good file is opened twice.
	layout, err := r.Layout()
	if err != nil {
		return err
	}
	if len(layout.LabelCols) == 0 {
		fmt.Fprintf(stdout, "%s: CSV: %d rows of %d data values, no label columns\n", c.path, rows, dataLen)
		return nil
	}
	fmt.Fprintf(stdout, "%s: CSV: %d rows of %d data values and %d labels; %s\n", c.path, rows, dataLen, labelLen, &labels)
	return nil
}
