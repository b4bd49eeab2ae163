package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/tensorfeed/tensorfeed/storage"
)

// TestMinIO runs the read tests against a real MinIO server when a minio
// binary is found (MINIO_BIN, or minio on PATH).
func TestMinIO(t *testing.T) {
	bin := os.Getenv("MINIO_BIN")
	if bin == "" {
		bin, _ = exec.LookPath("minio")
	}
	if bin == "" {
		t.Skip("no minio binary: go install github.com/minio/minio@latest (about 17 minutes) and set MINIO_BIN")
	}
	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	addr, console := port(), port()
	const user, password = "tensorfeed", "tensorfeed-secret"
	cmd := exec.Command(bin, "server", t.TempDir(), "--address", addr, "--console-address", console, "--quiet")
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+user, "MINIO_ROOT_PASSWORD="+password)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	client := &http.Client{Transport: transport}
	ready := false
	for range 300 { // up to 30 s
		resp, err := client.Get("http://" + addr + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				ready = true
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ready {
		t.Fatalf("minio did not start on %s:\n%s", addr, out.String())
	}
	mc, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(user, password, ""), Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	put := func(t testing.TB, key string, data []byte) {
		t.Helper()
		if _, err := mc.PutObject(ctx, bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	opts := func(more ...storage.Option) []storage.Option {
		return append([]storage.Option{
			storage.Endpoint(fmt.Sprintf("http://%s", addr)),
			storage.Credentials(user, password, ""),
			storage.Transport(transport),
			storage.Retry(3, time.Millisecond, 20*time.Millisecond),
		}, more...)
	}
	readTests(t, put, opts)

	t.Run("WrongCredentials", func(t *testing.T) {
		_, err := storage.OpenFile(ctx, "s3://"+bucket+"/obj.bin", append(opts(), storage.Credentials(user, "wrong-secret", ""))...)
		if !errors.Is(err, storage.ErrDenied) {
			t.Fatalf("err = %v, want ErrDenied", err)
		}
	})
}
