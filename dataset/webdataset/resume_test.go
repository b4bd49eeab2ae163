package webdataset_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/internal/marks/markstest"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// smallSamples returns n samples of two small fields.
func smallSamples(from, n int) []webdataset.Sample {
	out := make([]webdataset.Sample, n)
	for i := range out {
		out[i] = webdataset.Sample{Key: fmt.Sprintf("s%06d", from+i), Fields: map[string][]byte{
			"cls": fmt.Appendf(nil, "%d", (from+i)%10),
			"txt": []byte(strings.Repeat("x", (from+i)%300)),
		}}
	}
	return out
}

// A resumed pass opens the shard of its state at the offset and reads no
// byte before it (but the two of the gzip magic), nor any earlier shard;
// in a .tar.gz shard it decompresses up to the offset.
func TestResumeReadsNothingBefore(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.tar", shardBytes(t, smallSamples(0, 100)))
	writeFile(t, dir, "b.tar", shardBytes(t, smallSamples(100, 100)))
	writeFile(t, dir, "c.tar.gz", shardBytes(t, smallSamples(200, 100), webdataset.Gzip(1)))
	srv, log := storagetest.ServeDir(t, dir)
	r := webdataset.Open(srv.URL + "/a.tar" + ";" + srv.URL + "/b.tar" + ";" + srv.URL + "/c.tar.gz")
	full := markstest.Collect(t, r)
	for _, k := range []int64{150, 100, 250} {
		st, err := source.StateOf(r, 0, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Pos) != 3 || st.Pos[0] != k/100 || st.Pos[1] != full[k].Offset || st.Pos[2] != k {
			t.Fatalf("state after %d: %+v, want sample %d at %d", k, st, k, full[k].Offset)
		}
		log.Reset()
		r2, err := source.ResumeFrom(r, markstest.JSONRoundTrip(t, st))
		if err != nil {
			t.Fatal(err)
		}
		markstest.SamePass(t, markstest.Collect(t, r2), full[k:])
		if n, reqs := log.Before("/a.tar", 1<<62); n > 0 || reqs > 0 {
			t.Errorf("after %d: the resumed pass read %d bytes of a.tar", k, n)
		}
		if n, _ := log.Before("/b.tar", st.Pos[1]); k < 200 && n > 2 {
			t.Errorf("after %d: the resumed pass read %d bytes of b.tar before offset %d", k, n, st.Pos[1])
		}
	}
}

// Samples skipped as bad are counted in; the contract holds, resume
// included, under a policy and for a decoded reader.
func TestResumeSkipBad(t *testing.T) {
	dir := t.TempDir()
	samples := smallSamples(0, 30)
	for i := 3; i < 30; i += 7 {
		delete(samples[i].Fields, "cls")
	}
	p := writeFile(t, dir, "bad.tar", shardBytes(t, samples))
	r := webdataset.Open(p, webdataset.Fields("cls"), webdataset.OnBad(source.SkipBad(0.5)))
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
	d := webdataset.Decode(webdataset.Open(p, webdataset.OnBad(source.SkipBad(0.5))), func(s webdataset.Sample) (int, error) { return s.Int("cls") })
	if err := sourcetest.TestReader(d); err != nil {
		t.Fatal(err)
	}
	full := markstest.Collect(t, r)
	st, _ := source.StateOf(r, 0, 4) // samples 0, 1, 2, 4: the next is 5
	if len(st.Pos) != 4 || st.Pos[1] != full[4].Offset || full[4].Key != "s000005" || st.Pos[3] != 1 {
		t.Fatalf("state after 4: %+v, want sample s000005 at %d, 1 skipped", st, full[4].Offset)
	}
	if st, _ := source.StateOf(r, 0, 2); len(st.Pos) != 3 {
		t.Fatalf("state after 2: %+v, want no skipped count before the first bad sample", st)
	}
}

