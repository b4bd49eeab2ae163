package scope

// pollEvery is how many samples a pass that yields from memory (a slice, a
// shuffle buffer's drain, a cache's replay) yields between two looks at its
// context: often enough that a cancelled pass stops within microseconds,
// rarely enough that the look costs nothing beside the samples.
const pollEvery = 256

// Stopped reports whether done is closed, looking only at every
// pollEvery-th sample i and never when done is nil.
func Stopped(done <-chan struct{}, i int) bool {
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
