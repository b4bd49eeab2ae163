package tensorfeed

import (
	"context"

	"go.uber.org/zap"
)

type loggerKey struct{}

// WithLogger returns a context that carries l: every reader, stage, sink
// and pipeline that runs a pass with this context logs through l. It is the
// one place where tensorfeed takes a logger, so a program sets it once, on
// the context it runs its passes with:
//
//	ctx = tensorfeed.WithLogger(ctx, logger)
//	for epoch, pass := range feed.Epochs(ctx, 10) { ... }
//
// Without it, nothing is logged. Hot paths guard their debug messages with
// Logger.Check, so a logger at info level costs nothing per sample. A nil l
// turns logging off.
func WithLogger(ctx context.Context, l *zap.Logger) context.Context {
	if l == nil {
		l = nop
	}
	return context.WithValue(ctx, loggerKey{}, l)
}

// Logger returns the logger set on ctx by WithLogger, or a no-op logger.
func Logger(ctx context.Context) *zap.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*zap.Logger); ok {
		return l
	}
	return nop
}

var nop = zap.NewNop()
