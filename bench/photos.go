package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// photo is one payload the format rows write and read back: an encoded
// image and its class.
type photo struct {
	data  []byte
	label int
}

// benchPhotos returns the payloads of the tfrecord and webdataset rows: the
// JPEGs and labels of the photo set when the data directory has it (copies
// times over), else generated incompressible payloads of a similar spread of
// sizes. The note says which.
func benchPhotos(cfg config, copies int) ([]photo, string, error) {
	path := filepath.Join(cfg.dataDir, "imagerec", "bench", "photos_1536.rec")
	if _, err := os.Stat(path); err == nil && !cfg.tiny {
		var set []photo
		var h imagerec.Header
		for rec, err := range recordio.Open(path).All(context.Background()) {
			if err != nil {
				return nil, "", err
			}
			jpg, err := imagerec.ParseRecordInto(&h, rec.Data)
			if err != nil {
				return nil, "", fmt.Errorf("%s: %w", path, err)
			}
			set = append(set, photo{data: jpg, label: int(h.Label)})
		}
		photos := make([]photo, 0, copies*len(set))
		for range copies {
			photos = append(photos, set...)
		}
		note := "photos_1536.rec"
		if copies > 1 {
			note = fmt.Sprintf("photos_1536.rec x %d", copies)
		}
		return photos, note, nil
	}
	n := 1536 * copies
	if cfg.tiny {
		n = 48
	}
	rng := rand.New(rand.NewPCG(1, 2))
	photos := make([]photo, n)
	for i := range photos {
		size := 8<<10 + rng.IntN(40<<10)
		if cfg.tiny {
			size /= 16
		}
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		photos[i] = photo{data: b, label: rng.IntN(1000)}
	}
	return photos, fmt.Sprintf("%d generated payloads (photo set not found)", n), nil
}

// payloadBytes returns the bytes of the payloads together.
func payloadBytes(photos []photo) int64 {
	var n int64
	for _, p := range photos {
		n += int64(len(p.data))
	}
	return n
}

// sizeMB formats the size of a file in MB.
func sizeMB(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f", float64(st.Size())/1e6)
}

// photoFiles are what a file-format row reads: the photos written by the
// format's own writer into a temporary directory, once plain and once
// gzip-compressed, and the memory floor of their payload.
type photoFiles struct {
	dir     string
	paths   [2]string // plain, gzip
	count   int       // photos in each file
	payload int64     // their payload bytes
	floor   run
	which   string // where the photos came from, for the note
}

// writePhotoFiles gets the photos (four times over with -long), writes them
// to the two files named by names with write, and measures the floor. The
// photos are not kept: the peak column then shows what a pass holds, not
// the input. The caller removes the files with remove.
func writePhotoFiles(cfg config, prefix string, names [2]string,
	write func(path string, photos []photo, gz bool) error) (*photoFiles, error) {
	copies := 1
	if cfg.long {
		copies = 4
	}
	photos, which, err := benchPhotos(cfg, copies)
	if err != nil {
		return nil, err
	}
	f := &photoFiles{count: len(photos), payload: payloadBytes(photos), which: which}
	if f.floor, err = measureFloor(cfg.cheapReps(), f.payload, 64<<10); err != nil {
		return nil, err
	}
	if f.dir, err = os.MkdirTemp("", "tensorfeed-bench-"+prefix+"-"); err != nil {
		return nil, err
	}
	for i, name := range names {
		f.paths[i] = filepath.Join(f.dir, name)
		if err := write(f.paths[i], photos, i == 1); err != nil {
			f.remove()
			return nil, err
		}
	}
	return f, nil
}

func (f *photoFiles) remove() { os.RemoveAll(f.dir) }

// writeWith creates path, writes into it through w (a format's writer over
// the file) with put, and closes the writer, then the file.
func writeWith[W io.Closer](path string, newWriter func(io.Writer) W, put func(W) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := newWriter(f)
	if err := put(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
