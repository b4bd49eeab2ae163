package source_test

import (
	"context"
	"fmt"
	"iter"

	"github.com/tensorfeed/tensorfeed/source"
)

// pairs is a user's stage that yields the sum of each two consecutive
// samples. It takes part in checkpoints by implementing source.Resumable:
// after n sums its upstream is after 2n samples, so it resumes without
// reading anything it skips when its upstream can.
type pairs struct{ up source.Reader[int] }

func (p pairs) All(ctx context.Context) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		var first int
		odd := false
		for v, err := range p.up.All(ctx) {
			if err != nil {
				yield(0, err)
				return
			}
			if !odd {
				first, odd = v, true
				continue
			}
			odd = false
			if !yield(first+v, nil) {
				return
			}
		}
	}
}

// StateAt: the stage's kind and its upstream's state after 2n samples.
func (p pairs) StateAt(epoch int, n int64) (source.State, error) {
	in, err := source.StateOf(p.up, epoch, 2*n)
	return source.State{Kind: "pairs", In: []source.State{in}}, err
}

// Resume: check the state is ours, resume the upstream, wrap it again.
func (p pairs) Resume(st source.State) (source.Reader[int], error) {
	if err := st.Check("pairs", 0, 1); err != nil {
		return nil, err
	}
	up, err := source.ResumeFrom(p.up, st.In[0])
	if err != nil {
		return nil, err
	}
	return pairs{up}, nil
}

// A custom stage joins a checkpoint through the small Resumable interface.
// A stage that yields one sample per upstream sample needs only
// source.Follow.
func ExampleResumable() {
	data := source.IndexSlice([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	r := pairs{source.ReadIndexed(data)}

	// Stop after 2 sums, and resume from the state.
	st, _ := source.StateOf[int](r, 0, 2)
	fmt.Println(st.Shape(), st.In[0].Pos)
	rest, _ := source.ResumeFrom[int](r, st)
	all, _ := source.Collect(context.Background(), rest)
	fmt.Println(all)

	// A stage that is a function of its upstream, one sample per sample.
	double := func(up source.Reader[int]) source.Reader[int] {
		return source.Follow("double", up, func(up source.Reader[int]) source.Reader[int] {
			return source.Func[int](func(ctx context.Context) iter.Seq2[int, error] {
				return func(yield func(int, error) bool) {
					for v, err := range up.All(ctx) {
						if !yield(2*v, err) || err != nil {
							return
						}
					}
				}
			})
		})
	}
	d := double(r)
	st, _ = source.StateOf(d, 0, 4)
	fmt.Println(st.Shape(), st.In[0].In[0].Pos)
	// Output:
	// pairs<indexed(10)> [4]
	// [11 15 19]
	// double<pairs<indexed(10)>> [8]
}
