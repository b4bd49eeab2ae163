package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/tensorfeed/tensorfeed/compat/mxnet"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// s3FileBytes is the size of the RecordIO file the s3 rows read.
func s3FileBytes(cfg config) int64 {
	return int64(cfg.size(64<<20, 256<<20, 1<<20))
}

// s3Rows measures a sequential RecordIO pass over an s3:// object served
// by an S3 server in a process of its own (startS3Server: MinIO when its
// binary is found, else gofakes3), against the same pass over the same file on
// local disk, run alternately: cold, every byte fetched from the server
// with storage's read-ahead; warm, through a storage.Cache that a first
// pass filled (each pass still asks the server for the object's ETag).
// "x plain" is the time over the local disk's.
func s3Rows(cfg config) ([]Row, error) {
	dir, err := os.MkdirTemp("", "tensorfeed-bench-s3-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "data.rec")
	records, payload, err := writeS3RecordIO(local, s3FileBytes(cfg))
	if err != nil {
		return nil, err
	}
	srv, err := startS3Server(dir, map[string]string{"data.rec": local})
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	const url = "s3://" + s3Bucket + "/data.rec"
	opts := srv.options()
	cache, err := storage.NewCache(filepath.Join(dir, "cache"), 2*s3FileBytes(cfg))
	if err != nil {
		return nil, err
	}

	floor, err := measureFloor(cfg.cheapReps(), payload, 64<<10)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	read := func(path string, opts ...recordio.Option) func() error {
		r := recordio.Open(path, append(opts, recordio.ReuseBuffer())...)
		var sum uint64
		var n int
		pass := readPass(r, foldRecord, &sum, &n)
		return func() error {
			if err := pass(); err != nil {
				return err
			}
			if n != records {
				return fmt.Errorf("read %d records of %s, want %d", n, path, records)
			}
			return nil
		}
	}
	// The warm reader's first pass (measureEach's untimed warm-up) fills
	// the cache; the cold one never uses it.
	rs, err := measureEach(cfg.cheapReps(),
		read(url, recordio.Storage(opts...)),
		read(url, recordio.Storage(append(opts, storage.WithCache(cache))...)),
		read(local),
		srv.fetch(ctx, "data.rec"))
	if err != nil {
		return nil, err
	}
	cold, warm, disk, fetch := rs[0], rs[1], rs[2], rs[3]
	size := float64(payload) / 1e6
	rowCold := newRow("recordio-s3-cold", 1, records, payload, cold, disk, floor)
	rowCold.Note = fmt.Sprintf("RecordIO file of %.0f MB of payloads, sequential pass with ReuseBuffer from an S3 server (%s, loopback HTTP, storage's default read-ahead); plain: the same file on local disk (page cache), alternately; "+
		"the transfer alone (an independent client, minio-go, getting the whole object into a reused buffer) takes %.2fx the local pass, the cold pass %.2fx the transfer",
		size, srv.kind, fetch.elapsed.Seconds()/disk.elapsed.Seconds(), cold.elapsed.Seconds()/fetch.elapsed.Seconds())
	rowWarm := newRow("recordio-s3-warm", 1, records, payload, warm, disk, floor)
	rowWarm.Note = fmt.Sprintf("RecordIO file of %.0f MB of payloads, sequential pass through storage.WithCache filled by a first pass "+
		"(one HEAD request a pass); plain: the same file on local disk (page cache), alternately", size)
	return []Row{rowCold, rowWarm}, nil
}

// writeS3RecordIO writes records of random bytes, of sizes spread
// between 16 KiB and 240 KiB as JPEG photos are, until the file holds
// about size bytes. It returns the number of records and their payload
// bytes.
func writeS3RecordIO(path string, size int64) (records int, payload int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := recordio.NewWriter(bw)
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 240<<10)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for w.Tell() < size {
		n := 16<<10 + rng.IntN(len(buf)-16<<10)
		start := rng.IntN(len(buf) - n + 1)
		if err := w.Write(buf[start : start+n]); err != nil {
			return 0, 0, err
		}
		records++
		payload += int64(n)
	}
	if err := bw.Flush(); err != nil {
		return 0, 0, err
	}
	return records, payload, f.Close()
}

// imagerecS3Threads is the number of decoding threads of the imagerec-s3
// rows.
const imagerecS3Threads = 2

