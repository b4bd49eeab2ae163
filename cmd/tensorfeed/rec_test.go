package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testdata = "../../dataset/imagerec/testdata"

// tsvRows reads a .records.tsv file into its columns by name.
func tsvRows(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, name+".records.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	names := strings.Split(strings.TrimPrefix(sc.Text(), "#"), "\t")
	var rows []map[string]string
	for sc.Scan() {
		row := map[string]string{}
		for i, v := range strings.Split(sc.Text(), "\t") {
			row[names[i]] = v
		}
		rows = append(rows, row)
	}
	return rows
}

// sameFloats compares comma-separated float lists as float32 values.
func sameFloats(t *testing.T, got, want string) bool {
	t.Helper()
	g, w := strings.Split(got, ","), strings.Split(want, ",")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		a, err1 := strconv.ParseFloat(g[i], 32)
		b, err2 := strconv.ParseFloat(w[i], 64)
		if err1 != nil || err2 != nil || float32(a) != float32(b) {
			return false
		}
	}
	return true
}

// "rec ls" prints, for every record, the columns of .records.tsv: offset,
// id, flag, labels, image length and image sha256.
func TestRecLs(t *testing.T) {
	for _, name := range []string{"mnist_t10k_1000_jpg", "mnist_t10k_1000_jpg_multilabel", "mnist_t10k_1000_png_gray"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCmd("rec", "ls", filepath.Join(testdata, name+".rec"))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if lines[0] != "offset\tid\tflag\tlabels\tbytes\tsha256" {
				t.Errorf("header row %q", lines[0])
			}
			lines = lines[1:]
			rows := tsvRows(t, name)
			if len(lines) != len(rows) {
				t.Fatalf("%d lines, want %d", len(lines), len(rows))
			}
			for i, row := range rows {
				c := strings.Split(lines[i], "\t")
				if len(c) != 6 {
					t.Fatalf("line %d: %q has %d columns, want 6", i, lines[i], len(c))
				}
				labels := row["header_label"]
				if row["flag"] != "0" {
					labels = row["label_array"]
				}
				if c[0] != row["offset"] || c[1] != row["id"] || c[2] != row["flag"] || !sameFloats(t, c[3], labels) ||
					c[4] != row["image_len"] || c[5] != row["image_sha256"] {
					t.Errorf("line %d: %q; want offset %s id %s flag %s labels %s len %s sha %s", i, lines[i],
						row["offset"], row["id"], row["flag"], labels, row["image_len"], row["image_sha256"])
				}
			}
		})
	}
}

type edgeRecord struct {
	Offset        int64  `json:"offset"`
	PayloadLength int    `json:"payload_length"`
	PayloadSHA    string `json:"payload_sha256"`
	PayloadHex    string `json:"payload_hex"`
}

func edgeRecords(t *testing.T) []edgeRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "multipart_edge_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Records []edgeRecord }
	if err := json.Unmarshal(b, &v); err != nil || len(v.Records) == 0 {
		t.Fatalf("bad json: %v", err)
	}
	return v.Records
}

// "rec ls --raw" lists any payload, here the split records of the edge-case
// file; the flag may also come after the file.
func TestRecLsRaw(t *testing.T) {
	want := edgeRecords(t)
	path := filepath.Join(testdata, "multipart_edge_cases.rec")
	for _, args := range [][]string{{"rec", "ls", "--raw", "--no-header", path}, {"rec", "ls", path, "-raw", "-no-header"}} {
		code, stdout, stderr := runCmd(args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%d lines, want %d", len(lines), len(want))
		}
		for i, w := range want {
			if exp := strconv.FormatInt(w.Offset, 10) + "\t" + strconv.Itoa(w.PayloadLength) + "\t" + w.PayloadSHA; lines[i] != exp {
				t.Errorf("line %d: %q, want %q", i, lines[i], exp)
			}
		}
	}
}

func TestRecCat(t *testing.T) {
	rows := tsvRows(t, "mnist_t10k_1000_jpg_multilabel")
	path := filepath.Join(testdata, "mnist_t10k_1000_jpg_multilabel.rec")
	for _, n := range []int{0, 5, 999} {
		code, stdout, stderr := runCmd("rec", "cat", path, strconv.Itoa(n))
		sum := sha256.Sum256([]byte(stdout))
		if code != 0 || hex.EncodeToString(sum[:]) != rows[n]["image_sha256"] || !strings.HasPrefix(stdout, "\xff\xd8") {
			t.Errorf("cat %d: exit %d (%s), %d bytes with sha %x; want the JPEG of record %d", n, code, stderr, len(stdout), sum, n)
		}
	}
	edge := edgeRecords(t)
	code, stdout, _ := runCmd("rec", "cat", "--raw", filepath.Join(testdata, "multipart_edge_cases.rec"), "3")
	if code != 0 || hex.EncodeToString([]byte(stdout)) != edge[3].PayloadHex {
		t.Errorf("cat --raw 3: exit %d, %x; want %s", code, stdout, edge[3].PayloadHex)
	}
	code, _, stderr := runCmd("rec", "cat", path, "1000")
	if code != 1 || !strings.Contains(stderr, "no record 1000: the file has 1000 records") {
		t.Errorf("cat 1000: exit %d, %q", code, stderr)
	}
}

// Errors name the file and the byte offset: a payload that is no image
// record, and a truncated file. What was listed before the error is kept.
func TestRecErrors(t *testing.T) {
	code, stdout, stderr := runCmd("rec", "ls", "--no-header", filepath.Join(testdata, "multipart_edge_cases.rec"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, "multipart_edge_cases.rec: record 0 at byte 0: imagerec: bad record header") {
		t.Errorf("ls of non-image payloads: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	b, err := os.ReadFile(filepath.Join(testdata, "mnist_t10k_1000_png_gray.rec"))
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "short.rec")
	if err := os.WriteFile(short, b[:700], 0o644); err != nil { // record 2 starts at 612
		t.Fatal(err)
	}
	code, stdout, stderr = runCmd("rec", "ls", short)
	if code != 1 || strings.Count(stdout, "\n") != 3 || !strings.Contains(stderr, short+": record 2 at byte 612") {
		t.Errorf("ls of a truncated file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCmd("rec", "cat", short, "2")
	if code != 1 || !strings.Contains(stderr, "byte 612") {
		t.Errorf("cat of a truncated record: exit %d, stderr %q", code, stderr)
	}
}
