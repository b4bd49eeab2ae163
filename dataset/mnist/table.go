package mnist

import (
	"context"
	"fmt"
	"slices"

	"github.com/tensorfeed/tensorfeed/source"
)

// Table is an MNIST set decoded into memory: a random-access dataset
// (source.Indexed[Sample]) to read with source.ReadIndexed, in order or
// shuffled by index, and to resume at any position of an epoch. The 60,000
// training samples take about 47 MB. Make one with [Dataset.Load]. It is
// safe for concurrent use.
type Table struct {
	samples []Sample
	from    *Dataset // the dataset loaded, which names the files
}

var (
	_ source.Indexed[Sample] = (*Table)(nil)
	_ source.Identifier      = (*Table)(nil)
)

// Load reads one pass of the dataset and keeps its samples in memory, in
// the order of the files whatever the Shuffle option says. The dataset's
// other options apply: its shard, its classes, its bad-record policy (a
// skipped sample is not in the table) and its IDX limits, which bound the
// memory by what the files really hold ([MaxFileBytes]). The first error
// of the pass is returned, with no table.
func (d *Dataset) Load(ctx context.Context) (*Table, error) {
	n, err := d.Len()
	if err != nil {
		return nil, err
	}
	// A gzipped file's header is not checked against the bytes behind it:
	// allocate a bounded start and grow as samples arrive.
	samples := make([]Sample, 0, min(n, loadStep))
	for s, err := range d.All(ctx) {
		if err != nil {
			return nil, err
		}
		samples = append(samples, s)
	}
	if d.cfg.shuffle {
		slices.SortFunc(samples, func(a, b Sample) int { return a.Index - b.Index })
	}
	return &Table{samples: slices.Clip(samples), from: d}, nil
}

// loadStep is the most samples Load allocates for before they arrive.
const loadStep = 4096

// Len returns the number of samples.
func (t *Table) Len() int { return len(t.samples) }

// Get returns sample i (its Index field says where it is in the files). An
// index outside [0, Len()) is an error wrapping source.ErrIndex. It does
// not allocate.
func (t *Table) Get(i int) (Sample, error) {
	if uint(i) >= uint(len(t.samples)) {
		return Sample{}, source.IndexError(i, len(t.samples))
	}
	return t.samples[i], nil
}

// Identity returns the identity of the image and label files the table was
// loaded from, as the dataset's own readers give it (source.Identifier):
// a checkpoint of source.ReadIndexed over the table is refused over a
// table of other files with as many samples. A table of a Shard of the
// files says which, as two shards of one file can hold as many samples. It reads the files' metadata again, not the
// table's samples.
func (t *Table) Identity(ctx context.Context) (string, error) {
	if t.from == nil {
		return "", nil
	}
	id, err := t.from.identity(ctx)
	if err != nil {
		return "", err
	}
	if c := t.from.cfg; c.shards > 1 {
		id += fmt.Sprintf(" (shard %d/%d)", c.shard, c.shards)
	}
	return id, nil
}
