package storage

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// idleConnsPerHost is how many idle connections to a host the default
// transport of http(s):// objects keeps: as many as minio-go's default
// transport keeps for s3:// objects, and as many range requests as a
// reader keeps in flight (ImageRecordIter's pass through an index keeps
// 16), where Go's default of 2 would close most connections after each
// request and dial new ones for the next.
const idleConnsPerHost = 16

// httpTransport is the transport of http(s):// objects when no Transport
// option gives one: http.DefaultTransport's settings with
// idleConnsPerHost, or http.DefaultTransport itself when a program has
// replaced it with a transport of its own.
var httpTransport = sync.OnceValue(func() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = idleConnsPerHost
	return t
})

// httpObject reads an HTTP resource by range requests. Each request is
// conditional on the validators seen at open (If-Match for a strong ETag,
// If-Unmodified-Since for a Last-Modified), and each answer is checked
// against them and against the size at open (the total of its
// Content-Range), so that the bytes of one object come from one version of
// the resource or the read fails with ErrChanged.
type httpObject struct {
	client       *http.Client
	url          string
	size         int64
	etag         string // the ETag at open, "" for none
	lastModified string // the Last-Modified at open, "" for none
}

func httpStatus(resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	return &statusError{code: resp.StatusCode, msg: strings.TrimSpace(string(msg))}
}

func openHTTP(ctx context.Context, name string, cfg config) (*object, error) {
	rt := cfg.transport
	if rt == nil {
		rt = httpTransport()
	}
	h := &httpObject{client: &http.Client{Transport: rt}, url: name}
	err := retry(ctx, cfg, false, func(ctx context.Context) error {
		// A one-byte range GET learns the size from Content-Range, and works
		// on servers that answer HEAD badly.
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, name, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Range", "bytes=0-0")
		resp, err := h.client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusPartialContent:
			_, _, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
			if !ok {
				return fmt.Errorf("%w: bad Content-Range %q", ErrBadResponse, resp.Header.Get("Content-Range"))
			}
			h.size = total
		case http.StatusOK:
			if resp.ContentLength < 0 {
				return fmt.Errorf("the server sends neither ranges nor a length")
			}
			h.size = resp.ContentLength
		case http.StatusRequestedRangeNotSatisfiable: // an empty object
			_, _, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
			if !ok || total != 0 {
				return httpStatus(resp)
			}
			h.size = 0
		default:
			return httpStatus(resp)
		}
		h.etag = resp.Header.Get("ETag")
		h.lastModified = resp.Header.Get("Last-Modified")
		return nil
	}, func(attempt int, err error) { logRetry(ctx, name, 0, 1, attempt, err) })
	if err != nil {
		return nil, objectError("open", name, 0, -1, err)
	}
	etag := h.etag
	if etag == "" {
		etag = h.lastModified
	}
	return &object{name: name, size: h.size, etag: etag, be: h, cfg: cfg,
		validated: h.etag != "" || h.lastModified != ""}, nil
}

// parseContentRange parses "bytes first-last/total"; first and last are -1
// for "bytes */total" (the answer of a range that cannot be satisfied).
func parseContentRange(s string) (first, last, total int64, ok bool) {
	s, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	r, t, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, 0, false
	}
	total, err := strconv.ParseInt(t, 10, 64)
	if err != nil || total < 0 {
		return 0, 0, 0, false
	}
	if r == "*" {
		return -1, -1, total, true
	}
	f, l, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, 0, false
	}
	first, err1 := strconv.ParseInt(f, 10, 64)
	last, err2 := strconv.ParseInt(l, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first {
		return 0, 0, 0, false
	}
	return first, last, total, true
}

