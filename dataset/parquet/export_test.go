package parquet

// ErrShapeCause is the cause of a row's error when its value does not fit
// its column's shape, which has no exported name.
var ErrShapeCause = errShape
