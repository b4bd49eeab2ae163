package idx

import (
	"errors"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
)

// ErrFormat is wrapped by every error about bad data in an IDX file (and,
// through dataset/mnist, which exports it as mnist.ErrFormat, in an MNIST
// pair of files). It wraps [tensorfeed.ErrBadData], so code that reads
// several formats can test for bad data with one errors.Is.
var ErrFormat = cause.Sentinel("idx: bad format", tensorfeed.ErrBadData)

// ErrTooLarge is the cause of an error about a header that declares more
// than a configured maximum ([MaxRecordBytes], [MaxFileBytes]). Such a file
// may be valid for a reader with a larger maximum: the error says which
// option to raise.
var ErrTooLarge = errors.New("larger than the configured maximum")

// The magic numbers of MNIST's files.
const (
	ImagesMagic = 0x00000803 // ubyte, 3 dimensions (N, 28, 28)
	LabelsMagic = 0x00000801 // ubyte, 1 dimension (N)
)
