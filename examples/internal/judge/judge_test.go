package judge_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/examples/internal/cli"
	"github.com/tensorfeed/tensorfeed/examples/internal/judge"
	"github.com/tensorfeed/tensorfeed/internal/testkit/race"
)

// TestJudge trains the classifier for two epochs: it reads the test digits
// (>= 0.95), finds most real digits readable (at least 0.75 of them: it
// is unsure of the odd ones) and almost none of uniform noise.
func TestJudge(t *testing.T) {
	if race.Enabled {
		t.Skip("trains on 60,000 digits, 80 s under the race detector: test.sh runs it without")
	}
	ctx := context.Background()
	dir := cli.RepoPath("data/mnist")
	j, err := judge.Train(ctx, dir, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if j.Accuracy < 0.95 {
		t.Errorf("test accuracy %.4f, want at least 0.95", j.Accuracy)
	}
	const n = 500
	real := mat.NewDense(n, mnist.Pixels, nil)
	i := 0
	for s, err := range mnist.Test(dir).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		for k, p := range s.Image {
			real.Set(i, k, float64(p)/255*2-1)
		}
		if i++; i == n {
			break
		}
	}
	share, per := j.Readable(real, 0.9)
	t.Logf("test accuracy %.4f; readable: %.3f of real digits %v", j.Accuracy, share, per)
	if share < 0.75 {
		t.Errorf("%.3f of real test digits readable, want at least 0.75 (per digit %v)", share, per)
	}
	noise := mat.NewDense(n, mnist.Pixels, nil)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		for k := range mnist.Pixels {
			noise.Set(i, k, r.Float64()*2-1)
		}
	}
	if share, per := j.Readable(noise, 0.9); share > 0.02 {
		t.Errorf("%.3f of uniform noise readable, want at most 0.02 (per digit %v)", share, per)
	}
}
