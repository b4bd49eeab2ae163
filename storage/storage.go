package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
)

// Sentinels that errors of this package wrap, for errors.Is.
var (
	// ErrNotFound: the object (or its bucket) does not exist.
	ErrNotFound = errors.New("storage: object not found")
	// ErrDenied: the server refused the credentials or the access (401, 403).
	ErrDenied = errors.New("storage: access denied")
	// ErrRange: a byte range that starts past the end of the object.
	ErrRange = errors.New("storage: range past the end of the object")
	// ErrChanged: the object is not the one that was opened or cached: its
	// ETag, its Last-Modified or its size differs, or the server refused a
	// read conditional on them (412). It is never retried; the caller
	// decides whether to open the object again.
	ErrChanged = errors.New("storage: object changed")
	// ErrUnvalidated: a read of a part of an object whose server sent
	// neither ETag nor Last-Modified at open, refused because nothing could
	// tell whether its requests read one version of the object
	// (AllowUnvalidated accepts the risk).
	ErrUnvalidated = errors.New("storage: object without ETag or Last-Modified")
	// ErrBadResponse: the server's answer does not match the request: another
	// byte range, a malformed Content-Range, a body longer than the range.
	// It is not retried.
	ErrBadResponse = errors.New("storage: answer does not match the request")
	// ErrCacheWrite: the cache directory could not take the object (a write
	// error such as a full or read-only disk, or an object larger than the
	// cache's byte limit).
	ErrCacheWrite = errors.New("storage: cannot write to the cache")
	// ErrTransient: a server or network failure that was retried until the
	// attempts ran out.
	ErrTransient = errors.New("storage: transient failure")
)

// opError is the cause of this package's *tensorfeed.Error: the
// operation, the byte range of a read, and why it failed.
type opError struct {
	op  string // "open", "read", "list", "cache", "seek"
	off int64  // the first byte of a read
	n   int64  // the length of a read; -1 for an operation on the whole object
	err error
}

func (e *opError) Error() string {
	switch {
	case e.n < 0:
		return "storage: " + e.op + ": " + e.err.Error()
	case e.n == 0:
		return fmt.Sprintf("storage: %s 0 bytes at %d: %v", e.op, e.off, e.err)
	}
	return fmt.Sprintf("storage: %s bytes %d-%d: %v", e.op, e.off, e.off+e.n-1, e.err)
}

func (e *opError) Unwrap() error { return e.err }

// objectError returns the error of op on the object name (its path or URL): a
// *tensorfeed.Error at byte off for a range of n bytes, or without an
// offset for an operation on the whole object (n < 0).
func objectError(op, name string, off, n int64, err error) error {
	e := &tensorfeed.Error{Path: name, Offset: -1, Record: -1, Err: &opError{op: op, off: off, n: n, err: err}}
	if n >= 0 {
		e.Offset = off
	}
	return e
}

// statusError is an HTTP answer that is not a success.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string {
	if e.msg != "" {
		return fmt.Sprintf("HTTP %d %s: %s", e.code, http.StatusText(e.code), e.msg)
	}
	return fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
}

func (e *statusError) Unwrap() error {
	switch {
	case e.code == http.StatusNotFound:
		return ErrNotFound
	case e.code == http.StatusUnauthorized || e.code == http.StatusForbidden:
		return ErrDenied
	case e.code == http.StatusRequestedRangeNotSatisfiable:
		return ErrRange
	case e.code == http.StatusPreconditionFailed:
		return ErrChanged
	case e.code >= 500 || e.code == http.StatusTooManyRequests:
		return ErrTransient
	}
	return nil
}

type config struct {
	endpoint    string
	region      string
	transport   http.RoundTripper
	attempts    int
	backoffMin  time.Duration
	backoffMax  time.Duration
	timeout     time.Duration
	blocks      int
	blockBytes  int
	cache       *Cache
	fallback    bool
	unvalidated bool
	pathStyle   *bool
	credentials *staticCreds
}

type staticCreds struct{ id, secret, token string }

func defaults() config {
	return config{
		attempts:   5,
		backoffMin: 100 * time.Millisecond,
		backoffMax: 5 * time.Second,
		timeout:    2 * time.Minute,
		blocks:     4,
		blockBytes: 8 << 20,
	}
}

// Option configures OpenFile and List.
type Option = option.Option[config]

