package webdataset_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// Shards listed and read from S3, plain and gzip, give the samples of the
// local read: keys, offsets and every field's bytes; the sample's Shard is
// the URL.
func TestRemoteMatchesLocal(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	dir := t.TempDir()
	samples := makeSamples(t, 30)
	var local []string
	for i := 0; i < len(samples); i += 10 {
		var opts []webdataset.WriterOption
		name := fmt.Sprintf("shard-%06d.tar", i/10)
		if i/10 == 1 {
			opts, name = append(opts, webdataset.Gzip(5)), name+".gz"
		}
		p := writeFile(t, dir, name, shardBytes(t, samples[i:i+10], opts...))
		local = append(local, p)
		s3.PutFile("data", "train/"+name, p)
	}
	remote, err := storage.List(context.Background(), "s3://data/train/shard-*", s3.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(remote) != len(local) {
		t.Fatalf("List: %v, want %d shards", remote, len(local))
	}
	want, err := collect(t, webdataset.Open(strings.Join(local, ";")))
	if err != nil {
		t.Fatal(err)
	}
	for _, ra := range []storage.Option{nil, storage.ReadAhead(3, 700)} {
		got, err := collect(t, webdataset.Open(strings.Join(remote, ";"), webdataset.Storage(s3.Options(ra)...)))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d samples, want %d", len(got), len(want))
		}
		for i, s := range got {
			w := want[i]
			if s.Key != w.Key || s.Offset != w.Offset || s.Shard != remote[i/10] || !maps.EqualFunc(s.Fields, w.Fields, bytes.Equal) {
				t.Fatalf("sample %d = %q at %d of %s, want %q at %d", i, s.Key, s.Offset, s.Shard, w.Key, w.Offset)
			}
			checkDecoders(t, i, s)
		}
	}
	if err := sourcetest.TestReader(webdataset.Open(strings.Join(remote, ";"), webdataset.Storage(s3.Options()...))); err != nil {
		t.Error(err)
	}
}

// A remote shard cut short is the local one's error, naming the URL.
func TestRemoteTruncated(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	full := shardBytes(t, makeSamples(t, 8))
	cut := full[:len(full)/2]
	p := writeFile(t, t.TempDir(), "cut.tar", cut)
	u := s3.Put("data", "cut.tar", cut)
	_, lerr := collect(t, webdataset.Open(p))
	_, rerr := collect(t, webdataset.Open(u, webdataset.Storage(s3.Options()...)))
	le := wdError(t, lerr, p, "truncated shard")
	re := wdError(t, rerr, u, "truncated shard")
	if le.Offset != re.Offset || le.Member != re.Member {
		t.Errorf("remote %v, local %v", rerr, lerr)
	}
}

// A missing shard is an error naming its URL that wraps
// storage.ErrNotFound; a missing local file still matches fs.ErrNotExist.
func TestRemoteMissing(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	a := s3.Put("data", "a.tar", shardBytes(t, makeSamples(t, 3)))
	const missing = "s3://data/none.tar"
	got, err := collect(t, webdataset.Open(a+";"+missing, webdataset.Storage(s3.Options()...)))
	var se *tensorfeed.Error
	if len(got) != 3 || !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || se.Path != missing || !strings.Contains(err.Error(), missing) {
		t.Errorf("%d samples, %v; want 3 and a *tensorfeed.Error naming %s", len(got), err, missing)
	}
	none := t.TempDir() + "/none.tar"
	if _, err := collect(t, webdataset.Open(none)); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), none) {
		t.Errorf("missing local file: %v, want fs.ErrNotExist naming it", err)
	}
}
