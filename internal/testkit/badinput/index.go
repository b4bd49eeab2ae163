package badinput

import (
	"fmt"
	"os"
	"path/filepath"
)

// index writes the .idx cases: each a good .rec with an .idx beside it.
func (w *writer) index() {
	rec, offs := recFile(goodRecords()...)
	line := func(key int, off int64) string { return fmt.Sprintf("%d\t%d\n", key, off) }
	goodIdx := line(0, offs[0]) + line(1, offs[1]) + line(2, offs[2])
	cases := []struct {
		c   Case
		idx string
	}{
		{good("idx_file_good", ImageRecord), goodIdx},
		{bad("idx_file_past_end", ImageRecord, "an offset past the end of the .rec"),
			line(0, offs[0]) + line(1, offs[1]) + line(2, int64(len(rec))+64)},
		{bad("idx_file_duplicate_offset", ImageRecord, "two keys at the same offset"),
			line(0, offs[0]) + line(1, offs[1]) + line(2, offs[1])},
		{bad("idx_file_misaligned", ImageRecord, "an offset that is not a multiple of 4"),
			line(0, offs[0]) + line(1, offs[1]+2) + line(2, offs[2])},
		{bad("idx_file_not_record_start", ImageRecord, "an aligned offset inside a record"),
			line(0, offs[0]) + line(1, offs[1]+8) + line(2, offs[2])},
		{bad("idx_file_non_numeric", ImageRecord, "an offset that is not a number"),
			line(0, offs[0]) + "1\tabc\n" + line(2, offs[2])},
		{bad("idx_file_duplicate_key", ImageRecord, "a key on two lines"),
			line(0, offs[0]) + line(1, offs[1]) + line(1, offs[2])},
	}
	for _, c := range cases {
		if w.err != nil {
			return
		}
		c.c.Index = filepath.Join(w.dir, c.c.Name+".idx")
		if err := os.WriteFile(c.c.Index, []byte(c.idx), 0o644); err != nil {
			w.err = err
			return
		}
		w.add(c.c, c.c.Name+".rec", rec)
	}
}
