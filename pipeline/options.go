package pipeline

import "go.uber.org/zap"

// An Option configures a pipeline where it starts: From, FromStreams and
// Merge take options, and every step built on a pipe inherits them.
type Option interface{ apply(*config) }

type config struct {
	logger *zap.Logger
	stats  bool
	name   string // name of the first step; empty means the default
}

func newConfig(opts []Option) *config {
	c := &config{logger: zap.NewNop(), stats: true}
	for _, o := range opts {
		o.apply(c)
	}
	return c
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithLogger sets the logger that receives one Info entry per epoch (from
// Epochs and Run) and one Debug entry per pass of every step. The default is
// zap.NewNop(); the global logger is never used. A nil logger means the
// default.
func WithLogger(l *zap.Logger) Option {
	return optionFunc(func(c *config) {
		if l == nil {
			l = zap.NewNop()
		}
		c.logger = l
	})
}

// WithName names the first step of the pipe (the default is "source",
// "merge" or "streams"). Later steps are renamed with Pipe.Named.
func WithName(name string) Option {
	return optionFunc(func(c *config) { c.name = name })
}

// WithoutStats turns the per-step counters off: every step then delegates
// to its stage with no wrapper at all, and Stats reports names only. Use it
// when a chain of very cheap per-sample steps must not pay the few ns per
// sample and step that the counters cost (see BenchmarkBuilder).
func WithoutStats() Option {
	return optionFunc(func(c *config) { c.stats = false })
}
