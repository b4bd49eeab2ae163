package imagerec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// recFiles resolves the .rec argument of New: a file, a ";"-separated list
// of files, or a directory, whose .rec files are taken in name order.
func recFiles(arg string) ([]string, error) {
	if arg == "" {
		return nil, errors.New("the .rec path is empty")
	}
	var paths []string
	for _, p := range strings.Split(arg, ";") {
		if p == "" {
			return nil, fmt.Errorf("%q: an empty path in the list", arg)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			paths = append(paths, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var recs []string
		for _, e := range ents {
			if !e.IsDir() && filepath.Ext(e.Name()) == ".rec" {
				recs = append(recs, filepath.Join(p, e.Name()))
			}
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("%s: no .rec file in the directory", p)
		}
		slices.Sort(recs)
		paths = append(paths, recs...)
	}
	return paths, nil
}

// idxFiles resolves the Index argument for the .rec files recs: a
// ";"-separated list with one .idx per .rec, or a directory holding the
// .idx of each .rec under its base name.
func idxFiles(arg string, recs []string) ([]string, error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		paths := make([]string, len(recs))
		for i, r := range recs {
			base := strings.TrimSuffix(filepath.Base(r), filepath.Ext(r))
			paths[i] = filepath.Join(arg, base+".idx")
			if _, err := os.Stat(paths[i]); err != nil {
				return nil, fmt.Errorf("%s has no index: %w", r, err)
			}
		}
		return paths, nil
	}
	paths := strings.Split(arg, ";")
	if len(paths) != len(recs) {
		return nil, fmt.Errorf("%d .idx files for %d .rec files", len(paths), len(recs))
	}
	return paths, nil
}
