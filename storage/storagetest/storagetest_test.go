package storagetest_test

import (
	"context"
	"io"
	"testing"

	"go.uber.org/goleak"

	"github.com/tensorfeed/tensorfeed/storage"
	"github.com/tensorfeed/tensorfeed/storage/storagetest"
)

// Every test in this package must leave no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestS3(t *testing.T) {
	s := storagetest.NewS3(t, "data")
	url := s.Put("data", "a/b.txt", []byte("hello"))
	f, err := storage.OpenFile(context.Background(), url, s.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "hello" || url != "s3://data/a/b.txt" {
		t.Fatalf("%s: %q, %v", url, b, err)
	}
}
