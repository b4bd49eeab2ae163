package pipeline

import (
	"sync"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

type config struct {
	stats bool

	tune     *tuning   // the budget of the Auto steps (autotune.go)
	tuneOnce sync.Once // makes the default budget on first use
}

// An Option configures a pipeline where it starts: From and FanIn take
// options, and every step built on a pipe inherits them. A pipeline logs
// through the logger of the context its passes run with
// (tensorfeed.WithLogger).
type Option = option.Option[config]

func newConfig(opts []Option) *config {
	c := &config{stats: true}
	option.Apply(c, opts)
	return c
}

// WithoutStats turns the per-step counters off: every step then delegates
// to its stage with no wrapper at all, and Stats reports names only. Use it
// when a chain of very cheap per-sample steps must not pay the countdown
// and store per sample and step that the counters cost (BenchmarkBuilder
// measures it).
func WithoutStats() Option {
	return option.New(func(c *config) { c.stats = false })
}
