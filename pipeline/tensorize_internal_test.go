package pipeline

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/sink"
)

// Batches of images (128 x 3x224x224 float32, 77 MB) are held one at a
// time by Tensorize's workers, half as large ones 3 at a time, MNIST's
// (128 x 784 float32 and a label) 4 per worker, and a batch larger than
// the bound still one.
func TestBatchesThatFit(t *testing.T) {
	type img struct{}
	image := sink.Fill("data", []int{3, 224, 224}, func(img, []float32) error { return nil })
	label := sink.Float32("label", nil, func(img, []float32) {})
	if got := batchesThatFit(sink.New(128, []sink.Field[img]{image}, []sink.Field[img]{label})); got != 1 {
		t.Errorf("images: %d batches fit, want 1", got)
	}
	pixels := sink.Float32("image", []int{784}, func(img, []float32) {})
	if got := batchesThatFit(sink.New(128, []sink.Field[img]{pixels}, []sink.Field[img]{label})); got < 64 {
		t.Errorf("MNIST: %d batches fit, want at least 64 (4 for each of 16 workers)", got)
	}
	if got := batchesThatFit(sink.New(64, []sink.Field[img]{image}, nil)); got != 3 {
		t.Errorf("38 MB batches: %d fit, want 3", got)
	}
	if got := batchesThatFit(sink.New(1024, []sink.Field[img]{image}, nil)); got != 1 {
		t.Errorf("616 MB batches: %d fit, want 1", got)
	}
}
