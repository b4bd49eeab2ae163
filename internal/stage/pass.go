package stage

import "github.com/tensorfeed/tensorfeed/source"

// yieldErr ends a pass with err and the zero sample, as source.Reader's
// contract asks.
func yieldErr[T any](yield func(T, error) bool, err error) {
	var zero T
	yield(zero, err)
}

// resumeInput checks st against kind, with pos counters and one input, and
// resumes r, the stage's input, from that input's state: the first half of
// the Resume of every stage over one reader.
func resumeInput[T any](r source.Reader[T], st source.State, kind string, pos int) (source.Reader[T], error) {
	if err := st.Check(kind, pos, 1); err != nil {
		return nil, err
	}
	return source.ResumeFrom(r, st.In[0])
}
