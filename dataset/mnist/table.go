package mnist

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
)

// Table is an MNIST set decoded into memory: a random-access dataset
// (source.Indexed[Sample]) to read with source.ReadIndexed, in order or
// shuffled by index (source.ShuffleIndex), split over ranks
// (source.ShardIndex), and resumed at any position of an epoch directly,
// without reading what comes before it:
//
//	train, err := mnist.Train("data/mnist").Load(ctx)
//	...
//	feed := pipeline.Tensorize(pipeline.From(source.ReadIndexed(train, source.ShuffleIndex(42))),
//		sink.Of[mnist.Sample](128), batch.Keep).Buffered(4)
//
// The 60,000 training images take 47 MB, shared by every table of the same
// files through the decoded-file cache; Get works a sample out from its
// index (a pointer to its image, its label), so a shuffled pass touches no
// table of samples beside the images it reads. A Table is a source.Identifier: a
// checkpoint of a pass over it is refused over a table of other files. It
// is safe for concurrent use.
type Table struct {
	dec  *decoded
	keep []int32  // the samples' indexes in the files when Load skipped some; nil: all of them
	from *Dataset // the dataset loaded, which names the files
}

var (
	_ source.Indexed[Sample] = (*Table)(nil)
	_ source.Identifier      = (*Table)(nil)
)

// Load reads the dataset's files into memory, in their order, and checks
// them whole: headers, counts, truncation, data after the last record, and
// every label against [Classes] under the bad-record policy (a skipped
// sample is not in the table, and the Index of every sample says where it
// is in the files). The files are read and decompressed once per process:
// the decoded, checked bytes are kept in a process-wide cache of 256 MiB
// (the data sets most recently used), keyed by both files' paths, sizes and
// modification times (a remote file's URL, size and ETag), and every later
// Load of the same files, by any Dataset, takes them from memory; the
// tables share the images. A file that changes gets a new size or
// modification time (or ETag) and is decoded again; a local one rewritten
// within the file system's timestamp resolution, keeping its size, is not
// noticed. The memory is bounded by what the files really hold and by
// [MaxFileBytes]. The first error is returned, with no table; ctx bounds
// the requests of remote files.
func (d *Dataset) Load(ctx context.Context) (*Table, error) {
	f, err := d.openContext(ctx)
	if err != nil {
		return nil, err
	}
	defer f.close()
	dec, err := decodedOf(f, d.cfg.maxFile)
	if err != nil {
		return nil, err
	}
	log := tensorfeed.Logger(ctx)
	if ce := log.Check(zap.DebugLevel, "mnist load"); ce != nil {
		ce.Write(zap.String("images", f.img.Name()), zap.String("labels", f.lab.Name()),
			zap.Int("samples", dec.n()), zap.Bool("gzip", f.img.Gzipped()))
	}
	cnt := (*skipcount.Policy)(d.cfg.skip).Pass(int64(dec.n()), log)
	var keep []int32
	for i, l := range dec.labels {
		if bad := d.badLabel(dec.labName, i, labelsHeader+int64(i), l); bad != nil {
			if err := cnt.Bad(bad); err != nil {
				return nil, err
			}
			if keep == nil { // the first skip: every sample before it is kept
				keep = make([]int32, i, dec.n())
				for k := range keep {
					keep[k] = int32(k)
				}
			}
			continue
		}
		cnt.Good()
		if keep != nil {
			keep = append(keep, int32(i))
		}
	}
	if err := cnt.End(); err != nil {
		return nil, err
	}
	return &Table{dec: dec, keep: keep, from: d}, nil
}

// Len returns the number of samples.
func (t *Table) Len() int {
	if t.keep != nil {
		return len(t.keep)
	}
	return t.dec.n()
}

// Get returns sample i (its Index field says where it is in the files). An
// index outside [0, Len()) is an error wrapping source.ErrIndex. It does
// not allocate.
func (t *Table) Get(i int) (Sample, error) {
	n := t.Len()
	if uint(i) >= uint(n) {
		return Sample{}, source.IndexError(i, n)
	}
	j := i
	if t.keep != nil {
		j = int(t.keep[i])
	}
	return Sample{Image: (*[Pixels]uint8)(t.dec.image(j)), Label: t.dec.labels[j], Index: j}, nil
}

// Identity returns the identity of the image and label files the table was
// loaded from (source.Identifier): their base names, sizes and
// modification times or ETags, so that a checkpoint of source.ReadIndexed
// over the table is refused over a table of other files with as many
// samples. It reads the files' metadata again, not the table's samples.
func (t *Table) Identity(ctx context.Context) (string, error) {
	if t.from == nil {
		return "", nil
	}
	id, err := t.from.Identity(ctx)
	if err != nil {
		return "", err
	}
	if t.from.cfg.classes != 10 {
		id += fmt.Sprintf(" (classes %d)", t.from.cfg.classes)
	}
	return id, nil
}