// imagerecS3Rows measures the image pipeline of the imagerec-pipeline rows
// (decode, random 224 crop, random mirror, mean/std, float32 CHW, batches
// of 128, 2 threads, the part of the photo set those rows read) with a
// global shuffle through the .idx, over the photo .rec and .idx served as
// s3:// objects by an S3 server in a process of its own (startS3Server),
// against the same Iter over the same files on local disk, run
// alternately. Cold: every pass reads each record with one range request,
// up to 16 in flight ahead of the decoding, and checks it against the
// index as it arrives (no read of the whole object first); warm:
// through a storage.Cache that a first pass filled (a pass still asks the
// server for the objects' ETags). "x plain" is the time over the local
// disk's; the three passes must give the same checksum.
func imagerecS3Rows(cfg config) ([]Row, error) {
	path := filepath.Join(cfg.dataDir, "imagerec", "bench", "photos_1536.rec")
	idxPath := strings.TrimSuffix(path, ".rec") + ".idx"
	decs := imagerecDecoders()
	dec := decs[len(decs)-1]
	if _, err := os.Stat(idxPath); err != nil {
		var rows []Row
		for _, name := range []string{"imagerec-s3-cold", "imagerec-s3-warm"} {
			rows = append(rows, Row{Name: name, Decoder: dec.Name(), Threads: imagerecS3Threads,
				Note: fmt.Sprintf("not measured: %s is missing (-data DIR)", idxPath)})
		}
		return rows, nil
	}
	parts := cfg.size(6, 1, 96) // as the imagerec rows: a sixth of the photos, all with -long
	dir, err := os.MkdirTemp("", "tensorfeed-bench-s3-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	var size int64
	for _, p := range []string{path, idxPath} {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		size += fi.Size()
	}
	srv, err := startS3Server(dir, map[string]string{filepath.Base(path): path, filepath.Base(idxPath): idxPath})
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	opts := srv.options()
	cache, err := storage.NewCache(filepath.Join(dir, "cache"), 2*size)
	if err != nil {
		return nil, err
	}
	const url = "s3://" + s3Bucket + "/photos_1536.rec"
	newIter := func(rec, idx string, sopts []storage.Option) (*pipeline.Pipe[*tensor.Batch], error) {
		return mxnet.ImageRecordIter(context.Background(), imagerecParams(mxnet.Params{
			"path_imgrec": rec, "path_imgidx": idx, "shuffle": true, "seed": imagerecSeed,
			"num_parts": parts, "part_index": 0,
			"preprocess_threads": imagerecS3Threads, "decoder": dec, "storage": sopts,
		}))
	}
	cold, err := newIter(url, "s3://"+s3Bucket+"/photos_1536.idx", opts)
	if err != nil {
		return nil, err
	}
	warm, err := newIter(url, "s3://"+s3Bucket+"/photos_1536.idx", append(opts, storage.WithCache(cache)))
	if err != nil {
		return nil, err
	}
	disk, err := newIter(path, idxPath, nil)
	if err != nil {
		return nil, err
	}
	// Every pass is epoch 0: the same order, crops and mirrors.
	sums, counts := make([]uint64, 3), make([]int, 3)
	pass := func(k int, it *pipeline.Pipe[*tensor.Batch]) func() error {
		return func() error {
			var sum uint64
			n := 0
			for t, err := range it.All(source.WithEpoch(context.Background(), 0)) {
				if err != nil {
					return err
				}
				n += t.Len() - t.Padded
				sum = consumeTensor(sum, t.Data[0].F32, t.Label[0].F32)
				t.Release()
			}
			sums[k], counts[k] = sum, n
			return nil
		}
	}
	// The warm Iter's first pass (measureEach's untimed warm-up) fills the
	// cache; the cold one never uses it.
	rs, err := measureEach(cfg.reps, pass(0, cold), pass(1, warm), pass(2, disk))
	if err != nil {
		return nil, err
	}
	if sums[0] != sums[2] || sums[1] != sums[2] || counts[0] != counts[2] || counts[1] != counts[2] {
		return nil, fmt.Errorf("imagerec-s3: S3 and local passes differ (%x %x %x, %d %d %d images)",
			sums[0], sums[1], sums[2], counts[0], counts[1], counts[2])
	}
	n := counts[2]
	outBytes := int64(n) * imagerecOut
	floor, err := measureFloor(cfg.reps, outBytes, 1<<20)
	if err != nil {
		return nil, err
	}
	rowCold := newRow("imagerec-s3-cold", imagerecS3Threads, n, outBytes, rs[0], rs[2], floor)
	rowCold.Decoder = dec.Name()
	rowCold.Note = fmt.Sprintf("%d photos of part 0 of %d, Iter shuffled through the .idx (Threads %d, random 224 crop, mirror, mean/std, batch 128) "+
		"over s3:// objects from an S3 server (%s, loopback HTTP): one range request per record, up to 16 in flight ahead of the decoding, "+
		"each record checked against the index as it arrives; plain: the same Iter over the files on local disk, alternately", n, parts, imagerecS3Threads, srv.kind)
	rowWarm := newRow("imagerec-s3-warm", imagerecS3Threads, n, outBytes, rs[1], rs[2], floor)
	rowWarm.Decoder = dec.Name()
	rowWarm.Note = fmt.Sprintf("%d photos, the same Iter through storage.WithCache filled by a first pass (two HEAD requests a pass); "+
		"plain: the same Iter over the files on local disk, alternately", n)
	return []Row{rowCold, rowWarm}, nil
}