// Endpoint sets the S3 endpoint (such as "http://127.0.0.1:9000") for
// s3:// names. It takes precedence over the environment variables
// AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL; without any of them the endpoint
// is Amazon S3. Buckets on an endpoint other than Amazon's are addressed
// path-style, as MinIO expects.
func Endpoint(url string) Option { return option.New(func(c *config) { c.endpoint = url }) }

// Region sets the S3 region. Without it the region comes from AWS_REGION or
// AWS_DEFAULT_REGION, and then from the server ("us-east-1" for endpoints
// other than Amazon's).
func Region(r string) Option { return option.New(func(c *config) { c.region = r }) }

// PathStyle forces path-style (true) or virtual-host-style (false) bucket
// addressing for s3:// names.
func PathStyle(on bool) Option { return option.New(func(c *config) { c.pathStyle = &on }) }

// Credentials sets a static S3 key pair (and an optional session token)
// instead of the chain: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN, then ~/.aws/credentials and ~/.aws/config for
// AWS_PROFILE (or "default"), then anonymous requests.
func Credentials(accessKey, secretKey, sessionToken string) Option {
	return option.New(func(c *config) { c.credentials = &staticCreds{accessKey, secretKey, sessionToken} })
}

// Transport sets the HTTP transport of s3:// and http(s):// objects. By
// default s3:// objects use minio-go's default transport and http(s)://
// objects http.DefaultTransport's settings; both keep 16 idle connections
// per host, as many as the range requests a reader keeps in flight.
// Whoever passes a transport closes its idle connections when done.
func Transport(rt http.RoundTripper) Option {
	return option.New(func(c *config) { c.transport = rt })
}

// Retry sets how transient failures (5xx and 429 answers, refused or reset
// connections, timeouts, a body cut short) are retried: at most attempts
// tries in all, waiting a random time (full jitter) up to min, 2*min, 4*min,
// ... capped at max between them. The defaults are 5 attempts, 100ms and
// 5s. Answers such as 403 or 404 are never retried. It panics if attempts
// is less than 1.
func Retry(attempts int, min, max time.Duration) Option {
	if attempts < 1 {
		panic("storage: Retry needs at least one attempt")
	}
	return option.New(func(c *config) { c.attempts, c.backoffMin, c.backoffMax = attempts, min, max })
}

// RequestTimeout bounds each request (an attempt: the request and the
// reading of its body) to d, 2 minutes by default; one that takes longer is
// a transient failure, retried as Retry says. 0 means no bound but ctx's.
func RequestTimeout(d time.Duration) Option { return option.New(func(c *config) { c.timeout = d }) }

// ReadAhead sets the sequential reader's read-ahead: n range requests of
// blockBytes each kept in flight ahead of the reader (4 of 8 MiB by
// default), so it holds at most n*blockBytes of memory. It panics if n or
// blockBytes is less than 1.
func ReadAhead(n, blockBytes int) Option {
	if n < 1 || blockBytes < 1 {
		panic("storage: ReadAhead needs n >= 1 and blockBytes >= 1")
	}
	return option.New(func(c *config) { c.blocks, c.blockBytes = n, blockBytes })
}

// WithCache reads remote objects through a local cache: the whole object
// is downloaded into c on the first OpenFile and read from the local file
// afterwards. Local paths are never cached.
func WithCache(c *Cache) Option { return option.New(func(cfg *config) { cfg.cache = c }) }

// CacheFallback lets OpenFile read an object directly by byte ranges when the
// cache cannot take it (ErrCacheWrite), instead of failing.
func CacheFallback() Option { return option.New(func(c *config) { c.fallback = true }) }

// AllowUnvalidated lets reads of a part of an object go ahead when its
// server sent neither ETag nor Last-Modified at open. Such reads are refused
// by default (ErrUnvalidated): with nothing to compare or to make requests
// conditional on, an object rewritten between two range requests (or
// between the reading of an index and of its records) would give bytes of
// two versions without an error; only a change of size is still caught.
// With this option they go ahead, and the first such read of each opened
// object warns through tensorfeed.Logger of its context. A read of the whole
// object in one request is always allowed: one answer is one version.
func AllowUnvalidated() Option { return option.New(func(c *config) { c.unvalidated = true }) }

// backend is one kind of storage: it reads one byte range of an object whose
// size and validators (ETag, Last-Modified) were learnt at open, and checks
// that the answer is that range of that version.
type backend interface {
	// readRange fills p from offset off with one request (no retry).
	readRange(ctx context.Context, p []byte, off int64) (int, error)
	close() error
}

