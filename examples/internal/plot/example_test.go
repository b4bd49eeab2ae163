package plot_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tensorfeed/tensorfeed/examples/internal/plot"
)

// Two series on one chart: the loss of every 100 steps and its mean per
// epoch.
func ExampleLines() {
	dir, err := os.MkdirTemp("", "plot-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loss.png")
	err = plot.Lines(path, "training loss", "step", "loss",
		plot.Series{Name: "every 100 steps", X: []float64{100, 200, 300, 400}, Y: []float64{1.1, 0.5, 0.35, 0.3}},
		plot.Series{Name: "epoch mean", X: []float64{200, 400}, Y: []float64{0.8, 0.33}})
	fmt.Println(err, filepath.Base(path))
	// Output: <nil> loss.png
}
