package csv

// FillDataInt32 is the fill function Layout.Sink gives int32 data.
var FillDataInt32 = fillDataInt32

// The causes of file-level errors that have no exported name.
var (
	ErrRowCountCause = errRowCount
	ErrEmptyCause    = errEmpty
)
