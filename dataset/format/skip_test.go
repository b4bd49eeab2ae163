package format_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/format"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
)

// corruptTFData flips the last data byte of the last record of the TFRecord
// file at path: its data checksum fails, its framing stays intact.
func corruptTFData(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-5] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// badFiles writes into dir a TFRecord file whose last record fails its
// data checksum and a CSV file whose second line is over the default
// maximum, each beside a good file of its format. It returns the specs
// naming the four files and the two bad ones.
func badFiles(t *testing.T, dir string) (specs, bad []string) {
	t.Helper()
	writeTF(t, dir, "a.tfrecord", "a0", "a1", "a2")
	tf := writeTF(t, dir, "b.tfrecord", "b0", "b1", "b2", "b3")
	corruptTFData(t, tf)
	csv := writeFile(t, dir, "c.csv", func(b *bytes.Buffer) {
		b.WriteString("c,0\n")
		b.WriteString(strings.Repeat("x", 1<<20+10) + "\r\n")
		b.WriteString("c,2\nc,3\n")
	})
	writeFile(t, dir, "d.csv", func(b *bytes.Buffer) { b.WriteString("d,0\nd,1") })
	return []string{filepath.Join(dir, "*.tfrecord"), filepath.Join(dir, "*.csv")}, []string{tf, csv}
}

func TestSkipBadTwoFormats(t *testing.T) {
	specs, badPaths := badFiles(t, t.TempDir())
	want := []string{"a0", "a1", "a2", "b0", "b1", "b2", "c,0", "c,2", "c,3", "d,0", "d,1"}
	for _, workers := range []int{1, 3} {
		var mu sync.Mutex
		var skipped []error
		p := source.SkipBad(0.5, source.OnSkip(func(err error) {
			mu.Lock()
			skipped = append(skipped, err)
			mu.Unlock()
		}))
		core, logs := observer.New(zapcore.WarnLevel)
		ctx := tensorfeed.WithLogger(context.Background(), zap.New(core))
		recs, err := source.Collect(ctx, format.Open(specs, format.Workers(workers), format.OnBad(p)))
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, string(r.Data))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("workers %d: records %q, want %q", workers, got, want)
		}
		if p.Skipped() != 2 || len(skipped) != 2 || logs.Len() != 2 {
			t.Fatalf("workers %d: skipped %d, %d errors, %d warnings; want 2", workers, p.Skipped(), len(skipped), logs.Len())
		}
		var files []string
		for _, err := range skipped {
			var named *tensorfeed.Error
			if !errors.As(err, &named) || !errors.Is(err, tensorfeed.ErrBadData) {
				t.Fatalf("workers %d: skipped error %v is not positioned bad data", workers, err)
			}
			files = append(files, named.Path)
		}
		slices.Sort(files)
		if !slices.Equal(files, badPaths) {
			t.Fatalf("workers %d: skipped errors name %q, want %q", workers, files, badPaths)
		}
		var fe *tensorfeed.Error
		for _, err := range skipped {
			if strings.Contains(err.Error(), "bad text file") && (!errors.As(err, &fe) || fe.Line != 2 || fe.Offset != 4 || !strings.Contains(err.Error(), "line longer than")) {
				t.Fatalf("csv error %v: want line 2 at offset 4", err)
			}
		}
	}
}

// Without a policy the first bad record ends the pass; with a fraction the
// bad records pass, the pass fails with ErrTooManyBad.
func TestSkipBadBound(t *testing.T) {
	specs, _ := badFiles(t, t.TempDir())
	_, err := source.Collect(context.Background(), format.Open(specs))
	if !errors.Is(err, tfrecord.ErrDataChecksum) {
		t.Fatalf("no policy: %v", err)
	}
	_, err = source.Collect(context.Background(), format.Open(specs, format.OnBad(source.SkipBad(0.1))))
	if !errors.Is(err, source.ErrTooManyBad) {
		t.Fatalf("SkipBad(0.1): %v", err)
	}
}

// A format a user registers from TFRecord, with options of its own, is
// given the pass's policy too: its bad records are skipped as the
// built-in format's are.
func TestSkipBadUserFormat(t *testing.T) {
	specs, _ := badFiles(t, t.TempDir())
	reg := new(format.Registry)
	reg.Register("tf", format.TFRecord(tfrecord.MaxRecordBytes(1<<10)))
	p := source.SkipBad(0.5)
	recs, err := source.Collect(context.Background(), format.Open([]string{"tf:" + specs[0]}, format.WithRegistry(reg), format.OnBad(p)))
	if err != nil || len(recs) != 6 || p.Skipped() != 1 {
		t.Fatalf("%d records, skipped %d, err %v; want 6, 1 skipped", len(recs), p.Skipped(), err)
	}
}

// Structural damage ends the pass whatever the policy.
func TestSkipBadStructural(t *testing.T) {
	dir := t.TempDir()
	rec := writeRec(t, dir, "a.rec", "r0", "r1")
	data, _ := os.ReadFile(rec)
	if err := os.WriteFile(rec, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	p := source.SkipBad(1)
	_, err := source.Collect(context.Background(), format.Open([]string{rec}, format.OnBad(p)))
	if !errors.Is(err, tensorfeed.ErrBadData) || p.Skipped() != 0 {
		t.Fatalf("truncated rec: %v, skipped %d", err, p.Skipped())
	}
}

func TestSkipBadReader(t *testing.T) {
	specs, _ := badFiles(t, t.TempDir())
	if err := sourcetest.TestReader(format.Open(specs, format.OnBad(source.SkipBad(0.5)))); err != nil {
		t.Fatal(err)
	}
}

// A line over the maximum is skipped whole, however it ends: at the end
// of the input, after a line ending, or longer than the read buffer.
func TestSkipLongLines(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"ok\n" + strings.Repeat("x", 100) + "\nafter\n", []string{"ok", "after"}},
		{"ok\n" + strings.Repeat("x", 100), []string{"ok"}},
		{strings.Repeat("x", 100) + "\r\n" + strings.Repeat("y", 70<<10) + "\nz,", []string{"z,"}},
		{"a,\n" + strings.Repeat("x", 17) + "\n", []string{"a,"}},
	} {
		p := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		reg := new(format.Registry)
		reg.Register("lines", format.CSV(16))
		recs, err := source.Collect(context.Background(), format.Open([]string{"lines:" + p}, format.WithRegistry(reg), format.OnBad(source.SkipBad(1))))
		if err != nil {
			t.Fatalf("%.20q: %v", tc.in, err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, string(r.Data))
			if !strings.HasPrefix(tc.in[r.Offset:], string(r.Data)) {
				t.Fatalf("%.20q: record %q at wrong offset %d", tc.in, r.Data, r.Offset)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Fatalf("%.20q: lines %q, want %q", tc.in, got, tc.want)
		}
	}
}
