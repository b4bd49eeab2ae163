package mxnet

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/image/augment"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// TestResumeWithOtherAugmentationRefused takes a checkpoint of a shuffled,
// augmented image feed and resumes it into feeds that differ in one
// augmentation parameter: each is refused, naming the parameter, where the
// same parameters (and another thread count) resume.
func TestResumeWithOtherAugmentationRefused(t *testing.T) {
	base := []recOpt{
		oIndex(tdPath(mnistJPG, ".idx")), oDataShape(1, 24, 24), oBatch(16),
		oShuffle(3), oRandCrop(), oRandMirror(),
		oAffine(augment.Affine{MaxRotateAngle: 10}),
		oNormalize(augment.Normalize{Scale: 1.0 / 255}),
	}
	feed := func(opts ...recOpt) *pipeline.Pipe[*tensor.Batch] {
		it, err := newRec(tdPath(mnistJPG, ".rec"), append(append([]recOpt(nil), base...), opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return pipeline.From[*tensor.Batch](it)
	}
	c, err := feed(oThreads(1)).CheckpointAt(t.Context(), 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := feed(oThreads(3)).EpochsFrom(t.Context(), c, 1); err != nil {
		t.Fatalf("same augmentation, 3 threads: %v", err)
	}
	for _, tc := range []struct {
		name string
		opt  recOpt
		want string
	}{
		{"rotation", oAffine(augment.Affine{MaxRotateAngle: 20}), "affine: {maxrotateangle:20"},
		{"normalisation", oNormalize(augment.Normalize{Scale: 1.0 / 255, MaxRandomContrast: 0.2}), "norm: {"},
		{"colour jitter", oRandomHSL(10, 0, 0), "randomh: 10 here, 0 in the checkpoint"},
		{"fill", oFill(7), "fill: 7 here, 0 in the checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := feed(tc.opt).EpochsFrom(t.Context(), c, 1)
			if !errors.Is(err, pipeline.ErrCheckpoint) || !strings.Contains(fmt.Sprint(err), "step ImageRecordIter differs in ") ||
				!strings.Contains(fmt.Sprint(err), tc.want) {
				t.Fatalf("EpochsFrom: %v\nwant a refusal naming %q", err, tc.want)
			}
		})
	}
}
