package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
)

// A WebDataset sample split across two shards (its key ends one and starts
// the next) is refused by Open as webdataset.Open refuses it, with
// one worker or several, detected or tagged, empty shards in between or
// not; shards of other formats in between make no seam.
func TestOpenWDSSplitAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeWDS(t, dir, "a.tar", "k0", "k1")
	b := writeWDS(t, dir, "b.tar", "k1", "k2")
	c := writeWDS(t, dir, "c.tar", "k3")
	empty := writeWDS(t, dir, "empty.tar")
	rec := writeRec(t, dir, "r.rec", "r0")
	_, refErr := source.Collect(context.Background(), webdataset.Open(a+";"+b))
	if !errors.Is(refErr, webdataset.ErrSplit) {
		t.Fatalf("webdataset.Open: %v", refErr)
	}
	for _, tc := range []struct {
		specs []string
		split bool
	}{
		{[]string{a, b}, true},
		{[]string{"wds:" + a, "wds:" + b}, true},
		{[]string{a, "wds:" + empty, "wds:" + empty, b}, true},
		{[]string{a, c, b}, false},
		{[]string{a, rec, b}, false},
		{[]string{b, a}, false},
		{[]string{a, a}, false},
	} {
		for _, workers := range []int{1, 2, 4} {
			name := fmt.Sprintf("%v workers=%d", base(tc.specs), workers)
			for range 5 { // the workers race: judge the seam whichever comes first
				n := 0
				var err error
				for _, rerr := range format.Open(tc.specs, format.Workers(workers)).All(context.Background()) {
					if err = rerr; err != nil {
						break
					}
					n++
				}
				if !tc.split {
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					continue
				}
				var e *tensorfeed.Error
				if !errors.Is(err, webdataset.ErrSplit) || !errors.As(err, &e) {
					t.Fatalf("%s: %d records, then %v; want ErrSplit", name, n, err)
				}
				if e.Path != b || e.Offset != 0 || !strings.Contains(err.Error(), `key "k1" ends shard `+a) {
					t.Fatalf("%s: error %v, want one at %s offset 0 naming %s and k1", name, err, b, a)
				}
				if workers == 1 && n != 2 {
					t.Fatalf("%s: %d records before the error, want those of %s", name, n, a)
				}
			}
		}
	}
}

func base(specs []string) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = filepath.Base(s)
	}
	return out
}

// Tar archives joined end to end are an error at the offset of the second
// one through the registry too, unless the wds format is given
// webdataset.IgnoreZeros.
func TestOpenWDSJoinedArchives(t *testing.T) {
	dir := t.TempDir()
	a := writeWDS(t, dir, "a.tar", "k0", "k1")
	b := writeWDS(t, dir, "b.tar", "k2", "k3")
	joined := writeFile(t, dir, "joined.tar", func(buf *bytes.Buffer) {
		for _, p := range []string{a, b} {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(data)
		}
	})
	sa, _ := os.Stat(a)
	got, err := source.Collect(context.Background(), format.Open([]string{joined}))
	var e *tensorfeed.Error
	if !errors.Is(err, webdataset.ErrAfterEnd) || !errors.As(err, &e) || e.Path != joined || e.Offset != sa.Size() {
		t.Fatalf("%d records, then %v; want ErrAfterEnd at %d", len(got), err, sa.Size())
	}
	reg := new(format.Registry)
	reg.Register("wds", format.WDS(webdataset.IgnoreZeros()))
	got, err = source.Collect(context.Background(), format.Open([]string{joined}, format.WithRegistry(reg)))
	if err != nil || payloads(got) != "k0=tk0 k1=tk1 k2=tk2 k3=tk3" {
		t.Fatalf("with IgnoreZeros: %q, %v", payloads(got), err)
	}
}
