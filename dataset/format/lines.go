package format

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/cause"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// defaultMaxLineBytes is the longest line the default csv format reads,
// its line ending excluded: 1 MiB.
const defaultMaxLineBytes = 1 << 20

// errBadText is wrapped by the csv format's errors.
var errBadText = fmt.Errorf("format: bad text file: %w", tensorfeed.ErrBadData)

// errLineTooLong is wrapped by the error of a line longer than the maximum.
var errLineTooLong = errors.New("line longer than the configured maximum")

// lineError returns the error about the line of a text file that starts at
// byte off, line the count of lines before it: a *tensorfeed.Error with the
// line (from 1) and the offset, which wraps tensorfeed.ErrBadData and err
// (errLineTooLong, or a read error).
func lineError(path string, line, off int64, err error) error {
	return &tensorfeed.Error{Path: path, Offset: off, Record: -1, Line: int(line + 1), Err: cause.Prefixed("format: ", errBadText, err)}
}

// lines yields the lines of r as Records named path: Data is a line
// without its "\n" or "\r\n", Index its number from 0, Offset the byte
// offset of its start. A last line without a line ending is yielded too; an
// empty input yields nothing. A line longer than maxLineBytes ends the
// sequence with a *tensorfeed.Error; memory is bounded by maxLineBytes,
// whatever the input. The sequence is single-use. With a counter, a line
// longer than maxLineBytes is counted as bad and, when the counter allows,
// skipped up to the next line ending, its bytes read and dropped without
// being held.
func lines(r io.Reader, path string, maxLineBytes int, counter *skipcount.Counter) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		br := bufio.NewReaderSize(r, min(maxLineBytes+2, 64<<10))
		var off, line int64
		var long []byte
		// tooLong handles the line that starts at off and is over the
		// maximum, n bytes of it read: under the counter it reads and drops
		// the rest of the line when rest is set, and reports whether the
		// input goes on. Otherwise it yields the error and returns false.
		tooLong := func(n int64, rest bool) (more bool) {
			err := lineError(path, line, off, errLineTooLong)
			if counter != nil {
				err = counter.Bad(err)
			}
			if err != nil {
				yield(Record{}, err)
				return false
			}
			more = true
			for rest {
				chunk, rerr := br.ReadSlice('\n')
				n += int64(len(chunk))
				switch {
				case rerr == bufio.ErrBufferFull:
					continue
				case rerr == io.EOF:
					more = false
				case rerr != nil:
					yield(Record{}, lineError(path, line, off, rerr))
					return false
				}
				rest = false
			}
			off += n
			line++
			return more
		}
		for {
			chunk, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				if len(long)+len(chunk) > maxLineBytes+1 {
					n := int64(len(long) + len(chunk))
					long = long[:0]
					if !tooLong(n, true) {
						return
					}
					continue
				}
				long = append(long, chunk...)
				continue
			}
			if err != nil && err != io.EOF {
				yield(Record{}, lineError(path, line, off, err))
				return
			}
			data := append(long, chunk...)
			long = long[:0]
			if len(data) == 0 {
				return
			}
			n := len(data)
			data = trimEOL(data)
			if len(data) > maxLineBytes {
				if !tooLong(int64(n), false) || err == io.EOF {
					return
				}
				continue
			}
			if counter != nil {
				counter.Good()
			}
			if !yield(Record{Path: path, Index: line, Offset: off, Data: append([]byte(nil), data...)}, nil) {
				return
			}
			off += int64(n)
			line++
			if err == io.EOF {
				return
			}
		}
	}
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// openFile opens path, a local path or a URL, for reading through package
// storage with opts.
func openFile(ctx context.Context, path string, opts []storage.Option) (storage.File, error) {
	return storage.OpenFile(ctx, path, opts...)
}

// fileReader returns a reader whose every pass opens the file at path
// (through storage with sopts), hands it to read and closes it; a file
// that does not open is the pass's error.
func fileReader(path string, sopts []storage.Option, read func(ctx context.Context, f storage.File, yield func(Record, error) bool)) source.Reader[Record] {
	return funcReader(func(ctx context.Context, yield func(Record, error) bool) {
		f, err := openFile(ctx, path, sopts)
		if err != nil {
			yield(Record{}, err)
			return
		}
		defer f.Close()
		read(ctx, f, yield)
	})
}

// funcReader returns a reader whose every pass is read.
func funcReader(read func(ctx context.Context, yield func(Record, error) bool)) source.Reader[Record] {
	return source.Func[Record](func(ctx context.Context) iter.Seq2[Record, error] {
		return func(yield func(Record, error) bool) { read(ctx, yield) }
	})
}

// yieldLines hands the lines of seq to yield until one fails or the
// context is cancelled; it reports whether seq was read to its end.
func yieldLines(ctx context.Context, seq iter.Seq2[Record, error], yield func(Record, error) bool) bool {
	for r, err := range seq {
		if err == nil {
			err = ctx.Err()
		}
		if !yield(r, err) || err != nil {
			return false
		}
	}
	return true
}
