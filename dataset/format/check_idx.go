package format

import (
	"context"
	"fmt"
	"io"

	"github.com/tensorfeed/tensorfeed/internal/checkstat"
	"github.com/tensorfeed/tensorfeed/internal/idx"
)

// skipChunk is about how many bytes checkIDX skips per call, so that a
// cancel is seen between calls and records of any size cost no memory.
const skipChunk = 1 << 20

// checkIDX reads an IDX file (plain or gzip) to its end through
// idx.Reader, which checks the header, the length of the data and
// what follows the last record; the records' bytes are discarded as they
// are read, so memory does not grow with the file. One-element records
// (label files) are decoded for the summary. Every error in an IDX file
// ends the check: what follows a bad header or a cut stream cannot be
// located.
func checkIDX(ctx context.Context, c *checker, stdout io.Writer) error {
	path := c.path
	f, err := checkstat.Open(ctx, path, c.sopts)
	if err != nil {
		return err
	}
	defer f.Close()
	var opts []idx.Option
	if size := f.Size(); size > 0 {
		opts = append(opts, idx.InputSize(size))
	}
	bar := checkstat.Bar(ctx, path, f.Size())
	defer bar.Finish()
	x, err := idx.NewReader(checkstat.Counting(f, bar), path, opts...)
	if err != nil {
		return err
	}
	h := x.Header()
	n, rb := h.Records(), x.RecordBytes()
	var labels checkstat.Labels
	if h.RecordElems() == 1 {
		v := make([]float64, 1)
		for i := 0; i < n; i++ {
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := idx.Read(x, v); err != nil {
				return err
			}
			labels.Add(v[0])
		}
	} else {
		step := max(1, skipChunk/max(rb, 1))
		for done := 0; done < n; done += step {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := x.Skip(min(step, n-done)); err != nil {
				return err
			}
		}
	}
	// At the end: this checks that nothing follows the last record (and,
	// for gzip, the stream's checksum).
	if err := x.ReadRaw(nil); err != io.EOF {
		return err
	}
	bar.Finish() // before the summary
	gz := ""
	if x.Gzipped() {
		gz = ", gzip"
	}
	fmt.Fprintf(stdout, "%s: IDX%s, %v, dimensions %v: %d records of %d elements", path, gz, h.DType, h.Dims, n, h.RecordElems())
	if h.RecordElems() == 1 {
		fmt.Fprintf(stdout, "; %s", &labels)
	}
	fmt.Fprintln(stdout)
	return nil
}