// checkRange checks the headers of an answer to a request for the n bytes
// at off of an object of size bytes at open. A partial answer (206) must
// carry exactly that range of an object of that size, in a body no longer
// than the range (a shorter one is found short when read, and retried); a
// whole one (200, from a server that ignores Range) must be as long as the
// object. contentLength is -1 when unknown (then a whole answer's size is
// not checked: that would take reading all of it).
func checkRange(partial bool, contentRange string, contentLength, off, n, size int64) error {
	if !partial {
		if contentLength >= 0 && contentLength != size {
			return fmt.Errorf("%w while being read: size %d at open, %d now", ErrChanged, size, contentLength)
		}
		return nil
	}
	first, last, total, ok := parseContentRange(contentRange)
	if !ok || first < 0 {
		return fmt.Errorf("%w: bad Content-Range %q", ErrBadResponse, contentRange)
	}
	if total != size {
		return fmt.Errorf("%w while being read: size %d at open, %d now", ErrChanged, size, total)
	}
	if first != off || last != off+n-1 {
		return fmt.Errorf("%w: asked for bytes %d-%d, got Content-Range %q", ErrBadResponse, off, off+n-1, contentRange)
	}
	if contentLength > n {
		return fmt.Errorf("%w: a body of %d bytes for a range of %d", ErrBadResponse, contentLength, n)
	}
	return nil
}

// readBody fills p from body. A body that ends early is
// io.ErrUnexpectedEOF (transient: the retry asks for the rest); when the
// body should end with p (exact), one that goes on is ErrBadResponse.
func readBody(body io.Reader, p []byte, exact bool) (int, error) {
	n, err := io.ReadFull(body, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return n, fmt.Errorf("the body ended after %d of %d bytes: %w", n, len(p), io.ErrUnexpectedEOF)
	}
	if err != nil || !exact {
		return n, err
	}
	var one [1]byte
	if m, _ := io.ReadFull(body, one[:]); m > 0 {
		return 0, fmt.Errorf("%w: a body longer than the range of %d bytes", ErrBadResponse, len(p))
	}
	return n, nil
}

// orNone prints a validator that may be absent.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// conditions returns the conditional headers of a read: If-Match for a
// strong ETag (a weak one never matches it, RFC 9110 13.1.1, and is only
// compared), If-Unmodified-Since for a Last-Modified.
func (h *httpObject) conditions() (ifMatch, ifUnmodifiedSince string) {
	if strings.HasPrefix(h.etag, `"`) {
		ifMatch = h.etag
	}
	return ifMatch, h.lastModified
}

func (h *httpObject) readRange(ctx context.Context, p []byte, off int64) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return 0, err
	}
	n := int64(len(p))
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	ifMatch, ifUnmodified := h.conditions()
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	if ifUnmodified != "" {
		req.Header.Set("If-Unmodified-Since", ifUnmodified)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusPreconditionFailed {
		var conds []string
		if ifMatch != "" {
			conds = append(conds, "If-Match "+ifMatch)
		}
		if ifUnmodified != "" {
			conds = append(conds, "If-Unmodified-Since "+ifUnmodified)
		}
		return 0, fmt.Errorf("%w since it was opened: HTTP 412 Precondition Failed to %s", ErrChanged, strings.Join(conds, " and "))
	}
	if resp.StatusCode != http.StatusPartialContent && resp.StatusCode != http.StatusOK {
		return 0, httpStatus(resp)
	}
	if etag := resp.Header.Get("ETag"); etag != h.etag {
		return 0, fmt.Errorf("%w: ETag %s at open, %s now", ErrChanged, orNone(h.etag), orNone(etag))
	}
	if lm := resp.Header.Get("Last-Modified"); lm != h.lastModified {
		return 0, fmt.Errorf("%w: Last-Modified %s at open, %s now", ErrChanged, orNone(h.lastModified), orNone(lm))
	}
	partial := resp.StatusCode == http.StatusPartialContent
	if err := checkRange(partial, resp.Header.Get("Content-Range"), resp.ContentLength, off, n, h.size); err != nil {
		return 0, err
	}
	body := io.Reader(resp.Body)
	if !partial { // no range support: skip to off
		if _, err := io.CopyN(io.Discard, body, off); err != nil {
			return 0, err
		}
	}
	return readBody(body, p, partial)
}

func (h *httpObject) close() error { return nil }
