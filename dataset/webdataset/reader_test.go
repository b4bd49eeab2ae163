package webdataset_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/image/decode"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func collect(t *testing.T, r source.Reader[webdataset.Sample]) ([]webdataset.Sample, error) {
	t.Helper()
	return source.Collect(context.Background(), r)
}

// wdError checks that err is a positioned *tensorfeed.Error about shard
// that wraps cause, ErrFormat and tensorfeed.ErrBadData, and returns it.
// cause is an error that err wraps, or the text of a cause without a
// name of its own ("bad tar header", "truncated shard").
func wdError(t *testing.T, err error, shard string, cause any) *tensorfeed.Error {
	t.Helper()
	var e *tensorfeed.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a *tensorfeed.Error", err)
	}
	if !wraps(err, cause) || !errors.Is(err, webdataset.ErrFormat) || !errors.Is(err, tensorfeed.ErrBadData) {
		t.Fatalf("error %v does not wrap %v, ErrFormat and ErrBadData", err, cause)
	}
	if e.Path != shard {
		t.Fatalf("error %v names shard %q, want %q", err, e.Path, shard)
	}
	return e
}

// wraps tells whether err wraps cause, an error, or holds cause, a text.
func wraps(err error, cause any) bool {
	if s, ok := cause.(string); ok {
		return err != nil && strings.Contains(err.Error(), s)
	}
	return errors.Is(err, cause.(error))
}

func TestRoundTrip(t *testing.T) {
	want := makeSamples(t, 20)
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprint("gzip=", gz), func(t *testing.T) {
			var opts []webdataset.WriterOption
			if gz {
				opts = append(opts, webdataset.Gzip(5))
			}
			p := writeFile(t, t.TempDir(), "shard-000000.tar", shardBytes(t, want, opts...))
			got, err := collect(t, webdataset.Open(p, webdataset.Fields("jpg", "cls")))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d samples, want %d", len(got), len(want))
			}
			for i, s := range got {
				if s.Key != want[i].Key || s.Shard != p || !maps.EqualFunc(s.Fields, want[i].Fields, bytes.Equal) {
					t.Fatalf("sample %d = %q %q %v, want %q", i, s.Key, s.Shard, slices.Sorted(maps.Keys(s.Fields)), want[i].Key)
				}
				if i > 0 && s.Offset <= got[i-1].Offset || s.Offset%512 != 0 {
					t.Fatalf("sample %d at offset %d after %d", i, s.Offset, got[i-1].Offset)
				}
				checkDecoders(t, i, s)
			}
		})
	}
}

func checkDecoders(t *testing.T, i int, s webdataset.Sample) {
	t.Helper()
	if c, err := s.Int("cls"); err != nil || c != i%10 {
		t.Fatalf("Int(cls) = %d, %v; want %d", c, err, i%10)
	}
	if txt, err := s.Bytes("txt"); err != nil || string(txt) != fmt.Sprintf("a photo number %d", i) {
		t.Fatalf("Text(txt) = %q, %v", txt, err)
	}
	var meta struct {
		ID   int
		Tags []string
	}
	if err := s.JSON("json", &meta); err != nil || meta.ID != i || !slices.Equal(meta.Tags, []string{"x", "y"}) {
		t.Fatalf("JSON = %+v, %v", meta, err)
	}
	var m map[string]any
	if err := s.JSON("json", &m); err != nil || m["id"] != float64(i) {
		t.Fatalf("JSON into a map = %v, %v", m, err)
	}
	a, err := s.NPY("npy")
	if err != nil {
		t.Fatal(err)
	}
	d, err := webdataset.Dense[float32](a)
	if err != nil || !slices.Equal(d.Shape, []int{3}) || !slices.Equal(d.Data, []float32{float32(i), 0.5, -1}) {
		t.Fatalf("NPY = %+v, %v", d, err)
	}
	img, err := s.Image("jpg", decode.Options{Channels: 3})
	if err != nil || img.Height != 16 || img.Width != 24 || img.Channels != 3 {
		t.Fatalf("Image = %v, %v", img.Shape(), err)
	}
	seg, err := s.Image("seg.png", decode.Options{})
	if err != nil || seg.Height != 8 || seg.Width != 12 || seg.At(0, 0, 0) != uint8(i) {
		t.Fatalf("Image(seg.png) = %v, %v", seg.Shape(), err)
	}
}

