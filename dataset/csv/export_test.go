package csv

// FillDataInt32 is the fill function Layout.Sink gives int32 data.
var FillDataInt32 = fillDataInt32
