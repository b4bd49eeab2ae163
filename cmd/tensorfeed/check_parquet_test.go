package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// parquetTestdata holds Parquet files written by Impala, Spark and Arrow.
const parquetTestdata = "../../dataset/parquet/testdata"

// Parquet files written by other implementations: the good ones are
// summarised, the malformed ones reported with their position.
func TestCheckParquetTestdata(t *testing.T) {
	for _, c := range []struct {
		file string
		code int
		out  string // stdout after "PATH: ", or stderr after "PATH: "
	}{
		{"alltypes_plain.parquet", 0, "Parquet: 8 rows in 1 row group, 464 value bytes; 11 columns: id INT32 optional, bool_col BOOLEAN optional, "},
		{"datapage_v2.snappy.parquet", 0, "Parquet: 5 rows in 1 row group, 109 value bytes; 5 columns: a STRING optional, b INT32, c DOUBLE, d BOOLEAN, e INT32 repeated\n"},
		{"lz4_raw_compressed.parquet", 0, "Parquet: 4 rows in 1 row group, 76 value bytes; 3 columns: c0 INT64, c1 BYTE_ARRAY, v11 DOUBLE optional\n"},
		{"negative_page_size.parquet", 1, `byte 4: member "id": row group 0: parquet: bad format: page of -4001 bytes goes past the end of the column chunk`},
		{"negative_row_group_num_rows.parquet", 1, "byte 8837: parquet: bad format: footer: "},
		{"num_values_exceeds_data.parquet", 1, `record 0 at byte 4: member "id": row group 0: `},
	} {
		path := filepath.Join(parquetTestdata, c.file)
		code, stdout, stderr := runCmd("check", path)
		got := stdout
		if c.code != 0 {
			got = stderr
		}
		if code != c.code || !strings.HasPrefix(got, path+": "+c.out) || strings.Count(got, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", c.file, code, stdout, stderr, c.code, c.out)
		}
	}
	// --format parquet reads a file whatever its name; a .parquet name
	// with another magic is still read as Parquet.
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(parquetTestdata, "alltypes_plain.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "table.bin")
	writeFile(t, plain, data)
	if code, stdout, _ := runCmd("check", "--format", "parquet", plain); code != 0 || !strings.HasPrefix(stdout, plain+": Parquet: 8 rows") {
		t.Errorf("--format parquet: exit %d, stdout %q", code, stdout)
	}
	named := filepath.Join(dir, "x.parquet")
	writeFile(t, named, append([]byte("XXXX"), data[4:]...))
	if code, _, stderr := runCmd("check", named); code != 1 || !strings.HasPrefix(stderr, named+`: byte 0: parquet: bad format: bad magic "XXXX"`) {
		t.Errorf("bad magic: exit %d, stderr %q", code, stderr)
	}
}

// A file with two bad row groups: the first ends the check, --all reports
// both and reads the good row group between them.
func TestCheckParquetAll(t *testing.T) {
	cases, err := badinput.Write(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for _, c := range cases {
		if c.Name == "parquet_values_past_data_two_groups" {
			path = c.Path
		}
	}
	if path == "" {
		t.Fatal("no corpus case parquet_values_past_data_two_groups")
	}
	line := regexp.QuoteMeta(path) + `: record \d+ at byte \d+: member "id": row group %d: \S`
	code, stdout, stderr := runCmd("check", path)
	if code != 1 || stdout != "" || !regexp.MustCompile(`^`+strings.ReplaceAll(line, "%d", "0")+`.*\n$`).MatchString(stderr) {
		t.Errorf("first: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCmd("check", "--all", path)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 1 || len(lines) != 2 || !regexp.MustCompile(strings.ReplaceAll(line, "%d", "0")).MatchString(lines[0]) ||
		!regexp.MustCompile(strings.ReplaceAll(line, "%d", "2")).MatchString(lines[1]) {
		t.Errorf("--all: exit %d, stderr %q", code, stderr)
	}
}

// A Parquet object in S3 is checked as the local file is.
func TestCheckParquetS3(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	local := filepath.Join(parquetTestdata, "datapage_v2.snappy.parquet")
	url := s3.PutFile("data", "t.parquet", local)
	code, stdout, stderr := runS3(s3, "check", url)
	_, want, _ := runCmd("check", local)
	if code != 0 || localVsRemote(stdout, url, local) != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	bad := s3.PutFile("data", "bad.parquet", filepath.Join(parquetTestdata, "negative_page_size.parquet"))
	if code, _, stderr := runS3(s3, "check", bad); code != 1 || !strings.HasPrefix(stderr, bad+`: byte 4: member "id": row group 0: `) {
		t.Errorf("bad: exit %d, stderr %q", code, stderr)
	}
}

// FuzzCheckParquet: check --all of any bytes as Parquet ends with exit 0
// and a summary, or exit 1 and positioned reports; never an internal
// error.
func FuzzCheckParquet(f *testing.F) {
	for _, name := range []string{"alltypes_plain.parquet", "datapage_v2.snappy.parquet", "num_values_exceeds_data.parquet"} {
		data, err := os.ReadFile(filepath.Join(parquetTestdata, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "f.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCmd("check", "--all", path)
		switch {
		case code == 0 && strings.HasPrefix(stdout, path+": Parquet: ") && stderr == "":
		case code == 1 && stdout == "" && positionRE.MatchString(stderr):
		default:
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
}
