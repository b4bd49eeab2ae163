package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
)

// retry runs op until it succeeds, fails with an error that is not
// transient, ctx ends or the attempts run out. Local files are never
// retried.
func retry(ctx context.Context, cfg config, local bool, op func(context.Context) error, onRetry func(attempt int, err error)) error {
	var err error
	for attempt := 1; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if !local && cfg.timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, cfg.timeout)
		}
		err = op(actx)
		timedOut := actx.Err() != nil && ctx.Err() == nil
		cancel()
		if err == nil {
			return nil
		}
		if timedOut {
			err = fmt.Errorf("%w: no answer within %v: %w", ErrTransient, cfg.timeout, err)
		}
		if local || !transient(err) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (after %d attempts; last failure: %v)", context.Cause(ctx), attempt, err)
		}
		if attempt >= cfg.attempts {
			return fmt.Errorf("%w: %d attempts: %w", ErrTransient, attempt, err)
		}
		onRetry(attempt, err)
		t := time.NewTimer(backoff(cfg, attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (after %d attempts; last failure: %v)", context.Cause(ctx), attempt, err)
		case <-t.C:
		}
	}
}

// backoff is the wait after the given failed attempt (1-based): a random
// duration in [0, min(max, min*2^(attempt-1))] ("full jitter").
func backoff(cfg config, attempt int) time.Duration {
	d := cfg.backoffMin
	for i := 1; i < attempt && d < cfg.backoffMax; i++ {
		d *= 2
	}
	d = min(d, cfg.backoffMax)
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// transient reports whether err is worth another attempt: a 5xx or 429
// answer, a refused or reset connection, a timeout, a body cut short.
// Cancellation, 4xx answers and changed objects are final.
func transient(err error) bool {
	if errors.Is(err, ErrTransient) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout() && !errors.Is(err, context.Canceled)
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDenied) || errors.Is(err, ErrRange) || errors.Is(err, ErrChanged) {
		return false
	}
	var se *statusError
	if errors.As(err, &se) {
		return false // a 4xx without a sentinel: final
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true // timeouts and other network failures
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

func logRetry(ctx context.Context, url string, off, n int64, attempt int, err error) {
	tensorfeed.Logger(ctx).Warn("storage: retrying",
		zap.String("url", url), zap.Int64("off", off), zap.Int64("len", n),
		zap.Int("attempt", attempt), zap.Error(err))
}