func TestKeysAndFields(t *testing.T) {
	p := writeFile(t, t.TempDir(), "s.tar", rawTar(t,
		"a/b/000123.jpg", "a/b/000123.cls", "x.seg.png", "x.png", "dir.v2/y.txt", "README", ".hidden", "z."))
	got, err := collect(t, webdataset.Open(p))
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, s := range got {
		desc = append(desc, fmt.Sprint(s.Key, slices.Sorted(maps.Keys(s.Fields))))
	}
	want := []string{"a/b/000123[cls jpg]", "x[png seg.png]", "dir.v2/y[txt]"}
	if !slices.Equal(desc, want) {
		t.Fatalf("samples %q, want %q", desc, want)
	}
	if b, _ := got[1].Bytes("seg.png"); string(b) != "x.seg.png" {
		t.Fatalf("field seg.png holds %q", b)
	}
}

func TestContract(t *testing.T) {
	dir := t.TempDir()
	samples := makeSamples(t, 12)
	a := writeFile(t, dir, "a.tar", shardBytes(t, samples[:5]))
	b := writeFile(t, dir, "b.tar.gz", shardBytes(t, samples[5:], webdataset.Gzip(1)))
	full := shardBytes(t, samples)
	cut := writeFile(t, dir, "cut.tar", full[:len(full)/2])
	for name, r := range map[string]source.Reader[webdataset.Sample]{
		"one":       webdataset.Open(a),
		"two":       webdataset.Open(a + ";" + b),
		"truncated": webdataset.Open(cut),
		"missing":   webdataset.Open(a + ";" + dir + "/none.tar"),
	} {
		if err := sourcetest.TestReader(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	decoded := webdataset.Decode(webdataset.Open(a+";"+b), func(s webdataset.Sample) (int, error) {
		return s.Int("cls")
	})
	if err := sourcetest.TestReader(decoded); err != nil {
		t.Errorf("decoded: %v", err)
	}
}

func TestOpenShards(t *testing.T) {
	dir := t.TempDir()
	samples := makeSamples(t, 9)
	var paths []string
	for i := 0; i < 9; i += 3 {
		paths = append(paths, writeFile(t, dir, fmt.Sprintf("s%d.tar", i), shardBytes(t, samples[i:i+3])))
	}
	got, err := collect(t, webdataset.Open(strings.Join(paths, ";")))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if s.Key != samples[i].Key || s.Shard != paths[i/3] {
			t.Fatalf("sample %d is %q from %s", i, s.Key, s.Shard)
		}
	}
	if len(got) != 9 {
		t.Fatalf("%d samples, want 9", len(got))
	}
}

func TestSplitSample(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "split.tar", rawTar(t, "a.jpg", "b.jpg", "a.cls"))
	_, err := collect(t, webdataset.Open(p, webdataset.OnBad(source.SkipBad(1))))
	e := wdError(t, err, p, webdataset.ErrSplit)
	if e.Offset != 2048 || e.Member != "a.cls" {
		t.Fatalf("error at offset %d member %q, want 2048 a.cls: %v", e.Offset, e.Member, err)
	}

	// Across shards: a key ends one shard and starts the next.
	p1 := writeFile(t, dir, "1.tar", rawTar(t, "a.jpg", "b.jpg"))
	p2 := writeFile(t, dir, "2.tar", rawTar(t, "b.cls", "c.jpg"))
	got, err := collect(t, webdataset.Open(p1+";"+p2))
	e = wdError(t, err, p2, webdataset.ErrSplit)
	if len(got) != 2 || e.Offset != 0 || e.Member != "b.cls" {
		t.Fatalf("%d samples, then error at %d %q: %v", len(got), e.Offset, e.Member, err)
	}
}