// A pass resumed from an offset judges the policy's fraction over the whole
// pass: a tail denser in bad samples than the pass does not fail it.
func TestResumeSkipBadJudgesWholePass(t *testing.T) {
	samples := smallSamples(0, 22)
	delete(samples[1].Fields, "cls") // 2 of 22 bad
	delete(samples[20].Fields, "cls")
	r := webdataset.Open(writeFile(t, t.TempDir(), "bad.tar", shardBytes(t, samples)), webdataset.Fields("cls"), webdataset.OnBad(source.SkipBad(0.1)))
	st := markstest.ResumeTail(t, r, 20, 19) // the tail is a bad sample and a good one
	if len(st.Pos) != 4 || st.Pos[3] != 1 {
		t.Fatalf("state after 19: %+v, want 1 skipped", st)
	}
	r2, _ := source.ResumeFrom(r, st)
	markstest.Collect(t, r2)
	if st, _ := r2.(source.Resumable[webdataset.Sample]).StateAt(0, 1); len(st.Pos) != 4 || st.Pos[2] != 20 || st.Pos[3] != 2 {
		t.Fatalf("resumed state after 1: %+v, want 20 samples, 2 skipped", st)
	}
	st.Pos[3] = 1 << 62
	st.Pos[2] = 1 << 62
	if _, err := source.ResumeFrom(r, st); !errors.Is(err, source.ErrState) {
		t.Fatalf("Resume(%+v) = %v, want ErrState", st, err)
	}
}

// Behind the ring of sample ends, the state is a replay state; both kinds
// resume exactly.
func TestResumeReplayState(t *testing.T) {
	dir := t.TempDir()
	for _, gz := range []bool{false, true} {
		var opts []webdataset.WriterOption
		if gz {
			opts = append(opts, webdataset.Gzip(1))
		}
		r := webdataset.Open(writeFile(t, dir, fmt.Sprintf("big%v.tar", gz), shardBytes(t, smallSamples(0, 5000), opts...)))
		markstest.ReplayStates(t, r, markstest.Collect(t, r), []int64{0, 10, 903, 4990, 5000}, markstest.SamePass)
	}
}

// A state of another shard set, or a damaged state, is refused.
func TestResumeRefusesOtherShards(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.tar", shardBytes(t, smallSamples(0, 20)))
	b := writeFile(t, dir, "b.tar", shardBytes(t, smallSamples(20, 20)))
	r := webdataset.Open(a + ";" + b)
	markstest.Collect(t, r)
	st, _ := source.StateOf(r, 0, 25)
	for name, tc := range map[string]struct {
		r  source.Reader[webdataset.Sample]
		st source.State
	}{
		"other order":  {webdataset.Open(b + ";" + a), st},
		"fewer shards": {webdataset.Open(a), st},
		"two counters": {r, source.State{Kind: st.Kind, Pos: []int64{1, 2}}},
	} {
		if _, err := source.ResumeFrom(tc.r, tc.st); !errors.Is(err, source.ErrState) {
			t.Errorf("%s: resume from %+v: %v, want ErrState", name, tc.st, err)
		}
	}
	// A shard past the list's end is refused when the pass has expanded
	// the list.
	far, err := source.ResumeFrom(r, source.State{Kind: st.Kind, Pos: []int64{9, 0, 3}})
	if err == nil {
		_, err = source.Collect(context.Background(), far)
	}
	if !errors.Is(err, source.ErrState) || !strings.Contains(err.Error(), "shard 9 of 2") {
		t.Errorf("shard 9: %v, want ErrState", err)
	}
	moved := t.TempDir()
	for _, p := range []string{a, b} {
		data, _ := os.ReadFile(p)
		writeFile(t, moved, filepath.Base(p), data)
	}
	r2, err := source.ResumeFrom(webdataset.Open(filepath.Join(moved, "a.tar")+";"+filepath.Join(moved, "b.tar")), st)
	if err != nil {
		t.Fatal(err)
	}
	if got := markstest.Collect(t, r2); len(got) != 15 || got[0].Key != "s000025" {
		t.Fatalf("moved shards: %d samples, want 15 from s000025", len(got))
	}
}

// BenchmarkResume90 is the time to the first sample of a pass resumed at
// 90% of a shard of 20,000 samples: from an offset state (a seek; for a
// .tar.gz, decompressing up to the offset) against a replay state
// (reading 18,000 samples).
func BenchmarkResume90(b *testing.B) {
	const k = 18_000
	dir := b.TempDir()
	for _, gz := range []bool{false, true} {
		var opts []webdataset.WriterOption
		if gz {
			opts = append(opts, webdataset.Gzip(1))
		}
		p := writeFile(b, dir, fmt.Sprintf("big%v.tar", gz), shardBytes(b, smallSamples(0, 20_000), opts...))
		open := func() source.Reader[webdataset.Sample] { return webdataset.Open(p) }
		markstest.BenchResume(b, fmt.Sprintf("gzip=%v/", gz), open, k, func(s webdataset.Sample) bool { return s.Key == "s018000" })
	}
}
