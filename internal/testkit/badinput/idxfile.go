package badinput

// IDXFile returns an IDX file: the magic 00 00 typ len(dims), the
// dimensions big-endian, then data. It is how the corpus builds its IDX
// cases, for tests that build their own.
func IDXFile(typ byte, dims []uint32, data []byte) []byte { return idxFile(typ, dims, data) }

// Gzip compresses b as a gzip stream at gzip.BestCompression.
func Gzip(b []byte) []byte { return gz(b) }