func TestDuplicateField(t *testing.T) {
	p := writeFile(t, t.TempDir(), "dup.tar", rawTar(t, "a.jpg", "a.jpg", "b.jpg"))
	_, err := collect(t, webdataset.Open(p))
	e := wdError(t, err, p, "duplicate field")
	if e.Offset != 1024 || e.Member != "a.jpg" {
		t.Fatalf("error at %d %q: %v", e.Offset, e.Member, err)
	}
	skip := source.SkipBad(1)
	r := webdataset.Open(p, webdataset.OnBad(skip))
	got, err := collect(t, r)
	if err != nil || len(got) != 1 || got[0].Key != "b" || skip.Skipped() != 1 || r.(source.SkipCounted).Skipped() != 1 {
		t.Fatalf("with SkipBad(1): %d samples, %v, %d skipped", len(got), err, skip.Skipped())
	}
}

func TestMissingField(t *testing.T) {
	p := writeFile(t, t.TempDir(), "m.tar", rawTar(t, "a.jpg", "a.cls", "b.jpg", "c.jpg", "c.cls", "d.jpg", "d.cls"))
	_, err := collect(t, webdataset.Open(p, webdataset.Fields("jpg", "cls")))
	e := wdError(t, err, p, "missing field")
	if e.Offset != 2048 || e.Member != "b.jpg" {
		t.Fatalf("error at %d %q: %v", e.Offset, e.Member, err)
	}
	var reported []error
	skip := source.SkipBad(0.5, source.OnSkip(func(err error) { reported = append(reported, err) }))
	got, err := collect(t, webdataset.Open(p, webdataset.Fields("jpg", "cls"), webdataset.OnBad(skip)))
	if err != nil || len(got) != 3 || len(reported) != 1 || !errors.Is(reported[0], webdataset.ErrFormat) || !strings.Contains(reported[0].Error(), "missing field") {
		t.Fatalf("with SkipBad(0.5): %d samples, %v, reported %v", len(got), err, reported)
	}
	// Three bad samples of four are more than a quarter.
	_, err = collect(t, webdataset.Open(p, webdataset.Fields("jpg", "cls", "txt"), webdataset.OnBad(source.SkipBad(0.25))))
	if !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("error %v, want ErrTooManyBad", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	samples := makeSamples(t, 4)
	samples[2].Fields["cls"] = []byte("seven")
	samples[3].Fields["jpg"] = []byte("not a jpeg")
	p := writeFile(t, t.TempDir(), "d.tar", shardBytes(t, samples))
	cls := func(s webdataset.Sample) (int, error) { return s.Int("cls") }
	_, err := source.Collect(context.Background(), webdataset.Decode(webdataset.Open(p), cls))
	e := wdError(t, err, p, "field does not decode")
	if e.Member != "train/000002.cls" || e.Offset == 0 {
		t.Fatalf("error at %d %q: %v", e.Offset, e.Member, err)
	}
	r := webdataset.Decode(webdataset.Open(p, webdataset.OnBad(source.SkipBad(1))), func(s webdataset.Sample) (int, error) {
		c, err := s.Int("cls")
		if err != nil {
			return 0, err
		}
		_, err = s.Image("jpg", decode.Options{})
		return c, err
	})
	got, err := source.Collect(context.Background(), r)
	if err != nil || !slices.Equal(got, []int{0, 1}) || r.(source.SkipCounted).Skipped() != 2 {
		t.Fatalf("with SkipBad(1): %v, %v", got, err)
	}
	// An error that is not about the data ends the pass under any policy.
	boom := errors.New("boom")
	_, err = source.Collect(context.Background(), webdataset.Decode(webdataset.Open(p, webdataset.OnBad(source.SkipBad(1))),
		func(webdataset.Sample) (int, error) { return 0, boom }))
	if err != boom {
		t.Fatalf("error %v, want %v", err, boom)
	}
	// Decoders on a missing field.
	s := webdataset.Sample{Key: "k", Shard: p, Fields: map[string][]byte{"json": []byte("{"), "npy": []byte("xx")}}
	if _, err := s.Bytes("txt"); !errors.Is(err, webdataset.ErrFormat) || !strings.Contains(err.Error(), "missing field") {
		t.Fatalf("Text of a missing field: %v", err)
	}
	if err := s.JSON("json", new(any)); !errors.Is(err, webdataset.ErrFormat) || !strings.Contains(err.Error(), "field does not decode") {
		t.Fatalf("JSON of bad JSON: %v", err)
	}
	var ne *tensorfeed.Error
	if _, err := s.NPY("npy"); !strings.Contains(fmt.Sprint(err), "field does not decode") || !errors.Is(err, webdataset.ErrFormat) || !errors.As(err, &ne) || ne.Path != p || ne.Member != "k.npy" {
		t.Fatalf("NPY of bad bytes: %v", err)
	}
}

func TestMaxMemberBytes(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 200)
	samples := []webdataset.Sample{{Key: "a", Fields: map[string][]byte{"bin": big[:50]}}, {Key: "b", Fields: map[string][]byte{"bin": big}}}
	for _, gz := range []bool{false, true} {
		var opts []webdataset.WriterOption
		if gz {
			opts = append(opts, webdataset.Gzip(9))
		}
		p := writeFile(t, t.TempDir(), "big.tar", shardBytes(t, samples, opts...))
		got, err := collect(t, webdataset.Open(p, webdataset.MaxMemberBytes(100), webdataset.OnBad(source.SkipBad(1))))
		e := wdError(t, err, p, webdataset.ErrTooLarge)
		if len(got) != 1 || e.Offset != 1024 || e.Member != "b.bin" {
			t.Fatalf("gzip %v: %d samples, error at %d %q: %v", gz, len(got), e.Offset, e.Member, err)
		}
		// a.bin and a.x hold 250 bytes together.
		two := []webdataset.Sample{{Key: "a", Fields: map[string][]byte{"bin": big[:50], "x": big}}, samples[1]}
		q := writeFile(t, t.TempDir(), "two.tar", shardBytes(t, two, opts...))
		got, err = collect(t, webdataset.Open(q, webdataset.MaxSampleBytes(249), webdataset.OnBad(source.SkipBad(1))))
		e = wdError(t, err, q, webdataset.ErrTooLarge)
		if len(got) != 0 || e.Offset != 1024 || e.Member != "a.x" {
			t.Fatalf("gzip %v: MaxSampleBytes: %d samples, error at %d %q: %v", gz, len(got), e.Offset, e.Member, err)
		}
		if got, err := collect(t, webdataset.Open(q, webdataset.MaxSampleBytes(250))); err != nil || len(got) != 2 {
			t.Fatalf("gzip %v: at the sample limit: %d samples, %v", gz, len(got), err)
		}
		if got, err := collect(t, webdataset.Open(p, webdataset.MaxMemberBytes(200))); err != nil || len(got) != 2 {
			t.Fatalf("gzip %v: at the limit: %d samples, %v", gz, len(got), err)
		}
	}
}

