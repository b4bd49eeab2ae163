package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

// splitS3 splits s3://bucket/key.
func splitS3(name string) (bucket, key string, err error) {
	rest := name[len("s3://"):]
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", errors.New("no bucket in the URL (want s3://bucket/key)")
	}
	return bucket, key, nil
}

// s3Client makes a minio-go client for cfg. minio-go's own retries are off:
// this package retries with its own bounds.
func s3Client(cfg config) (*minio.Core, error) {
	endpoint := cfg.endpoint
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT_URL_S3")
	}
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT_URL")
	}
	secure, host, aws := true, "s3.amazonaws.com", true
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("endpoint %q: want a URL such as http://127.0.0.1:9000", endpoint)
		}
		secure, host = u.Scheme == "https", u.Host
		aws = strings.HasSuffix(u.Hostname(), ".amazonaws.com")
	}
	region := cfg.region
	if region == "" {
		region = os.Getenv("AWS_REGION")
	}
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if region == "" && !aws {
		region = "us-east-1"
	}
	lookup := minio.BucketLookupAuto
	if !aws {
		lookup = minio.BucketLookupPath
	}
	if cfg.pathStyle != nil {
		lookup = minio.BucketLookupDNS
		if *cfg.pathStyle {
			lookup = minio.BucketLookupPath
		}
	}
	var creds *credentials.Credentials
	if c := cfg.credentials; c != nil {
		creds = credentials.NewStaticV4(c.id, c.secret, c.token)
	} else {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.FileAWSCredentials{},
		})
	}
	return minio.NewCore(host, &minio.Options{
		Creds:        creds,
		Secure:       secure,
		Region:       region,
		BucketLookup: lookup,
		Transport:    cfg.transport,
		MaxRetries:   1,
	})
}

// s3Err turns a minio-go error into one with this package's sentinels.
func s3Err(err error) error {
	var er minio.ErrorResponse
	if errors.As(err, &er) && er.StatusCode != 0 {
		msg := er.Code
		if er.Message != "" {
			msg += ": " + er.Message
		}
		return &statusError{code: er.StatusCode, msg: msg}
	}
	return err
}

// s3Object reads an S3 object by range requests, each conditional on the
// ETag seen at open (If-Match; If-Unmodified-Since on a store that sends no
// ETag) and checked against the size at open, as httpObject's are.
type s3Object struct {
	core        *minio.Core
	bucket, key string
	size        int64
	etag        string
	modified    time.Time
}

func openS3(ctx context.Context, name string, cfg config) (*object, error) {
	fail := func(err error) (*object, error) {
		return nil, objectError("open", name, 0, -1, err)
	}
	bucket, key, err := splitS3(name)
	if err != nil {
		return fail(err)
	}
	core, err := s3Client(cfg)
	if err != nil {
		return fail(err)
	}
	var info minio.ObjectInfo
	err = retry(ctx, cfg, false, func(ctx context.Context) error {
		var err error
		info, err = core.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
		return s3Err(err)
	}, func(attempt int, err error) { logRetry(ctx, name, 0, -1, attempt, err) })
	if err != nil {
		return fail(err)
	}
	etag := info.ETag
	if info.VersionID != "" {
		etag += "@" + info.VersionID
	}
	be := &s3Object{core: core, bucket: bucket, key: key, size: info.Size, etag: info.ETag, modified: info.LastModified}
	return &object{name: name, size: info.Size, etag: etag, be: be, cfg: cfg,
		validated: info.ETag != "" || !info.LastModified.IsZero()}, nil
}

func (s *s3Object) readRange(ctx context.Context, p []byte, off int64) (int, error) {
	n := int64(len(p))
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, off+n-1); err != nil {
		return 0, err
	}
	switch {
	case s.etag != "":
		if err := opts.SetMatchETag(s.etag); err != nil {
			return 0, err
		}
	case !s.modified.IsZero():
		if err := opts.SetUnmodified(s.modified); err != nil {
			return 0, err
		}
	}
	body, info, header, err := s.core.GetObject(ctx, s.bucket, s.key, opts)
	if err != nil {
		err = s3Err(err)
		var se *statusError
		if errors.As(err, &se) && se.code == http.StatusPreconditionFailed {
			return 0, fmt.Errorf("%w since it was opened: %w (ETag %s at open)", ErrChanged, err, orNone(s.etag))
		}
		return 0, err
	}
	defer body.Close()
	if info.ETag != "" && s.etag != "" && info.ETag != s.etag {
		return 0, fmt.Errorf("%w: ETag %s at open, %s now", ErrChanged, s.etag, info.ETag)
	}
	// minio-go hides the status: an answer with a Content-Range is partial.
	cr := header.Get("Content-Range")
	if err := checkRange(cr != "", cr, info.Size, off, n, s.size); err != nil { // Size: -1 without a Content-Length
		return 0, err
	}
	if cr == "" { // a store that ignores Range: skip to off
		if _, err := io.CopyN(io.Discard, body, off); err != nil {
			return 0, err
		}
	}
	return readBody(body, p, cr != "")
}

func (s *s3Object) close() error { return nil }

// listS3 lists the keys of s3://bucket/prefix* matching a glob (path.Match
// syntax) in lexical order; a pattern without glob characters is a prefix.
func listS3(ctx context.Context, pattern string, cfg config) ([]string, error) {
	fail := func(err error) ([]string, error) {
		return nil, objectError("list", pattern, 0, -1, err)
	}
	bucket, keyPattern, err := splitS3(pattern)
	if err != nil {
		return fail(err)
	}
	glob := strings.ContainsAny(keyPattern, "*?[\\")
	prefix := keyPattern
	if glob {
		prefix = keyPattern[:strings.IndexAny(keyPattern, "*?[\\")]
		if _, err := path.Match(keyPattern, ""); err != nil {
			return fail(err)
		}
	}
	core, err := s3Client(cfg)
	if err != nil {
		return fail(err)
	}
	var names []string
	err = retry(ctx, cfg, false, func(ctx context.Context) error {
		names = names[:0]
		for obj := range core.Client.ListObjectsIter(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
			if obj.Err != nil {
				return s3Err(obj.Err)
			}
			if glob {
				if ok, _ := path.Match(keyPattern, obj.Key); !ok {
					continue
				}
			}
			names = append(names, "s3://"+bucket+"/"+obj.Key)
		}
		// The listing ends early, without an error, when ctx is done.
		return ctx.Err()
	}, func(attempt int, err error) { logRetry(ctx, pattern, 0, -1, attempt, err) })
	if err != nil {
		return fail(err)
	}
	slices.Sort(names)
	return names, nil
}

// List returns the objects that match pattern, in lexical order: a local
// glob (filepath.Glob syntax), or s3://bucket/ followed by a key glob
// (path.Match syntax, such as s3://bucket/train-*.rec) or a plain key
// prefix. An http(s):// URL lists itself. No match is an empty list, not
// an error.
func List(ctx context.Context, pattern string, opts ...Option) ([]string, error) {
	cfg := defaults()
	option.Apply(&cfg, opts)
	switch scheme(pattern) {
	case "s3":
		return listS3(ctx, pattern, cfg)
	case "http", "https":
		return []string{pattern}, nil
	case "":
		return listLocal(pattern)
	}
	return nil, objectError("list", pattern, 0, -1, errors.New("unknown scheme (want a path, s3://, http:// or https://)"))
}
