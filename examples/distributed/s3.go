package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/tensorfeed/tensorfeed/storage"
)

// The in-process server's bucket and key pair.
const (
	localBucket = "tensorfeed"
	localKey    = "distributed"
	localSecret = "distributed-secret"
)

// endpoint is where the shards live: an S3-compatible server, a bucket and
// a key prefix, with what it takes to write to it and to read it through
// package storage.
type endpoint struct {
	URL    string // scheme and host, such as http://127.0.0.1:9000
	Bucket string
	Prefix string // key prefix of the shards, "" or ending in "/"
	Local  bool   // the in-process server

	creds     *credentials.Credentials
	static    bool // creds are the in-process server's key pair
	transport *http.Transport
	server    *http.Server
	serveErr  chan error
}

// parseS3 reads -s3: http(s)://host[:port]/bucket[/prefix].
func parseS3(raw string) (*endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid value %q for -s3: want an endpoint URL with a bucket, such as http://127.0.0.1:9000/bucket", raw)
	}
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if bucket == "" {
		return nil, fmt.Errorf("invalid value %q for -s3: no bucket in the path (want http://host:port/bucket)", raw)
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &endpoint{URL: u.Scheme + "://" + u.Host, Bucket: bucket, Prefix: prefix}, nil
}

// startLocal starts an in-memory S3 server (gofakes3) on a free port of
// 127.0.0.1 with one bucket. Close stops it.
func startLocal() (*endpoint, error) {
	backend := s3mem.New()
	if err := backend.CreateBucket(localBucket); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &endpoint{
		URL:       "http://" + ln.Addr().String(),
		Bucket:    localBucket,
		Prefix:    "mnist/",
		Local:     true,
		creds:     credentials.NewStaticV4(localKey, localSecret, ""),
		static:    true,
		transport: &http.Transport{},
		server: &http.Server{
			Handler:           gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server(),
			ReadHeaderTimeout: 10 * time.Second,
		},
		serveErr: make(chan error, 1),
	}
	go func() { e.serveErr <- e.server.Serve(ln) }()
	return e, nil
}

// remote is the endpoint of -s3: credentials from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (or ~/.aws/credentials), as package storage reads
// them.
func remote(e *endpoint) *endpoint {
	e.creds = credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
	})
	e.transport = &http.Transport{}
	return e
}

// Close stops the in-process server (if any) and closes idle connections.
func (e *endpoint) Close() error {
	var err error
	e.transport.CloseIdleConnections()
	if e.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = e.server.Shutdown(ctx)
		if serr := <-e.serveErr; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	}
	e.transport.CloseIdleConnections()
	return err
}

// Options are the storage options that read this endpoint.
func (e *endpoint) Options(more ...storage.Option) []storage.Option {
	opts := []storage.Option{storage.Endpoint(e.URL), storage.Transport(e.transport)}
	if e.static {
		opts = append(opts, storage.Credentials(localKey, localSecret, ""))
	}
	return append(opts, more...)
}

// Name returns the s3:// URL of key under the endpoint's prefix.
func (e *endpoint) Name(key string) string { return "s3://" + e.Bucket + "/" + e.Prefix + key }

// uploader writes objects with minio-go's PutObject (package storage only
// reads).
type uploader struct {
	e      *endpoint
	client *minio.Client
}

func (e *endpoint) uploader() (*uploader, error) {
	u, _ := url.Parse(e.URL)
	c, err := minio.New(u.Host, &minio.Options{
		Creds:        e.creds,
		Secure:       u.Scheme == "https",
		Region:       region(),
		BucketLookup: minio.BucketLookupPath,
		Transport:    e.transport,
	})
	if err != nil {
		return nil, err
	}
	return &uploader{e: e, client: c}, nil
}

// region is AWS_REGION, else us-east-1 (what MinIO and gofakes3 answer).
func region() string {
	if r := os.Getenv("AWS_REGION"); r != "" {
		return r
	}
	return "us-east-1"
}

// Put stores data under key and returns its s3:// URL.
func (u *uploader) Put(ctx context.Context, key string, data []byte) (string, error) {
	name := u.e.Name(key)
	_, err := u.client.PutObject(ctx, u.e.Bucket, u.e.Prefix+key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return "", fmt.Errorf("upload %s to %s: %w", name, u.e.URL, err)
	}
	return name, nil
}