// TestTruncated cuts shards at every byte (small shards) and at every
// structural boundary (a shard of photographs): each cut before the end
// blocks is a positioned error that is a truncated shard (or a bad tar header for a
// gzip stream cut in its header), never a short read taken for the end.
func TestTruncated(t *testing.T) {
	dir := t.TempDir()
	small := rawTar(t, "a.jpg", "a.cls", "b.jpg")
	photos := shardBytes(t, makeSamples(t, 4))
	var cuts []int
	for c := 0; c < len(photos); c += 512 {
		cuts = append(cuts, c, c+1, c+511, c+100)
	}
	for _, tc := range []struct {
		name string
		data []byte
		cuts []int
		gz   bool
	}{
		{"small", small, seq(len(small) - 512), false},
		{"small.gz", shardBytes(t, []webdataset.Sample{{Key: "a", Fields: map[string][]byte{"jpg": []byte("jpg"), "cls": []byte("1")}}}, webdataset.Gzip(1)), nil, true},
		{"photos", photos, cuts, false},
	} {
		if tc.gz {
			tc.cuts = seq(len(tc.data))
		}
		p := filepathJoin(dir, tc.name)
		for _, c := range tc.cuts {
			if c >= len(tc.data)-512 && !tc.gz {
				continue // one end block left: tar accepts that
			}
			writeFile(t, dir, tc.name, tc.data[:c])
			_, err := collect(t, webdataset.Open(p))
			var e *tensorfeed.Error
			if !errors.As(err, &e) || !errors.Is(err, tensorfeed.ErrBadData) || e.Path != p ||
				!(wraps(err, "truncated shard") || tc.gz && wraps(err, "bad tar header")) {
				t.Fatalf("%s cut at %d of %d: error %v", tc.name, c, len(tc.data), err)
			}
			if e.Offset < 0 || e.Offset > int64(c+511)&^511 && !tc.gz {
				t.Fatalf("%s cut at %d: error at offset %d", tc.name, c, e.Offset)
			}
		}
	}
}

