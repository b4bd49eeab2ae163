package kind

import (
	"strings"
	"testing"
)

type inner struct {
	Mean  [3]float32
	Image []float32
}

type cfg struct {
	Size    int
	Mode    string
	Norm    inner
	Threads int
	Path    string
	Hook    func()
	Any     any
	Ptr     *int
}

func TestOf(t *testing.T) {
	img := make([]float32, 20)
	c := cfg{Size: 3, Mode: "rand", Norm: inner{Mean: [3]float32{1, 2, 3}, Image: img}, Threads: 8, Path: "/x", Any: 1.5}
	got := Of("rec", c, "Threads", "Path")
	want := "rec(size=3,mode=rand,norm={mean:[1 2 3] image:[20 values "
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "]},hook=nil,any=float64,ptr=nil)") {
		t.Fatalf("Of = %s, want %s...]},hook=nil,any=float64,ptr=nil)", got, want)
	}
	if got != Of("rec", &c, "Threads", "Path") {
		t.Fatal("a pointer to the config gives another kind")
	}
	c.Threads, c.Path = 1, "/y" // left out: the same kind
	if again := Of("rec", c, "Threads", "Path"); again != got {
		t.Fatalf("skipped fields changed the kind: %s vs %s", again, got)
	}
	c.Norm.Image[7] = 1 // inside a digest: another kind
	if again := Of("rec", c, "Threads", "Path"); again == got {
		t.Fatal("a value of a long slice did not change the kind")
	}
}

func TestDiff(t *testing.T) {
	a := Of("rec", cfg{Size: 3, Mode: "rand"})
	b := Of("rec", cfg{Size: 4, Mode: "rand", Norm: inner{Mean: [3]float32{0, 0, 1}}})
	if got, want := Diff(a, b), "size: 3 here, 4 in the checkpoint; norm: {mean:[0 0 0] image:[]} here, {mean:[0 0 1] image:[]} in the checkpoint"; got != want {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
	if got, want := Diff("take(90)", "take(80)"), "parameter 1: 90 here, 80 in the checkpoint"; got != want {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
	for _, pair := range [][2]string{{"take(90)", "skip(90)"}, {"map", "map"}, {"a(x=1)", "a(y=1)"}, {"a(1,2)", "a(1)"}} {
		if got := Diff(pair[0], pair[1]); got != "" {
			t.Errorf("Diff(%s, %s) = %q, want \"\"", pair[0], pair[1], got)
		}
	}
}
