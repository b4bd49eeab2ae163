package storage

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

type httpObject struct {
	client *http.Client
	url    string
	etag   string
}

func httpStatus(resp *http.Response) error {
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	return &statusError{code: resp.StatusCode, msg: strings.TrimSpace(string(msg))}
}

func openHTTP(ctx context.Context, name string, cfg config) (backend, int64, string, error) {
	rt := cfg.transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	h := &httpObject{client: &http.Client{Transport: rt}, url: name}
	var size int64
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
			_, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
			if !ok {
				return fmt.Errorf("bad Content-Range %q", resp.Header.Get("Content-Range"))
			}
			size = total
		case http.StatusOK:
			if resp.ContentLength < 0 {
				return fmt.Errorf("the server sends neither ranges nor a length")
			}
			size = resp.ContentLength
		case http.StatusRequestedRangeNotSatisfiable: // an empty object
			_, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
			if !ok || total != 0 {
				return httpStatus(resp)
			}
			size = 0
		default:
			return httpStatus(resp)
		}
		h.etag = resp.Header.Get("ETag")
		if h.etag == "" {
			h.etag = resp.Header.Get("Last-Modified")
		}
		return nil
	}, func(attempt int, err error) { logRetry(ctx, name, 0, 1, attempt, err) })
	if err != nil {
		return nil, 0, "", &Error{Op: "open", URL: name, Len: -1, Err: err}
	}
	return h, size, h.etag, nil
}

// parseContentRange parses "bytes first-last/total".
func parseContentRange(s string) (first, total int64, ok bool) {
	s, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	r, t, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	total, err := strconv.ParseInt(t, 10, 64)
	if err != nil || total < 0 {
		return 0, 0, false
	}
	if r == "*" {
		return 0, total, true
	}
	f, _, found := strings.Cut(r, "-")
	first, err = strconv.ParseInt(f, 10, 64)
	return first, total, found && err == nil && first >= 0
}

func (h *httpObject) readRange(ctx context.Context, p []byte, off int64) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	if strings.HasPrefix(h.etag, `"`) || strings.HasPrefix(h.etag, `W/"`) {
		req.Header.Set("If-Match", h.etag)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if etag == "" {
		etag = resp.Header.Get("Last-Modified")
	}
	if resp.StatusCode == http.StatusPreconditionFailed || (resp.StatusCode < 300 && etag != h.etag) {
		return 0, fmt.Errorf("%w: ETag %s at open, %s now", ErrChanged, h.etag, etag)
	}
	body := io.Reader(resp.Body)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		first, _, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || first != off {
			return 0, fmt.Errorf("asked for offset %d, got Content-Range %q", off, resp.Header.Get("Content-Range"))
		}
	case http.StatusOK: // no range support: skip to off
		if _, err := io.CopyN(io.Discard, body, off); err != nil {
			return 0, err
		}
	default:
		return 0, httpStatus(resp)
	}
	n, err := io.ReadFull(body, p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (h *httpObject) close() error { return nil }