// TestSparse reads an old GNU sparse member of one stored byte whose holes
// make 16 GiB: archive/tar would expand them to zeros, so the reader
// refuses it.
func TestSparse(t *testing.T) {
	hdr := make([]byte, 512)
	copy(hdr, "README")
	copy(hdr[100:], "0000644\x00")
	copy(hdr[108:], "0000000\x00")
	copy(hdr[116:], "0000000\x00")
	copy(hdr[124:], "00000000001\x00") // one byte stored
	copy(hdr[136:], "00000000000\x00")
	hdr[156] = 'S'
	copy(hdr[257:], "ustar  \x00")
	copy(hdr[386:], "17777777777\x00") // the stored byte sits at 2^31-1 ...
	copy(hdr[398:], "00000000001\x00")
	copy(hdr[483:], "200000000000") // ... of a 2^34-byte file
	copy(hdr[148:], "        ")
	sum := 0
	for _, c := range hdr {
		sum += int(c)
	}
	copy(hdr[148:], fmt.Sprintf("%06o\x00 ", sum))
	data := append(hdr, make([]byte, 512+1024)...)
	data[512] = 'x'
	p := writeFile(t, t.TempDir(), "sparse.tar", data)
	_, err := collect(t, webdataset.Open(p))
	if e := wdError(t, err, p, "bad tar header"); e.Offset != 0 || e.Member != "README" {
		t.Fatalf("error at %d %q: %v", e.Offset, e.Member, err)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func filepathJoin(dir, name string) string { return dir + "/" + name }

func TestBadHeader(t *testing.T) {
	b := rawTar(t, "a.jpg", "b.jpg", "c.jpg")
	b[1024+3] ^= 0x40 // the second header's name, under a checksum that no longer matches
	p := writeFile(t, t.TempDir(), "bad.tar", b)
	got, err := collect(t, webdataset.Open(p, webdataset.OnBad(source.SkipBad(1))))
	e := wdError(t, err, p, "bad tar header")
	if len(got) != 0 || e.Offset != 1024 {
		t.Fatalf("%d samples, error at %d: %v", len(got), e.Offset, err)
	}
	// A corrupt gzip stream.
	z := shardBytes(t, makeSamples(t, 2), webdataset.Gzip(1))
	z[len(z)/2] ^= 0xff
	z[len(z)/2+1] ^= 0xff
	p = writeFile(t, t.TempDir(), "bad.tar.gz", z)
	_, err = collect(t, webdataset.Open(p))
	if !errors.Is(err, webdataset.ErrFormat) {
		t.Fatalf("corrupt gzip: %v", err)
	}
}

func TestEmptyShard(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "empty.tar", nil)
	_, err := collect(t, webdataset.Open(p))
	wdError(t, err, p, "truncated shard")
	// An archive with only its end blocks holds no sample.
	p = writeFile(t, dir, "none.tar", shardBytes(t, nil))
	if got, err := collect(t, webdataset.Open(p)); err != nil || len(got) != 0 {
		t.Fatalf("%d samples, %v", len(got), err)
	}
}

func TestWriterRejects(t *testing.T) {
	w := webdataset.NewWriter(new(bytes.Buffer))
	for _, s := range []webdataset.Sample{
		{Key: "", Fields: map[string][]byte{"a": nil}},
		{Key: "a.b", Fields: map[string][]byte{"a": nil}},
		{Key: "d/", Fields: map[string][]byte{"a": nil}},
		{Key: "k", Fields: map[string][]byte{"": nil}},
		{Key: "k", Fields: map[string][]byte{"x/y": nil}},
	} {
		if err := w.Write(s); !errors.Is(err, webdataset.ErrWrite) {
			t.Errorf("Write(%q %v) = %v, want ErrWrite", s.Key, slices.Sorted(maps.Keys(s.Fields)), err)
		}
	}
	// Names that extract outside the target folder.
	for _, c := range []struct {
		key, field, want string
	}{
		{"../x", "jpg", `".." path element`},
		{"a/../../etc/x", "jpg", `".." path element`},
		{"a/..", "jpg", `".." path element`},
		{`..\x`, "jpg", `".." path element`},
		{"k", `x\..\..\y`, `".." path element`},
		{"/etc/x", "jpg", "absolute"},
		{`\etc\x`, "jpg", "absolute"},
		{"C:/x", "jpg", "absolute"},
	} {
		err := w.Write(webdataset.Sample{Key: c.key, Fields: map[string][]byte{c.field: []byte("x")}})
		if !errors.Is(err, webdataset.ErrWrite) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write(%q, %q) = %v, want ErrWrite about %s", c.key, c.field, err, c.want)
		}
	}
	if err := w.Write(webdataset.Sample{Key: "k", Fields: map[string][]byte{"a": nil}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(webdataset.Sample{Key: "k", Fields: map[string][]byte{"b": nil}}); !errors.Is(err, webdataset.ErrWrite) {
		t.Fatalf("second write of a key: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(webdataset.Sample{Key: "z", Fields: map[string][]byte{"b": nil}}); err == nil {
		t.Fatal("Write after Close succeeded")
	}
}

// With ReuseBuffer a pass gives the same samples, consumed one at a time
// (members of several sizes, several shards, plain and gzip, a bad sample
// skipped), and resumes at the same place; the samples share their
// memory, so each is checked before the next is read.
func TestReuseBuffer(t *testing.T) {
	dir := t.TempDir()
	want := makeSamples(t, 12)
	want = append(want, smallSamples(0, 30)...)
	a := writeFile(t, dir, "a.tar", shardBytes(t, want[:20]))
	b := writeFile(t, dir, "b.tar.gz", shardBytes(t, want[20:], webdataset.Gzip(1)))
	c := writeFile(t, dir, "c.tar", rawTar(t, "x.jpg", "x.cls", "y.jpg", "z.jpg", "z.cls"))
	list := a + ";" + b
	for _, tc := range []struct {
		list string
		want []webdataset.Sample
		opts []webdataset.Option
	}{
		{list, want, nil},
		{c, []webdataset.Sample{
			{Key: "x", Fields: map[string][]byte{"jpg": []byte("x.jpg"), "cls": []byte("x.cls")}},
			{Key: "z", Fields: map[string][]byte{"jpg": []byte("z.jpg"), "cls": []byte("z.cls")}},
		}, []webdataset.Option{webdataset.Fields("cls"), webdataset.OnBad(source.SkipBad(1))}},
	} {
		r := webdataset.Open(tc.list, append(tc.opts, webdataset.ReuseBuffer())...)
		for pass := range 2 {
			i := 0
			var prev map[string][]byte
			for s, err := range r.All(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				if i >= len(tc.want) || s.Key != tc.want[i].Key || !maps.EqualFunc(s.Fields, tc.want[i].Fields, bytes.Equal) {
					t.Fatalf("pass %d: sample %d = %q %v", pass, i, s.Key, slices.Sorted(maps.Keys(s.Fields)))
				}
				if prev != nil && fmt.Sprintf("%p", prev) != fmt.Sprintf("%p", s.Fields) {
					t.Fatalf("pass %d: sample %d has a map of its own", pass, i)
				}
				prev = s.Fields
				i++
			}
			if i != len(tc.want) {
				t.Fatalf("pass %d: %d samples, want %d", pass, i, len(tc.want))
			}
		}
	}
	r := webdataset.Open(list, webdataset.ReuseBuffer())
	for _, k := range []int64{5, 20, 33} {
		i := int64(0)
		var st source.State
		for range r.All(context.Background()) {
			if i++; i == k {
				var err error
				if st, err = source.StateOf(r, 0, k); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		r2, err := source.ResumeFrom(r, st)
		if err != nil {
			t.Fatal(err)
		}
		j := k
		for s, err := range r2.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if s.Key != want[j].Key || !maps.EqualFunc(s.Fields, want[j].Fields, bytes.Equal) {
				t.Fatalf("resumed after %d: sample %d = %q", k, j, s.Key)
			}
			j++
		}
		if j != int64(len(want)) {
			t.Fatalf("resumed after %d: ended at %d", k, j)
		}
	}
}
