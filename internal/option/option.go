// Package option is the one option style of tensorfeed: functional options
// as in zap, an Option interface whose method only this module can satisfy
// (its argument is a package's unexported config), made once here instead
// of in every package.
//
// A package declares
//
//	type config struct{ ... }
//
//	// Option configures a Reader.
//	type Option = option.Option[config]
//
//	// Delimiter sets the field separator.
//	func Delimiter(r rune) Option { return option.New(func(c *config) { c.delim = r }) }
//
// and applies them with option.Apply(&cfg, opts).
package option

// Option changes a configuration of type C.
type Option[C any] interface{ Apply(*C) }

type fn[C any] func(*C)

func (f fn[C]) Apply(c *C) { f(c) }

// New returns an Option that calls f.
func New[C any](f func(*C)) Option[C] { return fn[C](f) }

// Apply applies opts to c in order; nil options are ignored.
func Apply[C any](c *C, opts []Option[C]) {
	for _, o := range opts {
		if o != nil {
			o.Apply(c)
		}
	}
}
