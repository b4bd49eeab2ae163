package tfrecord_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// Records read from S3, plain and gzip, equal the local read: offsets,
// indexes and data; the record's File is the URL.
func TestRemoteMatchesLocal(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	recs := sampleRecords()
	for _, gz := range []bool{false, true} {
		data := encode(t, recs, gz)
		local := writeFile(t, data)
		u := s3.Put("data", fmt.Sprintf("r-%v.tfrecord", gz), data)
		wantData, want, err := readAll(tfrecord.Open(local))
		if err != nil {
			t.Fatal(err)
		}
		for _, ra := range []storage.Option{nil, storage.ReadAhead(3, 1001)} {
			gotData, got, err := readAll(tfrecord.Open(u, tfrecord.Storage(s3.Options(ra)...)))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(recs) || len(got) != len(want) {
				t.Fatalf("%s: %d records, want %d", u, len(got), len(want))
			}
			for i := range got {
				if got[i].File != u || got[i].Offset != want[i].Offset || got[i].Index != want[i].Index || !bytes.Equal(gotData[i], wantData[i]) {
					t.Fatalf("%s: record %d = %+v, want %+v", u, i, got[i], want[i])
				}
			}
		}
		if err := sourcetest.TestReader[tfrecord.Record](tfrecord.Open(u, tfrecord.Storage(s3.Options()...))); err != nil {
			t.Error(err)
		}
	}
}

// A remote file cut short fails as the local one does, naming the URL.
func TestRemoteTruncated(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	data := encode(t, sampleRecords(), false)
	cut := data[:len(data)-3]
	_, _, lerr := readAll(tfrecord.Open(writeFile(t, cut)))
	u := s3.Put("data", "cut.tfrecord", cut)
	_, _, rerr := readAll(tfrecord.Open(u, tfrecord.Storage(s3.Options()...)))
	var le, re *tensorfeed.Error
	if !errors.As(lerr, &le) || !errors.As(rerr, &re) || re.Path != u || re.Offset != le.Offset || re.Record != le.Record || re.Err.Error() != le.Err.Error() {
		t.Errorf("remote %v, local %v", rerr, lerr)
	}
}

// A missing object is an error naming its URL that wraps
// storage.ErrNotFound; a missing local file still matches fs.ErrNotExist.
func TestRemoteMissing(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	const missing = "s3://data/none.tfrecord"
	_, _, err := readAll(tfrecord.Open(missing, tfrecord.Storage(s3.Options()...)))
	var se *tensorfeed.Error
	if !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || se.Path != missing || !strings.Contains(err.Error(), missing) {
		t.Errorf("%v, want a *tensorfeed.Error naming %s", err, missing)
	}
	none := t.TempDir() + "/none.tfrecord"
	if _, _, err := readAll(tfrecord.Open(none)); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), none) {
		t.Errorf("missing local file: %v, want fs.ErrNotExist naming it", err)
	}
}
