package format

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
)

// wdsSample is what checkWDS keeps of one sample: its fields' names and
// sizes, and its images' sizes (width, height, channels).
type wdsSample struct {
	fields []string
	bytes  int64
	images [][3]int
}

// checkSample parses the fields of s that a check knows: .npy arrays, .cls
// integers, .json documents, and JPEG and PNG images, decoded within
// decode.DefaultMaxBytes. The error of the first field that does not parse
// wraps webdataset.ErrFormat ("field does not decode"), which makes the
// sample bad.
func checkSample(s webdataset.Sample) (wdsSample, error) {
	out := wdsSample{fields: slices.Sorted(maps.Keys(s.Fields))}
	for _, f := range out.fields {
		out.bytes += int64(len(s.Fields[f]))
		var err error
		switch strings.ToLower(path.Ext("." + f)) {
		case ".npy":
			_, err = s.NPY(f)
		case ".cls":
			_, err = s.Int(f)
		case ".json":
			var v any
			err = s.JSON(f, &v)
		case ".jpg", ".jpeg", ".png":
			img, ierr := s.Image(f, decode.Options{})
			if err = ierr; err == nil {
				out.images = append(out.images, [3]int{img.Width, img.Height, img.Channels})
			}
		}
		if err != nil {
			return wdsSample{}, err
		}
	}
	return out, nil
}

// wdsStats summarises the samples of a shard.
type wdsStats struct {
	samples, bytes int64
	fields         map[string]int64 // samples by field name
	overflow       bool             // more names than maxFieldNames
	imgs           checkstat.Images
}

// maxFieldNames bounds the field names a shard's summary keeps, so that
// samples with ever new names cannot make it grow.
const maxFieldNames = 100

func (s *wdsStats) add(x wdsSample) {
	s.samples++
	s.bytes += x.bytes
	if s.fields == nil {
		s.fields = map[string]int64{}
	}
	for _, f := range x.fields {
		if _, ok := s.fields[f]; ok || len(s.fields) < maxFieldNames {
			s.fields[f]++
		} else {
			s.overflow = true
		}
	}
	for _, im := range x.images {
		s.imgs.Add(im[0], im[1], im[2])
	}
}

func (s *wdsStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d samples, %d bytes of fields", s.samples, s.bytes)
	names := make([]string, 0, len(s.fields))
	for n := range s.fields {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) > 0 {
		b.WriteString("; fields:")
	}
	for _, n := range names {
		fmt.Fprintf(&b, " %s %d", n, s.fields[n])
	}
	if s.overflow {
		fmt.Fprintf(&b, " and more than %d names", maxFieldNames)
	}
	if s.imgs.N > 0 {
		fmt.Fprintf(&b, "; %s", &s.imgs)
	}
	return b.String()
}

// wdsSeam carries, from one file of a check to the next, the path and the
// key of the last sample of the shard checked last (both "" when that
// shard was bad), so that a sample split across two shards checked one
// after the other is refused as webdataset.Open and Open refuse it. A
// shard without a sample leaves it as it was.
type wdsSeam struct{ path, key string }

// checkWDS reads a WebDataset shard (tar, plain or gzip) to its end
// through webdataset.Open, which checks every tar header, groups the
// members into samples, refuses split samples and data after the
// end-of-archive blocks, and parses the fields a check knows
// (checkSample). A sample that is bad on its own (a duplicate field, a
// field that does not parse) is reported and, under OnBad, skipped;
// structural damage ends the check. seam holds the last key of the shard
// checked just before, if any: a first sample with that key is split
// across the two shards (webdataset.SplitAcross). When the shard is good,
// seam is set to its last key; when it is bad, seam is cleared.
//
// Memory holds one sample (at most 256 MiB, webdataset.MaxSampleBytes's
// default) and one decoded image at a time.
func checkWDS(ctx context.Context, c *checker, stdout io.Writer, seam *wdsSeam, opts []webdataset.Option) error {
	prev := *seam
	*seam = wdsSeam{}
	gz, err := checkstat.IsGzip(ctx, c.path, c.sopts)
	if err != nil {
		return err
	}
	opts = append(slices.Clip(opts), webdataset.Storage(c.sopts...))
	if c.policy != nil {
		opts = append(opts, webdataset.OnBad(c.policy))
	}
	var stats wdsStats
	n, last := 0, ""
	parse := func(s webdataset.Sample) (wdsSample, error) {
		if n == 0 && prev.key != "" && s.Key == prev.key {
			return wdsSample{}, webdataset.SplitAcross(prev.path, c.path, s.Key, s.Offset)
		}
		n++
		last = s.Key
		return checkSample(s)
	}
	for x, err := range webdataset.Decode(webdataset.Open(c.path, opts...), parse).All(ctx) {
		if err != nil {
			return err
		}
		stats.add(x)
	}
	if *seam = prev; n > 0 {
		*seam = wdsSeam{c.path, last}
	}
	if c.bad() > 0 {
		return nil
	}
	kind := "WebDataset"
	if gz {
		kind += ", gzip"
	}
	fmt.Fprintf(stdout, "%s: %s: %s\n", c.path, kind, &stats)
	return nil
}
