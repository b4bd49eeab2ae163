package format

import (
	"context"
	"iter"
	"sync"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
)

// seams finds, in one pass of Open, a WebDataset sample split across two
// shards: the key of the last sample of a wds file is the key of the
// first sample of the next one (wds files with no sample in between are
// passed over). webdataset.Open refuses such a sample; Open reads
// each file on its own, so it looks at the seams between them here and
// refuses it the same way, with webdataset.SplitAcross. With several
// workers the files are read at once: a seam is judged when both of its
// sides are known, by whichever of their readers comes last, so the error
// may follow some records of the later file.
//
// It holds two keys per file of the pass.
type seams struct {
	mu    sync.Mutex
	paths []string
	files []seamFile
	queue map[string][]int // each path's indexes in paths not yet opened, in order
}

// seamFile is what seams knows of one file of the pass.
type seamFile struct {
	wds     bool   // read by the wds format
	started bool   // its first record was read
	done    bool   // read to its end
	empty   bool   // done without a record
	first   string // the key of its first record
	last    string // the key of its last record, once done
	offset  int64  // the offset of its first record
}

func newSeams(paths []string) *seams {
	s := &seams{paths: paths, files: make([]seamFile, len(paths)), queue: make(map[string][]int)}
	for i, p := range paths {
		s.queue[p] = append(s.queue[p], i)
	}
	return s
}

// index returns the index of the file source.Files opens next under
// path. Files opens them in order; a path named twice has the same records
// at both indexes, so taking them in call order is right even when two
// workers open it at once.
func (s *seams) index(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue[path]
	if len(q) == 0 {
		return -1
	}
	s.queue[path] = q[1:]
	return q[0]
}

// wrap returns r, the reader of file i by the format name, watched for
// split samples when name is wds.
func (s *seams) wrap(i int, name string, r source.Reader[Record]) source.Reader[Record] {
	if name != "wds" || i < 0 {
		return r
	}
	return source.Func[Record](func(ctx context.Context) iter.Seq2[Record, error] {
		return func(yield func(Record, error) bool) {
			n, last := 0, ""
			for rec, err := range r.All(ctx) {
				if err == nil && n == 0 {
					err = s.start(i, rec.Key, rec.Offset)
				}
				if !yield(rec, err) || err != nil {
					return
				}
				n++
				last = rec.Key
			}
			if err := s.end(i, n == 0, last); err != nil {
				yield(Record{}, err)
			}
		}
	})
}

// start records the first key of file i and judges the seam before it.
func (s *seams) start(i int, key string, offset int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &s.files[i]
	f.wds, f.started, f.first, f.offset = true, true, key, offset
	return s.judge(s.before(i), i)
}

// end records the end of file i and judges the seams it closes.
func (s *seams) end(i int, empty bool, last string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &s.files[i]
	f.wds, f.done, f.empty, f.last = true, true, empty, last
	if empty {
		return s.judge(s.before(i), s.after(i))
	}
	return s.judge(i, s.after(i))
}

// before returns the index of the wds file before i, passing over the
// wds files read to their end without a record, or -1.
func (s *seams) before(i int) int {
	j := i - 1
	for j >= 0 && s.files[j].wds && s.files[j].done && s.files[j].empty {
		j--
	}
	return j
}

// after returns the index of the wds file after i, passing over the wds
// files read to their end without a record, or len(files).
func (s *seams) after(i int) int {
	k := i + 1
	for k < len(s.files) && s.files[k].wds && s.files[k].done && s.files[k].empty {
		k++
	}
	return k
}

// judge returns the error of a sample split between files j and k, when
// both are wds files known well enough: j read to its end, k started.
func (s *seams) judge(j, k int) error {
	if j < 0 || k >= len(s.files) {
		return nil
	}
	a, b := &s.files[j], &s.files[k]
	if !a.wds || !a.done || a.empty || !b.wds || !b.started || a.last != b.first {
		return nil
	}
	return webdataset.SplitAcross(s.paths[j], s.paths[k], b.first, b.offset)
}
