package tensorfeed_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
)

// TestErrorText checks Error's line for every combination of known and
// unknown position parts: the 16 of record, line, column and byte offset,
// each with and without a path and a member.
func TestErrorText(t *testing.T) {
	cause := fmt.Errorf("recordio: bad format: %w", io.ErrUnexpectedEOF)
	positions := []struct {
		record, offset int64
		line, column   int
		want           string
	}{
		{-1, -1, 0, 0, ""},
		{-1, 4096, 0, 0, "byte 4096"},
		{-1, -1, 0, 5, "column 5"},
		{-1, 4096, 0, 5, "column 5 at byte 4096"},
		{-1, -1, 3, 0, "line 3"},
		{-1, 4096, 3, 0, "line 3 at byte 4096"},
		{-1, -1, 3, 5, "line 3, column 5"},
		{-1, 4096, 3, 5, "line 3, column 5 at byte 4096"},
		{12, -1, 0, 0, "record 12"},
		{12, 4096, 0, 0, "record 12 at byte 4096"},
		{12, -1, 0, 5, "record 12, column 5"},
		{12, 4096, 0, 5, "record 12, column 5 at byte 4096"},
		{12, -1, 3, 0, "record 12, line 3"},
		{12, 4096, 3, 0, "record 12, line 3 at byte 4096"},
		{12, -1, 3, 5, "record 12, line 3, column 5"},
		{12, 4096, 3, 5, "record 12, line 3, column 5 at byte 4096"},
		// Zero is a position, not "unknown", for the offset and the record.
		{0, 0, 0, 0, "record 0 at byte 0"},
	}
	for _, p := range positions {
		for _, path := range []string{"", "s3://b/train.rec"} {
			for _, member := range []string{"", "x.jpg"} {
				e := &tensorfeed.Error{Path: path, Offset: p.offset, Record: p.record,
					Line: p.line, Column: p.column, Member: member, Err: cause}
				var parts []string
				if path != "" {
					parts = append(parts, path)
				}
				if p.want != "" {
					parts = append(parts, p.want)
				}
				if member != "" {
					parts = append(parts, `member "x.jpg"`)
				}
				parts = append(parts, "recordio: bad format: unexpected EOF")
				if got, want := e.Error(), strings.Join(parts, ": "); got != want {
					t.Errorf("%+v:\n got %q\nwant %q", *e, got, want)
				}
			}
		}
	}
	full := &tensorfeed.Error{Path: "a.rec", Offset: 4096, Record: 12, Member: "x", Err: cause}
	if got, want := full.Error(), `a.rec: record 12 at byte 4096: member "x": recordio: bad format: unexpected EOF`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestErrorTextOddParts(t *testing.T) {
	long := strings.Repeat("n", 300)
	e := &tensorfeed.Error{Offset: -1, Record: -1, Member: long, Err: errors.New("bad")}
	if got, want := e.Error(), `member "`+long[:256]+`"... (300 bytes): bad`; got != want {
		t.Errorf("long member: got %q, want %q", got, want)
	}
	nilCause := &tensorfeed.Error{Path: "f", Offset: -1, Record: -1}
	if got, want := nilCause.Error(), "f: unknown error"; got != want {
		t.Errorf("nil cause: got %q, want %q", got, want)
	}
}

// TestErrorAs checks that a caller finds the position with errors.As and
// the sentinels with errors.Is through any wrapping.
func TestErrorAs(t *testing.T) {
	sentinel := fmt.Errorf("fmt: bad format: %w", tensorfeed.ErrBadData)
	var err error = &tensorfeed.Error{Path: "f.csv", Offset: -1, Record: 4, Line: 6, Column: 2,
		Err: fmt.Errorf("%w: %w", sentinel, io.ErrUnexpectedEOF)}
	err = fmt.Errorf("epoch 2: %w", err)
	var e *tensorfeed.Error
	if !errors.As(err, &e) || e.Path != "f.csv" || e.Record != 4 || e.Line != 6 || e.Column != 2 || e.Offset != -1 {
		t.Fatalf("errors.As: %v %+v", errors.As(err, &e), e)
	}
	for _, target := range []error{sentinel, tensorfeed.ErrBadData, io.ErrUnexpectedEOF} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v) = false", target)
		}
	}
	if e.Unwrap() != e.Err {
		t.Error("Unwrap is not Err")
	}
}
