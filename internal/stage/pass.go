package stage

// pollEvery is how many samples a stage that yields from memory (Shuffle's
// drain, Cache's replay) yields between two looks at its context.
const pollEvery = 256

// yieldErr ends a pass with err and the zero sample, as source.Reader's
// contract asks.
func yieldErr[T any](yield func(T, error) bool, err error) {
	var zero T
	yield(zero, err)
}

// pollDone reports whether done is closed, looking only at every
// pollEvery-th sample i and never when done is nil.
func pollDone(done <-chan struct{}, i int) bool {
	if i%pollEvery != 0 || done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}
