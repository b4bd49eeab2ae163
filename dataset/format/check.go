package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tensorfeed/tensorfeed"

	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// checker is the check of one file: where it is read from and where its
// bad records go.
type checker struct {
	path  string
	sopts []storage.Option
	// policy is the OnBad policy of the check, nil when the first bad
	// record ends it; skips counts its bad records.
	policy *source.SkipPolicy
	skips  *skipcount.Counter
	// skipped is policy.Skipped() when the check started: the readers
	// that skip under the policy report their bad records to it directly.
	skipped int64
	mixed   bool         // Mixed was given
	rows    []csv.Option // Rows's options, nil when not given
	first   error        // the bad record that ended the check
	ended   int64        // bad records the policy did not step over: 0 or 1
}

// Mixed tells Format.Check that a file may mix kinds of payload: records
// that do not parse as the kind the others hold (in TFRecord, records that
// are not tf.train.Example among those that are) are counted, not
// reported. Open does not use it.
func Mixed() Option { return option.New(func(c *config) { c.mixed = true }) }

// check runs fn, the check of one file by one format, on each of paths
// in order under opts (Storage, Mixed and OnBad; the others are not
// used). A file's error does not stop the check of the next: check
// returns the errors that ended the files' checks (fn's, or the first bad
// record it reported when no policy steps over it), each naming its file,
// joined; it stops at once when ctx ends.
func check(ctx context.Context, paths []string, out io.Writer, opts []Option, fn func(context.Context, *checker, io.Writer) error) error {
	var cfg config
	option.Apply(&cfg, opts)
	var errs []error
	for _, path := range paths {
		c := &checker{path: path, sopts: cfg.storage, mixed: cfg.mixed, rows: cfg.rows, policy: cfg.bad, skips: (*skipcount.Policy)(cfg.bad).Pass(-1, nil), skipped: cfg.bad.Skipped()}
		err := fn(ctx, c, out)
		if err == nil {
			err = c.first
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			errs = append(errs, naming(path, err))
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// naming returns err naming path: a *tensorfeed.Error without a path gets
// it, another error that does not start with it is prefixed with it.
func naming(path string, err error) error {
	var e *tensorfeed.Error
	if errors.As(err, &e) {
		if e.Path == "" {
			e.Path = path
		}
		return err
	}
	if strings.HasPrefix(err.Error(), path+":") {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// report counts err, a bad record the check found itself, and says
// whether the check goes on: under a policy that steps over it (which is
// then given err), else err ends the check.
func (c *checker) report(err error) bool {
	if e := c.skips.Bad(err); e != nil {
		c.ended++
		if c.first == nil {
			c.first = e
		}
		return false
	}
	return true
}

// bad returns how many bad records the check has met so far: a check
// that met one writes no summary.
func (c *checker) bad() int64 {
	return c.ended + c.policy.Skipped() - c.skipped
}

// checkLines reads a text file as the csv format does (raw lines, none
// longer than maxLineBytes), without parsing fields. Under OnBad, every
// line over the maximum is given to the policy and stepped over.
func checkLines(ctx context.Context, c *checker, maxLineBytes int, stdout io.Writer) error {
	r := csvFormat(maxLineBytes, c.sopts).Open(c.path, nil)
	if c.policy != nil {
		r = csvSkip(c.path, maxLineBytes, c.policy, c.sopts)
	}
	n, longest := 0, 0
	for rec, err := range r.All(ctx) {
		if err != nil {
			return err
		}
		n++
		longest = max(longest, len(rec.Data))
	}
	if c.bad() > 0 {
		return nil
	}
	fmt.Fprintf(stdout, "%s: lines: %d lines, the longest %d bytes\n", c.path, n, longest)
	return nil
}
