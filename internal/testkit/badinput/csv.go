package badinput

import (
	"bytes"
	"io"
)

// longLine is the size of the one-line CSV case.
const longLine = 50 << 20

func (w *writer) csv() {
	w.add(good("csv_good", CSV), "csv_good.csv", []byte("1,2,0\n3.5,-4,1\n5,6e3,2\n"))
	w.add(bad("csv_ragged", CSV, "row 2 has 2 fields, the others 3"),
		"csv_ragged.csv", []byte("1,2,0\n3,4\n5,6,1\n"))
	w.add(bad("csv_bad_number", CSV, "a data field is not a number"),
		"csv_bad_number.csv", []byte("1,2,0\n3,x4,1\n"))
	w.add(bad("csv_bad_quote", CSV, "a bare quote inside a field"),
		"csv_bad_quote.csv", []byte("1,2,0\n3,4\"5,1\n"))
	// A 4 MiB field of digits: too long to be a float32 either way.
	huge := append([]byte("1,"), bytes.Repeat([]byte("9"), 4<<20)...)
	w.add(bad("csv_huge_field", CSV, "a field of 4 MiB"),
		"csv_huge_field.csv", append(huge, ",0\n"...))
	// 50 MB without a newline: "1,1,1,...". A reader that holds a line
	// and its fields whole needs hundreds of MB.
	c := bad("csv_one_line_50MB", CSV, "one line of 50 MB and 25 million fields")
	c.Large = true
	w.addStream(c, "csv_one_line_50MB.csv", func(f io.Writer) error {
		chunk := bytes.Repeat([]byte("1,"), 32<<10)
		for range longLine / len(chunk) {
			if _, err := f.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	})
}
