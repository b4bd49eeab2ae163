package badinput

import (
	"bytes"
	"io"
)

// linesMax is the longest line the registry's csv line reader takes by
// default (dataset/format: 1 MiB).
const linesMax = 1 << 20

// lines writes the cases of the file-format registry's csv line reader
// (dataset/format): raw lines, bounded by linesMax.
func (w *writer) lines() {
	w.add(good("lines_good", Lines), "lines_good.txt", []byte("a,b\r\nc,d\n\nlast,line without an ending"))
	w.add(good("lines_at_max", Lines), "lines_at_max.txt",
		append(append([]byte("x,\n"), bytes.Repeat([]byte("y"), linesMax)...), "\r\nz,\n"...))
	w.add(bad("lines_over_max", Lines, "line 2 is one byte over the %d-byte maximum", linesMax),
		"lines_over_max.txt", append(append([]byte("x,\n"), bytes.Repeat([]byte("y"), linesMax+1)...), "\nz,\n"...))
	w.add(bad("lines_over_max_at_end", Lines, "the last line, without a line ending, is over the maximum"),
		"lines_over_max_at_end.txt", append([]byte("x,\n"), bytes.Repeat([]byte("y"), linesMax+1)...))
	// 8 MiB without a line ending: a reader that holds the line whole
	// before looking at its length takes 8 MiB, or more as it grows.
	w.addStream(bad("lines_8MiB_one_line", Lines, "one line of 8 MiB"), "lines_8MiB_one_line.txt", func(f io.Writer) error {
		chunk := bytes.Repeat([]byte("1,"), 32<<10)
		for range (8 << 20) / len(chunk) {
			if _, err := f.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	})
}
