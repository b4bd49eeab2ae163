package idx

import (
	"container/list"
	"sync"
)

// DefaultCacheBytes is the default bound of the decoded-file cache (see
// [SetCacheBytes]): the MNIST training and test sets (55 MB together)
// with room to spare, and EMNIST's smaller splits.
const DefaultCacheBytes = 256 << 20 // 256 MiB

// SetCacheBytes bounds the memory of the process-wide cache of decoded
// files and returns the previous bound; 0 turns the cache off. It panics
// if n < 0.
//
// dataset/mnist keeps there the decoded image and label files of a Load,
// keyed by both files' versions ([Input.Key]) and the limits they were
// read with, so that every later Load of the same files takes them from
// memory instead of reading (and gunzipping) them again. The cache holds
// the values most recently used while their bytes stay within the bound;
// a value larger than the bound is not kept. Users of a value keep its
// memory until they drop it, even when the cache drops it.
func SetCacheBytes(n int64) (previous int64) {
	if n < 0 {
		panic("idx: SetCacheBytes: negative bound")
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	previous, cache.max = cache.max, n
	cache.evict()
	return previous
}

// CacheGet returns the value kept under key (a comparable value of the
// caller's own type) and true, or nil and false.
func CacheGet(key any) (any, bool) {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	e, ok := cache.byKey[key]
	if !ok {
		return nil, false
	}
	cache.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).v, true
}

// CachePut keeps v, which costs bytes of memory, under key if it fits the
// bound, dropping the least recently used values to make room. It reports
// whether v is kept.
func CachePut(key, v any, bytes int64) bool {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if bytes > cache.max {
		return false
	}
	if e, ok := cache.byKey[key]; ok { // two readers decoded it at once
		cache.lru.MoveToFront(e)
		return true
	}
	cache.byKey[key] = cache.lru.PushFront(&cacheEntry{key: key, v: v, bytes: bytes})
	cache.used += bytes
	cache.evict()
	return true
}

// CacheOn reports whether the cache keeps anything (its bound is not 0).
func CacheOn() bool {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	return cache.max > 0
}

type cacheEntry struct {
	key   any
	v     any
	bytes int64
}

// decodedCache is the process-wide, bounded, least recently used cache.
type decodedCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	lru   list.List // of *cacheEntry, most recent first
	byKey map[any]*list.Element
}

var cache = &decodedCache{max: DefaultCacheBytes, byKey: map[any]*list.Element{}}

// evict drops values, least recently used first, until the cache fits its
// bound. The caller holds c.mu.
func (c *decodedCache) evict() {
	for c.used > c.max {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.byKey, ce.key)
		c.used -= ce.bytes
	}
}
