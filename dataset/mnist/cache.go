package mnist

import "github.com/tensorfeed/tensorfeed/internal/idx"

// decoded is an image file and a label file decoded into memory and
// checked as a pass checks them: headers, counts, no truncation, nothing
// after the last record. Labels are not checked against the classes,
// which every pass does itself under its own bad-record policy. Decoded
// sets are kept in the process-wide cache of package idx (256 MiB by
// default), so that the files are decoded once per process.
type decoded struct {
	images  [][]byte // blocks of blockSamples images
	labels  []byte
	labName string // as the file was opened, for errors
}

func (d *decoded) n() int { return len(d.labels) }

func (d *decoded) bytes() int64 {
	return int64(len(d.labels)) * (Pixels + 1)
}

// image returns the pixels of image j.
func (d *decoded) image(j int) []byte {
	at := j % blockSamples * Pixels
	return d.images[j/blockSamples][at : at+Pixels : at+Pixels]
}

// cacheKey identifies a decoded data set: both files' versions and the
// limit they were read with.
type cacheKey struct {
	img, lab idx.FileKey
	maxFile  int64
}

// keyOf returns the cache key of an open pair of files; ok is false when
// either is not a regular file (a pipe, a device), which is not cached.
func keyOf(f *files, maxFile int64) (k cacheKey, ok bool, err error) {
	ik, ok, err := f.imgF.Key()
	if !ok || err != nil {
		return cacheKey{}, false, err
	}
	lk, ok, err := f.labF.Key()
	if !ok || err != nil {
		return cacheKey{}, false, err
	}
	return cacheKey{img: ik, lab: lk, maxFile: maxFile}, true, nil
}
