package idx_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/idx"
)

// The decoded-file cache keeps the values most recently used within its
// bound, keeps nothing larger than the bound, and nothing at all at 0.
func TestCache(t *testing.T) {
	type key struct{ n int }
	prev := idx.SetCacheBytes(100)
	defer idx.SetCacheBytes(prev)
	if prev != idx.DefaultCacheBytes {
		t.Errorf("default bound %d, want %d", prev, idx.DefaultCacheBytes)
	}
	has := func(n int) bool {
		_, ok := idx.CacheGet(key{n})
		return ok
	}
	if !idx.CachePut(key{1}, "a", 40) || !idx.CachePut(key{2}, "b", 40) {
		t.Fatal("values within the bound not kept")
	}
	if v, ok := idx.CacheGet(key{1}); !ok || v != "a" { // 1 is now the most recent
		t.Fatalf("get 1: %v, %v", v, ok)
	}
	idx.CachePut(key{3}, "c", 40) // 120 bytes: 2, the least recently used, goes
	if !has(1) || has(2) || !has(3) {
		t.Errorf("after eviction: 1 %v, 2 %v, 3 %v; want 1 and 3", has(1), has(2), has(3))
	}
	if idx.CachePut(key{4}, "d", 101) || has(4) {
		t.Error("a value larger than the bound was kept")
	}
	if _, ok := idx.CacheGet(struct{ n int }{1}); ok {
		t.Error("a key of another type found a value")
	}
	if !idx.CacheOn() || idx.SetCacheBytes(0) != 100 || idx.CacheOn() {
		t.Error("SetCacheBytes(0) does not turn the cache off")
	}
	if has(1) || has(3) || idx.CachePut(key{5}, "e", 1) {
		t.Error("the cache kept values at a bound of 0")
	}
}

func TestOptionsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"max record 0":   func() { idx.MaxRecordBytes(0) },
		"max file 0":     func() { idx.MaxFileBytes(0) },
		"input size -1":  func() { idx.InputSize(-1) },
		"cache bound -1": func() { idx.SetCacheBytes(-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
