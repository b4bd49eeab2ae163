package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tensorfeed/tensorfeed/internal/checkstat"
)

// checkList checks a .lst file line by line, as "im2rec pack" reads it
// (see scanList): every line must parse, indexes must be unique and paths
// must stay inside the image root. Whether the images exist is not
// checked: the root is not known here.
func checkList(ctx context.Context, path string, rep *reporter, stdout io.Writer) error {
	var labels checkstat.Labels
	n, width := 0, -1
	err := scanList(ctx, path, rep.storage, func(e listLine, err error) bool {
		if err != nil {
			return rep.report(err)
		}
		n++
		switch {
		case width == -1:
			width = len(e.Labels)
		case width >= 0 && width != len(e.Labels):
			width = -2 // varying
		}
		if len(e.Labels) > 0 {
			labels.Add(float64(e.Labels[0]))
		}
		return true
	})
	if err != nil || rep.bad > 0 {
		return err
	}
	w := fmt.Sprint(width)
	if width == -2 {
		w = "varying"
	}
	fmt.Fprintf(stdout, "%s: .lst: %d images, %s labels each; first label: %s\n", path, n, w, &labels)
	return nil
}
