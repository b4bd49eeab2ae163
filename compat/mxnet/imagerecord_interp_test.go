package mxnet

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/image/augment"
)

// inter_method's codes are MXNet's: 0-4, 9 (auto) and 10 (random).
func TestInterpFromMXNet(t *testing.T) {
	for code, want := range map[int]augment.Interp{0: augment.Nearest, 1: augment.Bilinear, 2: augment.Bicubic,
		3: augment.Area, 4: augment.Lanczos, 9: augment.AutoInterp, 10: augment.RandomInterp} {
		if got, err := interpFromMXNet(code); err != nil || got != want {
			t.Errorf("interpFromMXNet(%d) = %v, %v", code, got, err)
		}
	}
	if _, err := interpFromMXNet(5); err == nil {
		t.Error("interpFromMXNet(5) accepted")
	}
}