// object is an opened object: a local file, an S3 object or an HTTP
// resource. ReadAt reads any byte range with one request; Reader reads it
// from the start with read-ahead. It is safe for concurrent use.
type object struct {
	name  string
	size  int64
	etag  string
	be    backend
	cfg   config
	local bool
	// validated: the server sent an ETag or a Last-Modified at open, which
	// every later read is checked against.
	validated bool
	warned    sync.Once // the warning of AllowUnvalidated
}

// close releases the object.
func (o *object) close() error { return o.be.close() }

// readAt reads len(p) bytes at offset off, as io.ReaderAt (see File), with
// a context that bounds the request and its retries.
func (o *object) readAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 || off > o.size {
		return 0, objectError("read", o.name, off, int64(len(p)), fmt.Errorf("%w (size %d)", ErrRange, o.size))
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off == o.size {
		return 0, io.EOF
	}
	want := p
	if rest := o.size - off; int64(len(p)) > rest {
		want = p[:rest]
	}
	n, err := o.readFull(ctx, want, off)
	if err != nil {
		return n, err
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readFull reads exactly len(p) bytes at off (inside the object), retrying
// transient failures; a retry asks only for the bytes still missing, except
// for an object without validators, whose retry asks for the whole range
// again so that its bytes come from one answer.
func (o *object) readFull(ctx context.Context, p []byte, off int64) (int, error) {
	whole := off == 0 && int64(len(p)) == o.size
	if !o.local && !o.validated && !whole {
		if !o.cfg.unvalidated {
			return 0, objectError("read", o.name, off, int64(len(p)), fmt.Errorf(
				"%w: the server sent neither ETag nor Last-Modified at open, so reads of parts of the object in several requests "+
					"could mix two versions of it unnoticed; only a read of the whole object in one request is allowed "+
					"(pass storage.AllowUnvalidated() to accept the risk)", ErrUnvalidated))
		}
		o.warned.Do(func() {
			tensorfeed.Logger(ctx).Warn("storage: the object has neither ETag nor Last-Modified; "+
				"reads of its parts are not checked against a change of the object (AllowUnvalidated)",
				zap.String("url", o.name), zap.Int64("size", o.size))
		})
	}
	done := 0
	err := retry(ctx, o.cfg, o.local, func(ctx context.Context) error {
		if !o.validated {
			done = 0 // one answer for the whole range: nothing tells two versions apart
		}
		for done < len(p) {
			n, err := o.be.readRange(ctx, p[done:], off+int64(done))
			done += n
			if err != nil {
				return err
			}
			if n == 0 {
				return io.ErrUnexpectedEOF
			}
		}
		return nil
	}, func(attempt int, err error) {
		logRetry(ctx, o.name, off+int64(done), int64(len(p)-done), attempt, err)
	})
	if err != nil {
		return done, objectError("read", o.name, off, int64(len(p)), err)
	}
	return done, nil
}

// open opens name (see OpenFile), through the cache when one is set.
func open(ctx context.Context, name string, opts ...Option) (*object, error) {
	cfg := defaults()
	option.Apply(&cfg, opts)
	switch scheme(name) {
	case "s3":
		o, err := openS3(ctx, name, cfg)
		if err != nil {
			return nil, err
		}
		return remote(ctx, o)
	case "http", "https":
		o, err := openHTTP(ctx, name, cfg)
		if err != nil {
			return nil, err
		}
		return remote(ctx, o)
	case "":
		return openLocal(name, cfg)
	}
	return nil, objectError("open", name, 0, -1, errors.New("unknown scheme (want a path, s3://, http:// or https://)"))
}

// remote returns an opened remote object, through the cache when one is
// set.
func remote(ctx context.Context, o *object) (*object, error) {
	if o.cfg.cache == nil {
		return o, nil
	}
	local, err := o.cfg.cache.open(ctx, o)
	if err == nil {
		_ = o.be.close()
		return local, nil
	}
	if errors.Is(err, ErrCacheWrite) && o.cfg.fallback {
		return o, nil
	}
	_ = o.be.close()
	return nil, err
}

// scheme returns "s3", "http", "https" or "" for a local path (also for a
// Windows drive letter).
func scheme(name string) string {
	i := strings.Index(name, "://")
	if i <= 1 {
		return ""
	}
	s := strings.ToLower(name[:i])
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return ""
		}
	}
	return s
}

// IsRemote reports whether name is a URL (s3://, http://, https://) rather
// than a local path.
func IsRemote(name string) bool { return scheme(name) != "" }
