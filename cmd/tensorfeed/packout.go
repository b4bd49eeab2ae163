package main

import (
	"errors"
	"os"
	"path/filepath"
)

// packOutput is the .rec and .idx pair that "im2rec pack" writes, under
// temporary names in the folder of the final files, so that a rename (atomic
// within a folder) publishes each file whole.
type packOutput struct {
	base     string // the final files are base+".rec" and base+".idx"
	rec, idx *os.File
	done     bool
}

// newPackOutput creates the two temporary files next to base.
func newPackOutput(base string) (*packOutput, error) {
	dir, name := filepath.Split(base)
	if dir == "" {
		dir = "."
	}
	rec, err := os.CreateTemp(dir, "."+name+".rec.tmp*")
	if err != nil {
		return nil, err
	}
	idx, err := os.CreateTemp(dir, "."+name+".idx.tmp*")
	if err != nil {
		rec.Close()
		os.Remove(rec.Name())
		return nil, err
	}
	return &packOutput{base: base, rec: rec, idx: idx}, nil
}

// commit closes the temporary files and renames them to their final names.
// The old .idx is removed first and the new .idx renamed last, so that at
// no moment does a new .rec sit beside an old .idx, whose offsets would
// point into the wrong file: an interruption leaves at worst a .rec without
// its .idx, which is still read sequentially.
func (p *packOutput) commit() error {
	err := errors.Join(p.rec.Sync(), p.rec.Close(), p.idx.Sync(), p.idx.Close())
	if err != nil {
		return err
	}
	// The permissions os.Create would have given, not CreateTemp's 0600.
	for _, f := range []*os.File{p.rec, p.idx} {
		if err := os.Chmod(f.Name(), 0o644); err != nil {
			return err
		}
	}
	if err := os.Remove(p.base + ".idx"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(p.rec.Name(), p.base+".rec"); err != nil {
		return err
	}
	if err := os.Rename(p.idx.Name(), p.base+".idx"); err != nil {
		return err
	}
	p.done = true
	return nil
}

// abort removes the temporary files unless commit has renamed them. It is
// deferred, so every failure path cleans up.
func (p *packOutput) abort() {
	if p.done {
		return
	}
	p.rec.Close()
	p.idx.Close()
	os.Remove(p.rec.Name())
	os.Remove(p.idx.Name())
}
