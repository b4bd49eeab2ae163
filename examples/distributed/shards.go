package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// A record is a sample's id (uint32, little-endian), its label (one byte)
// and its 784 pixels; the .idx key of a record is the sample's id.
const recordSize = 4 + 1 + mnist.Pixels

// digit is one sample as a rank reads it back.
type digit struct {
	ID     int32
	Label  uint8
	Pixels []byte // mnist.Pixels bytes
}

// shardName names shard k of n: train-00003-of-00008.rec and .idx.
func shardName(k, n int, ext string) string { return fmt.Sprintf("train-%05d-of-%05d%s", k, n, ext) }

// shardGlob matches the .rec shards of a set of n.
func shardGlob(n int) string { return fmt.Sprintf("train-*-of-%05d.rec", n) }

// encodeShards writes samples as n RecordIO shards of consecutive samples
// (sample i in shard i*n/len), each a .rec and its .idx; the id of a
// sample is its index in the MNIST training file.
func encodeShards(samples []mnist.Sample, n int) (recs, idxs [][]byte, err error) {
	rec := make([]byte, recordSize)
	for k := range n {
		lo, hi := k*len(samples)/n, (k+1)*len(samples)/n
		var data, idx bytes.Buffer
		w := recordio.NewWriter(&data)
		for _, s := range samples[lo:hi] {
			idx.Write(recordio.AppendIndexLine(nil, int64(s.Index), w.Tell()))
			binary.LittleEndian.PutUint32(rec, uint32(s.Index))
			rec[4] = s.Label
			copy(rec[5:], s.Image[:])
			if err := w.Write(rec); err != nil {
				return nil, nil, err
			}
		}
		recs, idxs = append(recs, data.Bytes()), append(idxs, idx.Bytes())
	}
	return recs, idxs, nil
}

// loadSamples reads the first limit samples of the MNIST training set in
// file order (all of them when limit is 0).
func loadSamples(ctx context.Context, dir string, limit int) ([]mnist.Sample, error) {
	var samples []mnist.Sample
	for s, err := range mnist.Train(dir).All(ctx) { // the files in their order, one record at a time
		if err != nil {
			return nil, fmt.Errorf("MNIST training set (set -data to the folder of the MNIST IDX files): %w", err)
		}
		samples = append(samples, s)
		if len(samples) == limit {
			break
		}
	}
	return samples, nil
}

// shardSet is the dataset of every shard as one random-access set of
// digits: recordio.Indexed, whose index i is record i of the concatenated
// .idx files in the order List gives the shards, with each record decoded
// and checked. Each shard is read by ReadAt through package storage (from
// the local cache, when the options have one). It is safe for concurrent
// use.
type shardSet struct {
	shards *recordio.Indexed
}

var _ source.Indexed[digit] = (*shardSet)(nil)

// openShards lists the .rec objects that match pattern, opens each and
// reads and checks its .idx (every entry a record, every record listed).
func openShards(ctx context.Context, pattern string, opts []storage.Option) (*shardSet, error) {
	shards, err := recordio.OpenIndexed(ctx, pattern, recordio.Storage(opts...))
	if err != nil {
		return nil, err
	}
	if err := shards.Validate(); err != nil {
		shards.Close()
		return nil, err
	}
	return &shardSet{shards: shards}, nil
}

// Len returns the number of records of all shards.
func (s *shardSet) Len() int { return s.shards.Len() }

// Key returns the .idx key (the sample's id) of record i.
func (s *shardSet) Key(i int) int64 {
	_, _, key := s.shards.Locate(i)
	return key
}

// Get reads and decodes record i.
func (s *shardSet) Get(i int) (digit, error) {
	p, err := s.shards.Get(i)
	if err != nil {
		return digit{}, err
	}
	bad := func(format string, args ...any) (digit, error) {
		file, j, _ := s.shards.Locate(i)
		return digit{}, &recordError{File: file, Record: j, Msg: fmt.Sprintf(format, args...)}
	}
	if len(p) != recordSize {
		return bad("%d bytes, want %d", len(p), recordSize)
	}
	d := digit{ID: int32(binary.LittleEndian.Uint32(p)), Label: p[4], Pixels: p[5:]}
	if key := s.Key(i); int64(d.ID) != key {
		return bad("id %d, its .idx key is %d", d.ID, key)
	}
	if d.Label > 9 {
		return bad("label %d", d.Label)
	}
	return d, nil
}

// Close closes every shard.
func (s *shardSet) Close() error { return s.shards.Close() }

// recordError is a record that is not a sample of this example: it names
// the shard and the record's position in its .idx.
type recordError struct {
	File   string
	Record int
	Msg    string
}

func (e *recordError) Error() string {
	return fmt.Sprintf("%s: record %d: %s", e.File, e.Record, e.Msg)
}

// Unwrap makes the error match tensorfeed.ErrBadData.
func (e *recordError) Unwrap() error { return tensorfeed.ErrBadData }

// FilePath returns the shard's URL.
func (e *recordError) FilePath() string { return e.File }
