package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tensorfeed/tensorfeed"
)

// Cache keeps whole remote objects in a local directory, at most maxBytes
// of them, evicting the least recently used. Its index is the directory
// itself (a data file and a small JSON file of URL, ETag and size per
// object), so it survives restarts, and several Cache values or processes
// may share one directory: files are written to a temporary name and
// renamed, and eviction runs under an advisory lock (flock) on the
// directory's .lock file.
//
// An entry is used only when its size and ETag match the object's; an
// entry whose ETag differs from the object's current one is an error
// wrapping ErrChanged (Remove it to fetch the new version).
type Cache struct {
	dir string
	max int64
}

// NewCache returns a cache in dir (created if needed) holding at most
// maxBytes of objects. It panics if maxBytes is less than 1.
func NewCache(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes < 1 {
		panic("storage: NewCache needs maxBytes >= 1")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, objectError("cache", dir, 0, -1, fmt.Errorf("%w: %w", ErrCacheWrite, err))
	}
	return &Cache{dir: dir, max: maxBytes}, nil
}

type entryMeta struct {
	URL  string `json:"url"`
	ETag string `json:"etag"`
	Size int64  `json:"size"`
}

func (c *Cache) paths(url string) (data, meta string) {
	h := sha256.Sum256([]byte(url))
	k := hex.EncodeToString(h[:16])
	return filepath.Join(c.dir, k+".data"), filepath.Join(c.dir, k+".json")
}

// Remove deletes the entry of url, if any.
func (c *Cache) Remove(url string) error {
	data, meta := c.paths(url)
	err := errors.Join(ignoreMissing(os.Remove(meta)), ignoreMissing(os.Remove(data)))
	if err != nil {
		return objectError("cache", url, 0, -1, err)
	}
	return nil
}

func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Used returns the bytes the cache's directory holds now (entries and
// downloads in progress).
func (c *Cache) Used() (int64, error) {
	es, err := c.scan()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range es {
		total += e.size
	}
	return total, nil
}

// open returns the cached copy of o, downloading it first if needed.
func (c *Cache) open(ctx context.Context, o *object) (*object, error) {
	data, meta := c.paths(o.name)
	if obj, err := c.hit(o, data, meta); obj != nil || err != nil {
		return obj, err
	}
	cacheErr := func(err error) error {
		return objectError("cache", o.name, 0, -1, fmt.Errorf("%w: %w", ErrCacheWrite, err))
	}
	if o.size > c.max {
		return nil, cacheErr(fmt.Errorf("the object's %d bytes exceed the cache's limit of %d", o.size, c.max))
	}
	tmp, err := c.reserve(o.size)
	if err != nil {
		return nil, cacheErr(err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	r := o.readerFrom(ctx, 0)
	// Large writes: a file written 32 KiB at a time (io.Copy's buffer, which
	// *os.File's ReadFrom falls back to) reads back from the page cache
	// about 1.5x slower than one written in large pieces.
	buf := make([]byte, max(1, min(o.size, 4<<20)))
	n, err := io.CopyBuffer(struct{ io.Writer }{tmp}, r, buf)
	r.Close()
	if err != nil {
		var se *tensorfeed.Error
		if errors.As(err, &se) {
			return nil, err // a read error: the object's, not the cache's
		}
		return nil, cacheErr(err)
	}
	if n != o.size {
		return nil, objectError("cache", o.name, 0, -1, fmt.Errorf("downloaded %d bytes, want %d", n, o.size))
	}
	if err := tmp.Sync(); err != nil {
		return nil, cacheErr(err)
	}
	mb, _ := json.Marshal(entryMeta{URL: o.name, ETag: o.etag, Size: o.size})
	mtmp := tmp.Name() + ".json"
	if err := os.WriteFile(mtmp, mb, 0o644); err != nil {
		os.Remove(mtmp)
		return nil, cacheErr(err)
	}
	// The data first, then the JSON that makes it an entry.
	if err := os.Rename(tmp.Name(), data); err != nil {
		os.Remove(mtmp)
		return nil, cacheErr(err)
	}
	committed = true
	if err := os.Rename(mtmp, meta); err != nil {
		tmp.Close()
		os.Remove(mtmp)
		return nil, cacheErr(err)
	}
	return &object{name: o.name, size: o.size, etag: o.etag, be: localFile{tmp}, cfg: o.cfg, local: true, validated: true}, nil
}

// hit returns the cached copy when the entry is complete and matches o; a
// nil object and error mean a miss.
func (c *Cache) hit(o *object, data, meta string) (*object, error) {
	mb, err := os.ReadFile(meta)
	if err != nil {
		return nil, nil
	}
	var m entryMeta
	if json.Unmarshal(mb, &m) != nil || m.URL != o.name {
		return nil, nil // damaged, or a hash collision: replaced on download
	}
	if m.ETag != o.etag {
		return nil, objectError("cache", o.name, 0, -1, fmt.Errorf(
			"%w: cached with ETag %s, %s now (remove it from the cache to fetch the new version)", ErrChanged, m.ETag, o.etag))
	}
	f, err := os.Open(data)
	if err != nil {
		return nil, nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != m.Size || m.Size != o.size {
		f.Close()
		return nil, nil
	}
	now := time.Now()
	_ = os.Chtimes(data, now, now) // recently used; a read-only cache still serves
	return &object{name: o.name, size: o.size, etag: o.etag, be: localFile{f}, cfg: o.cfg, local: true, validated: true}, nil
}

type cacheEntry struct {
	data, meta string
	size       int64
	used       time.Time
	tmp        bool
}

// scan lists the directory: entries with their data file's size and last
// use, and downloads in progress.
func (c *Cache) scan() ([]cacheEntry, error) {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, err
	}
	var es []cacheEntry
	for _, de := range des {
		name := de.Name()
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			es = append(es, cacheEntry{data: filepath.Join(c.dir, name), size: fi.Size(), used: fi.ModTime(), tmp: true})
		case strings.HasSuffix(name, ".data"):
			k := strings.TrimSuffix(name, ".data")
			es = append(es, cacheEntry{data: filepath.Join(c.dir, name), meta: filepath.Join(c.dir, k+".json"), size: fi.Size(), used: fi.ModTime()})
		}
	}
	return es, nil
}

// staleTmp is the age after which a temporary file is a crashed download.
const staleTmp = time.Hour

// reserve removes the least recently used entries until need more bytes
// fit under the limit and creates the temporary file of the download, as
// long as need (so other caches count it), all under the directory's lock.
func (c *Cache) reserve(need int64) (*os.File, error) {
	lf, err := os.OpenFile(filepath.Join(c.dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	if err := lockFile(lf); err != nil {
		return nil, err
	}
	defer unlockFile(lf)
	if err := c.evict(need); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := tmp.Truncate(need); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return tmp, nil
}

// evict removes the least recently used entries until need more bytes fit
// under the limit. The caller holds the lock.
func (c *Cache) evict(need int64) error {
	es, err := c.scan()
	if err != nil {
		return err
	}
	var total int64
	for _, e := range es {
		if e.tmp && time.Since(e.used) > staleTmp {
			os.Remove(e.data)
			continue
		}
		total += e.size
	}
	slices.SortFunc(es, func(a, b cacheEntry) int { return a.used.Compare(b.used) })
	for _, e := range es {
		if total+need <= c.max {
			break
		}
		if e.tmp {
			continue
		}
		os.Remove(e.meta)
		if err := os.Remove(e.data); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		total -= e.size
	}
	if total+need > c.max {
		return fmt.Errorf("%d bytes in use by downloads in progress, %d more do not fit in %d", total, need, c.max)
	}
	return nil
}
