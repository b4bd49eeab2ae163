package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/tensorfeed/tensorfeed/storage"
)

// The s3 rows read from an S3 server in a process of its own, so that the
// server's work (hashing, copying, HTTP) does not share the reader's
// goroutines and cores' scheduling the way an in-process server would: a
// MinIO server when a minio binary is found (MINIO_BIN, or minio on PATH),
// else this program again as a gofakes3 server (s3ServerEnv).
const (
	s3Bucket    = "bench"
	s3User      = "tensorfeed"
	s3Secret    = "tensorfeed-secret"
	s3ServerEnv = "TENSORFEED_BENCH_S3_SERVER" // a JSON object key -> local path
)

// s3Server is a running S3 server holding the bench bucket.
type s3Server struct {
	kind      string // what serves, for the rows' notes
	endpoint  string
	cmd       *exec.Cmd
	stdin     io.Closer // closing it stops the gofakes3 child
	transport *http.Transport
}

// startS3Server starts an S3 server in its own process with the files
// (object key -> local path) in bucket s3Bucket.
func startS3Server(dir string, files map[string]string) (*s3Server, error) {
	bin := os.Getenv("MINIO_BIN")
	if bin == "" {
		bin, _ = exec.LookPath("minio")
	}
	// As many idle connections as ImageRecordIter keeps requests in flight
	// (16, as minio-go's default transport keeps), so that concurrent range
	// requests reuse connections instead of dialing new ones.
	s := &s3Server{transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var err error
	if bin != "" {
		err = s.startMinIO(bin, filepath.Join(dir, "minio"), files)
	} else {
		err = s.startChild(files)
	}
	if err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// options returns the storage options that read from s.
func (s *s3Server) options() []storage.Option {
	return []storage.Option{storage.Endpoint(s.endpoint), storage.Credentials(s3User, s3Secret, ""), storage.Transport(s.transport)}
}

// stop ends the server's process and waits for it.
func (s *s3Server) stop() {
	s.transport.CloseIdleConnections()
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	if s.stdin != nil {
		s.stdin.Close()
	} else {
		s.cmd.Process.Kill()
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// startChild runs this program again as a gofakes3 server (serveS3Child)
// and reads the address it listens on from its first line of output.
func (s *s3Server) startChild(files map[string]string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	enc, err := json.Marshal(files)
	if err != nil {
		return err
	}
	s.cmd = exec.Command(exe)
	s.cmd.Env = append(os.Environ(), s3ServerEnv+"="+string(enc))
	s.cmd.Stderr = os.Stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return err
	}
	s.stdin = stdin
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("s3 server process: %w", err)
	}
	s.kind, s.endpoint = "gofakes3 in its own process", strings.TrimSpace(line)
	return nil
}

// serveS3Child is the child of startChild, when s3ServerEnv is set: it
// serves the files from memory on 127.0.0.1 until its standard input
// ends, then exits.
func serveS3Child() {
	enc, ok := os.LookupEnv(s3ServerEnv)
	if !ok {
		return
	}
	err := func() error {
		var files map[string]string
		if err := json.Unmarshal([]byte(enc), &files); err != nil {
			return err
		}
		backend := s3mem.New()
		if err := backend.CreateBucket(s3Bucket); err != nil {
			return err
		}
		meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
		for key, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if _, err := backend.PutObject(s3Bucket, key, meta, bytes.NewReader(data), int64(len(data)), nil); err != nil {
				return err
			}
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: gofakes3.New(backend).Server()}
		go srv.Serve(l)
		fmt.Printf("http://%s\n", l.Addr())
		io.Copy(io.Discard, os.Stdin) // until the parent closes it or exits
		return srv.Close()
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: s3 server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startMinIO starts a MinIO server on dir, waits until it is live and
// uploads the files.
func (s *s3Server) startMinIO(bin, dir string, files map[string]string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	console, err := freeAddr()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	s.cmd = exec.Command(bin, "server", dir, "--address", addr, "--console-address", console, "--quiet")
	s.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+s3User, "MINIO_ROOT_PASSWORD="+s3Secret)
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.kind, s.endpoint = "MinIO in its own process", "http://"+addr
	client := &http.Client{Transport: s.transport, Timeout: time.Second}
	live := false
	for range 300 { // up to 30 s
		resp, err := client.Get(s.endpoint + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if live = resp.StatusCode == http.StatusOK; live {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !live {
		return fmt.Errorf("minio did not start on %s: %s", addr, out.String())
	}
	mc, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(s3User, s3Secret, ""), Transport: s.transport})
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := mc.MakeBucket(ctx, s3Bucket, minio.MakeBucketOptions{}); err != nil {
		return err
	}
	for key, path := range files {
		if _, err := mc.FPutObject(ctx, s3Bucket, key, path, minio.PutObjectOptions{}); err != nil {
			return fmt.Errorf("minio: upload %s: %w", key, err)
		}
	}
	return nil
}

// freeAddr returns a 127.0.0.1 address with a port free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// fetch returns a pass that gets the whole object key with an independent
// S3 client (minio-go) into one reused buffer: the cost of the transfer
// alone, which a reader of the object cannot beat.
func (s *s3Server) fetch(ctx context.Context, key string) func() error {
	host := strings.TrimPrefix(s.endpoint, "http://")
	buf := make([]byte, 1<<20)
	return func() error {
		mc, err := minio.New(host, &minio.Options{Creds: credentials.NewStaticV4(s3User, s3Secret, ""),
			Transport: s.transport, Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
		if err != nil {
			return err
		}
		obj, err := mc.GetObject(ctx, s3Bucket, key, minio.GetObjectOptions{})
		if err != nil {
			return err
		}
		defer obj.Close()
		for {
			_, err := obj.Read(buf)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("minio-go: get %s: %w", key, err)
			}
		}
	}
}
