package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tensorfeed/tensorfeed/dataset/format"
)

// shardSet writes the files of one conversion or pack with a format's
// Write, in a temporary folder inside their folder; commit moves them all
// out, abort removes them: a failed run leaves no file, partial or whole.
type shardSet struct {
	dir, tmp             string
	f                    format.Format
	name                 func(i int) string // the i-th file's name
	maxRecords, maxBytes int64
	cur                  format.RecordWriter
	records, size        int64    // of cur
	done                 []string // the names of the files finished
	bytes                int64    // their sizes
}

// newShardSet starts the files named by name in dir, which it makes if
// missing; a file ends when it holds maxRecords records or maxBytes bytes
// (0: no limit).
func newShardSet(dir string, f format.Format, name func(int) string, maxRecords, maxBytes int64) (*shardSet, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, "."+name(0)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &shardSet{dir: dir, tmp: tmp, f: f, name: name, maxRecords: maxRecords, maxBytes: maxBytes}, nil
}

// write adds rec to the current file, first starting a new one when the
// current one has reached a limit. An error about rec itself names where
// it was read, as where says.
func (s *shardSet) write(rec format.Record, where func() string) error {
	if s.cur != nil && (s.maxRecords > 0 && s.records >= s.maxRecords || s.maxBytes > 0 && s.size >= s.maxBytes) {
		if err := s.finish(); err != nil {
			return err
		}
	}
	if s.cur == nil {
		w, err := s.f.Write(filepath.Join(s.tmp, s.name(len(s.done))))
		if err != nil {
			return err
		}
		s.cur, s.records, s.size = w, 0, 0
	}
	n, err := s.cur.Write(rec)
	if err != nil {
		return fmt.Errorf("%s: %w", where(), err)
	}
	s.records++
	s.size = n
	return nil
}

// finish ends the current file.
func (s *shardSet) finish() error {
	w := s.cur
	s.cur = nil
	name := s.name(len(s.done))
	s.done = append(s.done, name)
	if err := w.Close(); err != nil {
		return err
	}
	st, err := os.Stat(filepath.Join(s.tmp, name))
	if err != nil {
		return err
	}
	s.bytes += st.Size()
	return nil
}

// commit finishes the last file and moves every file out of the
// temporary folder. The old files of those names are removed first and
// the files a format keeps beside its own (a RecordIO file's .idx) are
// moved last, so that at no moment does a new .rec sit beside an old
// .idx, whose offsets would point into the wrong file: an interruption
// leaves at worst a .rec without its .idx, which is still read
// sequentially.
func (s *shardSet) commit() error {
	if s.cur != nil {
		if err := s.finish(); err != nil {
			return err
		}
	}
	des, err := os.ReadDir(s.tmp)
	if err != nil {
		return err
	}
	names := s.done
	for _, de := range des {
		if err := os.Remove(filepath.Join(s.dir, de.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if !slices.Contains(s.done, de.Name()) {
			names = append(names, de.Name())
		}
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(s.tmp, n), filepath.Join(s.dir, n)); err != nil {
			return err
		}
	}
	return os.Remove(s.tmp)
}

// abort removes the temporary folder, and so every file not committed.
// It is deferred, so every failure path cleans up.
func (s *shardSet) abort() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
	os.RemoveAll(s.tmp)
}
