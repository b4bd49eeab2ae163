package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
)

// webdatasetRows measures reading a WebDataset shard into samples of a JPEG
// and its class (jpg and cls members, the class parsed), plain and
// gzip-compressed. The shard is written at run time from the photos. The
// reader reuses its buffers (ReuseBuffer), as the plain loop does; the
// note gives the reader without it against the plain loop with a new
// slice for every jpg.
func webdatasetRows(cfg config) ([]Row, error) {
	return photoRows(cfg, "webdataset", [2]string{"photos-000000.tar", "photos-000000.tar.gz"}, writeShard,
		func(files *photoFiles, p string, gz bool) (Row, error) {
			fold := func(sum uint64, s webdataset.Sample) (uint64, error) {
				jpg, err := s.Bytes("jpg")
				if err != nil {
					return 0, err
				}
				cls, err := s.Int("cls")
				return consumeSample(sum, jpg, cls), err
			}
			rs, err := readVsPlain(cfg, files, webdataset.Open(p, webdataset.Fields("jpg", "cls"), webdataset.ReuseBuffer()), fold,
				func() (uint64, error) { return plainShard(p, gz, false) })
			if err != nil {
				return Row{}, err
			}
			owned, err := readVsPlain(cfg, files, webdataset.Open(p, webdataset.Fields("jpg", "cls")), fold,
				func() (uint64, error) { return plainShard(p, gz, true) })
			if err != nil {
				return Row{}, err
			}
			row := newRow("webdataset", 1, files.count, files.payload, rs[0], rs[1], files.floor)
			shard := fmt.Sprintf("%s MB shard", sizeMB(p))
			plain := "plain: archive/tar under bufio, grouped by key by hand, jpg into one reused buffer"
			if gz {
				shard += ", gzip default level"
				plain = "plain: archive/tar over gzip.NewReader under bufio, grouped by key by hand, jpg into one reused buffer"
			}
			row.Note = fmt.Sprintf("%s, jpg + cls a sample (%s): webdataset.Open with Fields(jpg, cls) and ReuseBuffer, Sample.Int; %s; "+
				"without ReuseBuffer (a new slice per member, as the sample then owns its fields) x plain with a new slice per jpg: %.2f",
				files.which, shard, plain, owned[0].elapsed.Seconds()/owned[1].elapsed.Seconds())
			return row, nil
		})
}

// writeShard writes one sample per photo, its JPEG and its class, to p,
// gzip-compressed when gz.
func writeShard(p string, photos []photo, gz bool) error {
	var opts []webdataset.WriterOption
	if gz {
		opts = append(opts, webdataset.Gzip(gzip.DefaultCompression))
	}
	return writeWith(p, func(w io.Writer) *webdataset.Writer { return webdataset.NewWriter(w, opts...) },
		func(w *webdataset.Writer) error {
			for i, ph := range photos {
				s := webdataset.Sample{Key: fmt.Sprintf("%08d", i), Fields: map[string][]byte{
					"jpg": ph.data,
					"cls": []byte(strconv.Itoa(ph.label)),
				}}
				if err := w.Write(s); err != nil {
					return err
				}
			}
			return nil
		})
}

// consumeSample folds a sample into a checksum without reading all of the
// image: the reading of the shard is what is measured.
func consumeSample(sum uint64, jpg []byte, cls int) uint64 {
	return consumeRecord(sum, jpg)*31 + uint64(cls)
}

// plainShard reads the samples of the shard at p with archive/tar (over
// gzip when gz), grouping consecutive members by the key before the first
// dot of their base name, reading jpg into one reused buffer (into a new
// slice for each member when fresh) and parsing cls; a sample without both
// fails.
func plainShard(p string, gz, fresh bool) (uint64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var in io.Reader = bufio.NewReaderSize(f, 64<<10)
	if gz {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return 0, err
		}
		in = zr
	}
	tr := tar.NewReader(in)
	var sum uint64
	var key string
	var jpg []byte
	cls, haveJPG, haveCls := 0, false, false
	flush := func() error {
		if key == "" {
			return nil
		}
		if !haveJPG || !haveCls {
			return fmt.Errorf("%s: sample %q lacks jpg or cls", p, key)
		}
		sum = consumeSample(sum, jpg, cls)
		haveJPG, haveCls = false, false
		return nil
	}
	var small bytes.Buffer
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		base := path.Base(hdr.Name)
		dot := strings.IndexByte(base, '.')
		if dot <= 0 {
			continue
		}
		k, field := hdr.Name[:len(hdr.Name)-len(base)+dot], base[dot+1:]
		if k != key {
			if err := flush(); err != nil {
				return 0, err
			}
			key = k
		}
		switch field {
		case "jpg":
			if fresh || int64(cap(jpg)) < hdr.Size {
				jpg = make([]byte, hdr.Size)
			}
			jpg = jpg[:hdr.Size]
			if _, err := io.ReadFull(tr, jpg); err != nil {
				return 0, err
			}
			haveJPG = true
		case "cls":
			small.Reset()
			if _, err := small.ReadFrom(io.LimitReader(tr, 32)); err != nil {
				return 0, err
			}
			if cls, err = strconv.Atoi(strings.TrimSpace(small.String())); err != nil {
				return 0, err
			}
			haveCls = true
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return sum, nil
}
