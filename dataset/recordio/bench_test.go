package recordio_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

// benchFiles are the .rec files the benchmarks read: the JPEG test file
// (about 1 KiB per record), and, when TENSORFEED_BENCH_REC names a .rec file
// with an .idx next to it, that file too (for example the 35 MB photo set).
func benchFiles(b *testing.B) map[string]string {
	files := map[string]string{"mnist_jpg": recPath("mnist_t10k_1000_jpg")}
	if p := os.Getenv("TENSORFEED_BENCH_REC"); p != "" {
		files["env"] = p
	}
	return files
}

func BenchmarkReadSequential(b *testing.B) {
	for name, path := range benchFiles(b) {
		file := mustRead(b, path)
		for _, reuse := range []bool{true, false} {
			sub := name
			if !reuse {
				sub += "/alloc"
			}
			b.Run(sub, func(b *testing.B) {
				b.SetBytes(int64(len(file)))
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					rd := recordio.NewReader(bytes.NewReader(file), "")
					recordio.SetReuse(rd, reuse)
					for {
						if _, err := rd.Next(); err != nil {
							if err != io.EOF {
								b.Fatal(err)
							}
							break
						}
						n++
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
			})
		}
	}
}

// BenchmarkReadFile reads the file from disk through the typed reader, one
// pass per iteration.
func BenchmarkReadFile(b *testing.B) {
	for name, path := range benchFiles(b) {
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			r := recordio.Open(path, recordio.ReuseBuffer())
			b.SetBytes(st.Size())
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for _, err := range r.All(context.Background()) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
		})
	}
}

// BenchmarkReadIndexed reads every record through the index, in index order
// and in a shuffled order, from memory and from the file (one pread per
// record).
func BenchmarkReadIndexed(b *testing.B) {
	for name, path := range benchFiles(b) {
		file := mustRead(b, path)
		ix, err := recordio.ReadIndex(context.Background(), strings.TrimSuffix(path, ".rec")+".idx")
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		order := make([]int, ix.Len())
		for i := range order {
			order[i] = i
		}
		shuffled := append([]int(nil), order...)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, src := range []struct {
			name string
			r    io.ReaderAt
		}{{"memory", bytes.NewReader(file)}, {"file", f}} {
			rr := recordio.NewRandomReader("", src.r, int64(len(file)), ix)
			for _, ord := range []struct {
				name  string
				order []int
			}{{"in_order", order}, {"shuffled", shuffled}} {
				b.Run(name+"/"+src.name+"/"+ord.name, func(b *testing.B) {
					b.SetBytes(int64(len(file)))
					b.ReportAllocs()
					var buf []byte
					n := 0
					for b.Loop() {
						for _, i := range ord.order {
							if buf, err = rr.AppendAt(buf[:0], ix.Entry(i).Offset); err != nil {
								b.Fatal(err)
							}
							n++
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
				})
			}
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	file := mustRead(b, recPath("mnist_t10k_1000_jpg"))
	payloads, _ := readAll(b, "jpg", file)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		w := recordio.NewWriter(io.Discard)
		for _, p := range payloads {
			if err := w.Write(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(payloads)), "ns/record")
}

// BenchmarkShardSet reads every record of three shards (the JPEG test file
// three times) as one set through Get, in order and in a shuffled order:
// the cost of locating the shard over that of one IndexedFile's Get
// (BenchmarkReadIndexed).
func BenchmarkShardSet(b *testing.B) {
	dir := b.TempDir()
	for _, k := range []string{"a", "b", "c"} {
		for _, ext := range []string{".rec", ".idx"} {
			if err := os.WriteFile(dir+"/"+k+ext, mustRead(b, testdata+"/mnist_t10k_1000_jpg"+ext), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	set, err := recordio.OpenIndexed(context.Background(), dir+"/*.rec")
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	one, err := recordio.OpenIndexed(context.Background(), dir+"/a.rec")
	if err != nil {
		b.Fatal(err)
	}
	defer one.Close()
	order := rand.New(rand.NewPCG(1, 2)).Perm(set.Len())
	for _, shuffled := range []bool{false, true} {
		name := "sequential"
		if shuffled {
			name = "shuffled"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range set.Len() {
					if shuffled {
						i = order[i]
					}
					if _, err := set.Get(i); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*set.Len()), "ns/record")
		})
		// The same records through the first shard's Get alone.
		b.Run(name+"/one-file", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range set.Len() {
					if shuffled {
						i = order[i]
					}
					if _, err := one.Get(i % one.Len()); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*set.Len()), "ns/record")
		})
	}
}
