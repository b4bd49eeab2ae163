package stage

// yieldErr ends a pass with err and the zero sample, as source.Reader's
// contract asks.
func yieldErr[T any](yield func(T, error) bool, err error) {
	var zero T
	yield(zero, err)
}
