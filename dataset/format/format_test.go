package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/dataset/webdataset"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

func writeFile(t testing.TB, dir, name string, write func(*bytes.Buffer)) string {
	t.Helper()
	var b bytes.Buffer
	write(&b)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeRec(t testing.TB, dir, name string, payloads ...string) string {
	return writeFile(t, dir, name, func(b *bytes.Buffer) {
		w := recordio.NewWriter(b)
		for _, p := range payloads {
			if err := w.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func writeTF(t testing.TB, dir, name string, payloads ...string) string {
	return writeFile(t, dir, name, func(b *bytes.Buffer) {
		w := tfrecord.NewWriter(b)
		for _, p := range payloads {
			if err := w.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func writeWDS(t testing.TB, dir, name string, keys ...string) string {
	return writeFile(t, dir, name, func(b *bytes.Buffer) {
		w := webdataset.NewWriter(b)
		for _, k := range keys {
			if err := w.Write(webdataset.Sample{Key: k, Fields: map[string][]byte{"txt": []byte("t" + k), "cls": []byte("1")}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// writeIDX writes a 1-dimensional ubyte IDX file.
func writeIDX(t testing.TB, dir, name string, values ...byte) string {
	return writeFile(t, dir, name, func(b *bytes.Buffer) {
		b.Write([]byte{0, 0, 0x08, 1, 0, 0, 0, byte(len(values))})
		b.Write(values)
	})
}

func collect(t *testing.T, r source.Reader[format.Record]) []format.Record {
	t.Helper()
	got, err := source.Collect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func payloads(rs []format.Record) string {
	var s []string
	for _, r := range rs {
		if r.Fields != nil {
			s = append(s, r.Key+"="+string(r.Fields["txt"]))
			continue
		}
		s = append(s, string(r.Data))
	}
	return strings.Join(s, " ")
}

func TestOpenDetected(t *testing.T) {
	dir := t.TempDir()
	writeRec(t, dir, "a.rec", "r0", "r1")
	writeTF(t, dir, "b.bin", "t0")
	writeWDS(t, dir, "c.tar", "k0", "k1")
	writeIDX(t, dir, "d.data", 7, 8)
	writeFile(t, dir, "e.txt", func(b *bytes.Buffer) { b.WriteString("x,1\r\ny,2\nz,3") })
	r := format.Open([]string{filepath.Join(dir, "*")})
	got := collect(t, r)
	if want := "r0 r1 t0 k0=tk0 k1=tk1 \x07 \x08 x,1 y,2 z,3"; payloads(got) != want {
		t.Fatalf("payloads %q, want %q", payloads(got), want)
	}
	last := got[len(got)-1]
	if last.Index != 2 || last.Offset != 9 || filepath.Base(last.Path) != "e.txt" {
		t.Fatalf("last record %+v", last)
	}
	if err := sourcetest.TestReader(r); err != nil {
		t.Fatal(err)
	}
}

func TestOpenTagged(t *testing.T) {
	dir := t.TempDir()
	rec := writeRec(t, dir, "a.rec", "r0")
	txt := writeFile(t, dir, "notes", func(b *bytes.Buffer) { b.WriteString("plain\ntext\n") })
	got := collect(t, format.Open([]string{"recordio:" + rec, "csv:" + txt}))
	if want := "r0 plain text"; payloads(got) != want {
		t.Fatalf("payloads %q, want %q", payloads(got), want)
	}
}

func TestOpenWorkers(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		writeRec(t, dir, fmt.Sprintf("%d.rec", i), fmt.Sprint(i, "a"), fmt.Sprint(i, "b"))
	}
	r := format.Open([]string{filepath.Join(dir, "*.rec")}, format.Workers(3))
	got := collect(t, r)
	if len(got) != 10 {
		t.Fatalf("%d records, want 10", len(got))
	}
	if err := sourcetest.TestReader(r, sourcetest.Nondeterministic()); err != nil {
		t.Fatal(err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	bin := writeFile(t, dir, "x.bin", func(b *bytes.Buffer) { b.Write([]byte{1, 2, 3, 4, 5}) })
	empty := writeFile(t, dir, "empty", func(*bytes.Buffer) {})
	rec := writeRec(t, dir, "a.rec", "r0", "r1")
	data, _ := os.ReadFile(rec)
	cut := writeFile(t, dir, "cut.rec", func(b *bytes.Buffer) { b.Write(data[:len(data)-3]) })
	for _, tc := range []struct {
		specs []string
		is    []error
		says  string
	}{
		{[]string{filepath.Join(dir, "none-*")}, []error{format.ErrSpec}, "none-*"},
		{[]string{"nope:" + rec}, []error{format.ErrSpec}, `unknown format "nope"`},
		{[]string{bin}, []error{format.ErrSpec, tensorfeed.ErrBadData}, bin},
		{[]string{empty}, []error{format.ErrSpec}, "empty file"},
		{[]string{cut}, []error{recordio.ErrFormat, tensorfeed.ErrBadData}, cut},
		{[]string{"tfrecord:" + rec}, []error{tfrecord.ErrFormat}, rec},
		{[]string{"recordio:" + rec, rec}, []error{format.ErrSpec}, `two specs with different formats ("recordio" and "detected")`},
	} {
		_, err := source.Collect(context.Background(), format.Open(tc.specs))
		if err == nil {
			t.Errorf("%v: no error", tc.specs)
			continue
		}
		for _, is := range tc.is {
			if !errors.Is(err, is) {
				t.Errorf("%v: error %v does not wrap %v", tc.specs, err, is)
			}
		}
		if !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v: error %q does not say %q", tc.specs, err, tc.says)
		}
	}
}

func TestRegisterUserFormat(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "u.kv", func(b *bytes.Buffer) { b.WriteString("KV1\na=1\nb=2\n") })
	reg := new(format.Registry)
	reg.Register("kv", format.Format{
		Detect: func(head []byte) bool { return bytes.HasPrefix(head, []byte("KV1\n")) },
		Open: func(path string, _ *source.SkipPolicy) source.Reader[format.Record] {
			return source.Func[format.Record](func(ctx context.Context) iter.Seq2[format.Record, error] {
				return func(yield func(format.Record, error) bool) {
					b, err := os.ReadFile(path)
					if err != nil {
						yield(format.Record{}, err)
						return
					}
					for i, l := range strings.Fields(string(b))[1:] {
						k, v, _ := strings.Cut(l, "=")
						if !yield(format.Record{Path: path, Index: int64(i), Key: k, Data: []byte(v)}, nil) {
							return
						}
					}
				}
			})
		},
	})
	for _, spec := range []string{p, "kv:" + p} {
		got := collect(t, format.Open([]string{spec}, format.WithRegistry(reg)))
		if len(got) != 2 || got[1].Key != "b" || string(got[1].Data) != "2" {
			t.Fatalf("%s: %+v", spec, got)
		}
	}
	if _, err := source.Collect(context.Background(), format.Open([]string{"csv:" + p}, format.WithRegistry(reg))); !errors.Is(err, format.ErrSpec) {
		t.Fatalf("csv in an empty registry: %v", err)
	}
}

func TestDefaultNames(t *testing.T) {
	if got := strings.Join(format.Default().Names(), ","); !strings.HasSuffix(got, "recordio,tfrecord,wds,idx,parquet,csv,lst,meanimg,image") {
		t.Fatalf("names %s", got)
	}
}
