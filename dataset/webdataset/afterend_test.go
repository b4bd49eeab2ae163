package webdataset_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/internal/marks/markstest"
	"github.com/tensorfeed/tensorfeed/source"
)

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// Two archives joined end to end (cat a.tar b.tar) hold the end-of-archive
// blocks in their middle. By default the samples before them are read and
// then the pass fails at the offset of the second archive, instead of
// ending there with exit 0 and the rest dropped; IgnoreZeros reads both,
// plain and gzip (gzip members joined as cat a.tar.gz b.tar.gz makes).
func TestJoinedArchives(t *testing.T) {
	dir := t.TempDir()
	samples := smallSamples(0, 20)
	a, b := shardBytes(t, samples[:5]), shardBytes(t, samples[5:])
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"joined.tar", append(bytes.Clone(a), b...)},
		{"joined.tar.gz", append(gzipBytes(t, a), gzipBytes(t, b)...)},
		{"joined_in_one_gzip.tar.gz", gzipBytes(t, append(bytes.Clone(a), b...))},
	} {
		p := writeFile(t, dir, tc.name, tc.data)
		got, err := collect(t, webdataset.Open(p))
		e := wdError(t, err, p, webdataset.ErrAfterEnd)
		if len(got) != 5 || e.Offset != int64(len(a)) {
			t.Fatalf("%s: %d samples, then error at %d (want 5, at %d): %v", tc.name, len(got), e.Offset, len(a), err)
		}
		// A pass resumed after the samples given fails the same way.
		r := webdataset.Open(p)
		collect(t, r)
		st, err := source.StateOf(r, 0, 5)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := source.ResumeFrom(r, st)
		if err != nil {
			t.Fatal(err)
		}
		got, err = collect(t, r2)
		if e := wdError(t, err, p, webdataset.ErrAfterEnd); len(got) != 0 || e.Offset != int64(len(a)) {
			t.Fatalf("%s resumed from %+v: %d samples, then %v", tc.name, st, len(got), err)
		}

		r = webdataset.Open(p, webdataset.IgnoreZeros())
		got, err = collect(t, r)
		if err != nil || len(got) != 20 {
			t.Fatalf("%s with IgnoreZeros: %d samples, %v", tc.name, len(got), err)
		}
		for i, s := range got {
			if s.Key != samples[i].Key {
				t.Fatalf("%s: sample %d is %q, want %q", tc.name, i, s.Key, samples[i].Key)
			}
		}
		if got[5].Offset != int64(len(a)) {
			t.Errorf("%s: sample 5 at offset %d, want %d", tc.name, got[5].Offset, len(a))
		}
		// A pass resumed after the seam starts in the second archive.
		st, err = source.StateOf(r, 0, 7)
		if err != nil || len(st.Pos) != 3 || st.Pos[1] != got[7].Offset {
			t.Fatalf("%s: state after 7: %+v, %v", tc.name, st, err)
		}
		r2, err = source.ResumeFrom(r, st)
		if err != nil {
			t.Fatal(err)
		}
		markstest.SamePass(t, markstest.Collect(t, r2), got[7:])
	}
}

// Zero padding after the end-of-archive blocks (GNU tar pads to 10 KiB
// records) is read and accepted, up to MaxMemberBytes; anything else
// after them is an error at its offset.
func TestAfterEnd(t *testing.T) {
	dir := t.TempDir()
	a := shardBytes(t, smallSamples(0, 3))
	for _, pad := range []int{100, 512, 10240 - len(a)%10240, 20000} {
		p := writeFile(t, dir, "padded.tar", append(bytes.Clone(a), make([]byte, pad)...))
		if got, err := collect(t, webdataset.Open(p)); err != nil || len(got) != 3 {
			t.Fatalf("%d bytes of zero padding: %d samples, %v", pad, len(got), err)
		}
	}
	for _, tc := range []struct {
		name    string
		after   []byte
		ignore  bool
		cause   any
		samples int
	}{
		{"garbage", []byte("garbage"), false, webdataset.ErrAfterEnd, 3},
		{"late garbage", append(make([]byte, 2048+7), 'x'), false, webdataset.ErrAfterEnd, 3},
		// Under IgnoreZeros, a bad header after the end blocks is a bad
		// header, as anywhere: the sample before it may go on past it, so
		// it is not given.
		{"garbage, ignore zeros", []byte("garbage"), true, "truncated shard", 2},
		{"garbage block, ignore zeros", bytes.Repeat([]byte("garbage!"), 64), true, "bad tar header", 2},
	} {
		p := writeFile(t, dir, "after.tar", append(bytes.Clone(a), tc.after...))
		var opts []webdataset.Option
		if tc.ignore {
			opts = append(opts, webdataset.IgnoreZeros())
		}
		got, err := collect(t, webdataset.Open(p, opts...))
		e := wdError(t, err, p, tc.cause)
		want := int64(len(a)) + int64(bytes.IndexFunc(tc.after, func(r rune) bool { return r != 0 }))&^511
		if len(got) != tc.samples || e.Offset != want {
			t.Errorf("%s: %d samples, error at %d (want %d): %v", tc.name, len(got), e.Offset, want, err)
		}
	}
	// Zero padding is bounded: a small gzip shard cannot make a pass read
	// gigabytes of zeros.
	p := writeFile(t, dir, "zeros.tar.gz", gzipBytes(t, append(bytes.Clone(a), make([]byte, 1<<20)...)))
	_, err := collect(t, webdataset.Open(p, webdataset.MaxMemberBytes(64<<10)))
	wdError(t, err, p, webdataset.ErrTooLarge)
	if _, err := collect(t, webdataset.Open(p)); err != nil {
		t.Fatalf("1 MiB of zero padding under the default MaxMemberBytes: %v", err)
	}
	// The end of the gzip stream is still checked after the padding.
	z := gzipBytes(t, append(bytes.Clone(a), make([]byte, 4096)...))
	z[len(z)-8] ^= 1
	p = writeFile(t, dir, "badcrc.tar.gz", z)
	if _, err := collect(t, webdataset.Open(p)); !errors.Is(err, webdataset.ErrFormat) {
		t.Fatalf("a gzip CRC that fails after the padding: %v", err)
	}
}
