package csv_test

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/csv"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/source/sourcetest"
	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// The fixtures read from S3 give the rows, lines and layout of the local
// read, with the default read-ahead and with blocks that cut lines.
func TestRemoteMatchesLocal(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	url := func(name string) string { return s3.PutFile("data", "csv/"+name, td(name)) }
	classes := []string{"Iris-setosa", "Iris-versicolor", "Iris-virginica"}
	tests := []struct {
		name string
		r    func(dir func(string) string, more ...csv.Option) *csv.Reader
	}{
		{"iris.csv", func(dir func(string) string, more ...csv.Option) *csv.Reader {
			return csv.New(dir("iris.csv"), append(more, csv.SkipRows(1), csv.LabelColumns(csv.Index(-1)))...)
		}},
		{"iris.data", func(dir func(string) string, more ...csv.Option) *csv.Reader {
			return csv.New(dir("iris.data"), append(more, csv.Header(), csv.LabelColumns(csv.Name("Name")), csv.Classes(classes...))...)
		}},
		{"iris_data.csv + iris_label.csv", func(dir func(string) string, more ...csv.Option) *csv.Reader {
			return csv.New(dir("iris_data.csv"), append(more, csv.DataShape(4), csv.LabelFile(dir("iris_label.csv")))...)
		}},
		{"veterans_lung_cancer.csv", func(dir func(string) string, more ...csv.Option) *csv.Reader {
			return csv.New(dir("veterans_lung_cancer.csv"), append(more, csv.Header(),
				csv.LabelColumns(csv.Name("Survival_label_lower_bound"), csv.Name("Survival_label_upper_bound")))...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local := tt.r(td)
			want := collect(t, local)
			wantLayout, err := local.Layout()
			if err != nil {
				t.Fatal(err)
			}
			for _, ra := range []storage.Option{nil, storage.ReadAhead(3, 333)} {
				remote := tt.r(url, csv.Storage(s3.Options(ra)...))
				got := collect(t, remote)
				if len(got) != len(want) || !equalRows(got, want) ||
					!slices.EqualFunc(got, want, func(a, b csv.Row) bool { return a.Line == b.Line }) {
					t.Fatalf("%d rows, want %d equal to the local read", len(got), len(want))
				}
				layout, err := remote.Layout()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(layout.DataShape, wantLayout.DataShape) || !slices.Equal(layout.Columns, wantLayout.Columns) ||
					!slices.Equal(layout.LabelCols, wantLayout.LabelCols) {
					t.Errorf("layout %+v, want %+v", layout, wantLayout)
				}
			}
			if err := sourcetest.TestReader(tt.r(url, csv.Storage(s3.Options()...))); err != nil {
				t.Error(err)
			}
		})
	}
}

// A remote table loads as the local one does.
func TestRemoteLoad(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	u := s3.PutFile("data", "iris_data.csv", td("iris_data.csv"))
	tab, err := csv.New(u, csv.Storage(s3.Options()...)).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	local, err := csv.New(td("iris_data.csv")).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 150 || tab.Len() != local.Len() {
		t.Fatalf("%d rows, want %d", tab.Len(), local.Len())
	}
	for i := range tab.Len() {
		a, _ := tab.Get(i)
		b, _ := local.Get(i)
		if !slices.Equal(a.Data, b.Data) {
			t.Fatalf("row %d: %v, want %v", i, a.Data, b.Data)
		}
	}
}

// A missing object, data or labels, is an error naming its URL that wraps
// storage.ErrNotFound; a missing local file still matches fs.ErrNotExist.
func TestRemoteMissing(t *testing.T) {
	s3 := storagetest.NewS3(t, "data")
	data := s3.PutFile("data", "iris_data.csv", td("iris_data.csv"))
	opt := csv.Storage(s3.Options()...)
	for _, tt := range []struct {
		r       *csv.Reader
		missing string
	}{
		{csv.New("s3://data/missing.csv", opt), "s3://data/missing.csv"},
		{csv.New(data, opt, csv.LabelFile("s3://data/labels.csv")), "s3://data/labels.csv"},
	} {
		_, err := source.Collect(context.Background(), tt.r)
		var se *tensorfeed.Error
		if !errors.Is(err, storage.ErrNotFound) || !errors.As(err, &se) || se.Path != tt.missing || !strings.Contains(err.Error(), tt.missing) {
			t.Errorf("%v, want a *tensorfeed.Error naming %s", err, tt.missing)
		}
		if _, err := tt.r.Layout(); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Layout: %v, want storage.ErrNotFound", err)
		}
	}
	_, err := source.Collect(context.Background(), csv.New(td("no-such.csv")))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), td("no-such.csv")) {
		t.Errorf("missing local file: %v, want fs.ErrNotExist naming it", err)
	}
}
