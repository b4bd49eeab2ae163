package main

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's image record commands, run as written through the built
// binary in a folder holding photos/{cats,dogs}/*.jpg:
//
//	tensorfeed im2rec list --train-ratio 0.9 photos photos/
//	tensorfeed im2rec pack --resize 256 photos photos/
//	tensorfeed rec ls photos_train.rec
//	tensorfeed check photos_train.rec
//	tensorfeed convert --from images --to wds --out shards --prefix photos --shard-records 10 photos/
//	tensorfeed ls shards/photos-00000.tar
//	tensorfeed show --grid photos.png photos_train.rec
func TestReadmeImageRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "tensorfeed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for i := range 20 {
		class := []string{"cats", "dogs"}[i%2]
		p := filepath.Join(dir, "photos", class, class[:3]+string(rune('a'+i))+".jpg")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, testImage(320+i, 300, i), &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := func(line string) string {
		t.Helper()
		cmd := exec.Command(bin, strings.Fields(line)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("tensorfeed %s: %v\nstdout:\n%s\nstderr:\n%s", line, err, stdout.String(), stderr.String())
		}
		if stderr.Len() > 0 { // no progress bar, no noise: stderr is not a terminal
			t.Errorf("tensorfeed %s: stderr %q", line, stderr.String())
		}
		return stdout.String()
	}
	if out := sh("im2rec list --train-ratio 0.9 photos photos/"); out != "cats\t0\ndogs\t1\n" {
		t.Errorf("im2rec list printed %q", out)
	}
	out := sh("im2rec pack --resize 256 photos photos/")
	for _, want := range []string{"photos_train.lst: 18 records in photos_train.rec", "photos_val.lst: 2 records in photos_val.rec"} {
		if !strings.Contains(out, want) {
			t.Errorf("im2rec pack printed %q, want %q", out, want)
		}
	}
	for _, f := range []string{"photos_train.lst", "photos_val.lst", "photos_train.rec", "photos_train.idx", "photos_val.rec", "photos_val.idx"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(sh("rec ls photos_train.rec"), "\n"), "\n")
	if len(lines) != 19 || lines[0] != "offset\tid\tflag\tlabels\tbytes\tsha256" {
		t.Fatalf("rec ls: %d lines, header %q", len(lines), lines[0])
	}
	for _, l := range lines[1:] {
		if c := strings.Split(l, "\t"); len(c) != 6 || c[2] != "0" || (c[3] != "0" && c[3] != "1") {
			t.Errorf("rec ls line %q", l)
		}
	}
	if out := sh("check photos_train.rec"); !strings.Contains(out, "image records: 18 records; images 273-289 x 256-256 pixels") ||
		!strings.Contains(out, "index photos_train.idx matches") {
		t.Errorf("check printed %q", out)
	}
	if out := sh("convert --from images --to wds --out shards --prefix photos --shard-records 10 photos/"); !strings.HasPrefix(out, "convert: 20 records, 2 shards, ") ||
		!strings.HasSuffix(out, ": shards/photos-00000.tar ... photos-00001.tar\n") {
		t.Errorf("convert printed %q", out)
	}
	lines = strings.Split(strings.TrimSuffix(sh("ls shards/photos-00000.tar"), "\n"), "\n")
	if len(lines) != 11 || lines[0] != "file\tindex\toffset\tkey\tbytes\tsha256" {
		t.Fatalf("ls: %d lines, header %q", len(lines), lines[0])
	}
	for i, l := range lines[1:] {
		c := strings.Split(l, "\t")
		if len(c) != 6 || c[0] != "shards/photos-00000.tar" || c[1] != fmt.Sprint(i) || c[3] != fmt.Sprintf("%08d", i) ||
			!strings.HasPrefix(c[5], "cls:1:") || !strings.Contains(c[5], ",jpg:") {
			t.Errorf("ls line %q", l)
		}
	}
	if out := sh("show --grid photos.png photos_train.rec"); !strings.Contains(out, "18 images") {
		t.Errorf("show printed %q", out)
	}
	f, err := os.Open(filepath.Join(dir, "photos.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width < 8*64 || cfg.Height < 3*64 {
		t.Errorf("photos.png: %+v, %v; want a grid of 8 by 3", cfg, err)
	}
}
