package parquet

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/tensorfeed/tensorfeed"
)

func TestPosError(t *testing.T) {
	err := fmt.Errorf("pass: %w", posError("f.parquet", -1, 2, 17, "image", io.ErrUnexpectedEOF, "short page"))
	var e *tensorfeed.Error
	if !errors.As(err, &e) || e.Path != "f.parquet" || e.Record != 17 || e.Member != "image" || e.Offset != -1 ||
		RowGroup(err) != 2 || !errors.Is(err, ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%v: %+v, row group %d", err, e, RowGroup(err))
	}
	if want := `pass: f.parquet: record 17: member "image": row group 2: parquet: bad format: short page`; err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if g := RowGroup(fileError("f.parquet", 0, nil, "bad magic")); g != -1 {
		t.Errorf("RowGroup of a file error = %d", g)
	}
	if g := RowGroup(io.EOF); g != -1 {
		t.Errorf("RowGroup(io.EOF) = %d", g)
	}
}
