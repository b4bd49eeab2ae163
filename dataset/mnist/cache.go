package mnist

import (
	"container/list"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultCacheBytes is the default bound of the decoded-file cache (see
// [SetCacheBytes]): the MNIST training and test sets (55 MB together)
// with room to spare, and EMNIST's smaller splits.
const DefaultCacheBytes = 256 << 20 // 256 MiB

// SetCacheBytes bounds the memory of the process-wide cache of decoded
// MNIST files and returns the previous bound; 0 turns the cache off.
//
// [Dataset.Load] decodes its image and label files once per process: the
// decoded, checked bytes are kept, keyed by both files' paths, sizes and
// modification times (a remote file's URL, size and ETag) and by the
// [WithIDX] limits, and every later Load of the same files, by any
// Dataset, takes them from memory instead of reading (and gunzipping) the
// files again; the tables share the images. A file that changes gets a new
// size or modification time (or ETag) and is decoded again; a local one
// rewritten within the file system's timestamp resolution, keeping its
// size, is not noticed.
//
// The cache holds the data sets most recently used while their decoded
// bytes (784 per image, 1 per label) stay within the bound; a data set
// larger than the bound is not kept, and every Load of it reads the files.
// Tables keep the memory they use until they are dropped, even when the
// cache drops it. Files whose decoding fails are not kept. SetCacheBytes
// panics if n < 0.
func SetCacheBytes(n int64) (previous int64) {
	if n < 0 {
		panic("mnist: SetCacheBytes: negative bound")
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	previous = cache.max.Swap(n)
	cache.evict()
	return previous
}

// decoded is an image file and a label file decoded into memory and
// checked as a pass checks them: headers, counts, no truncation, nothing
// after the last record. Labels are not checked against the classes,
// which every pass does itself under its own bad-record policy.
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

// fileKey identifies a file's version.
type fileKey struct {
	path  string
	size  int64
	mtime time.Time
	etag  string // a remote file's ETag at open (its mtime is zero)
}

// cacheKey identifies a decoded data set.
type cacheKey struct {
	img, lab          fileKey
	maxRecord, maxFil int64
}

type cacheEntry struct {
	key cacheKey
	d   *decoded
}

// decodedCache is the process-wide, bounded, least recently used cache of
// decoded data sets.
type decodedCache struct {
	mu    sync.Mutex
	max   atomic.Int64
	used  int64
	lru   list.List // of *cacheEntry, most recent first
	byKey map[cacheKey]*list.Element
}

var cache = func() *decodedCache {
	c := &decodedCache{byKey: map[cacheKey]*list.Element{}}
	c.max.Store(DefaultCacheBytes)
	return c
}()

// get returns the data set of key, or nil.
func (c *decodedCache) get(k cacheKey) *decoded {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).d
}

// put keeps d under key if it fits the bound, dropping the least recently
// used data sets to make room.
func (c *decodedCache) put(k cacheKey, d *decoded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.bytes() > c.max.Load() {
		return
	}
	if e, ok := c.byKey[k]; ok { // two passes decoded it at once
		c.lru.MoveToFront(e)
		return
	}
	c.byKey[k] = c.lru.PushFront(&cacheEntry{key: k, d: d})
	c.used += d.bytes()
	c.evict()
}

// evict drops data sets, least recently used first, until the cache fits
// its bound. The caller holds c.mu.
func (c *decodedCache) evict() {
	for c.used > c.max.Load() {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.byKey, ce.key)
		c.used -= ce.d.bytes()
	}
}

// keyOf returns the cache key of an open pair of files; ok is false when
// either is not a regular file (a pipe, a device), which is not cached.
func keyOf(f *files, cfg idxConfig) (k cacheKey, ok bool, err error) {
	ik, ok, err := fileKeyOf(f.imgF)
	if !ok || err != nil {
		return cacheKey{}, false, err
	}
	lk, ok, err := fileKeyOf(f.labF)
	if !ok || err != nil {
		return cacheKey{}, false, err
	}
	return cacheKey{img: ik, lab: lk, maxRecord: cfg.maxRecord, maxFil: cfg.maxFile}, true, nil
}

func fileKeyOf(f *idxFile) (k fileKey, ok bool, err error) {
	if f.obj != nil {
		return fileKey{path: f.name, size: f.size, etag: f.obj.ETag()}, true, nil
	}
	st, err := f.os.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return fileKey{}, false, err
	}
	path, err := filepath.Abs(f.os.Name())
	if err != nil {
		return fileKey{}, false, err
	}
	return fileKey{path: path, size: st.Size(), mtime: st.ModTime()}, true, nil
}
