// Package plot writes the examples' line charts (training loss, accuracy,
// samples per second) as PNG files, with gonum.org/v1/plot.
//
//	err := plot.Lines("out/loss.png", "training loss", "step", "loss",
//		plot.Series{Name: "loss", X: steps, Y: losses})
package plot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a chart: the points (X[i], Y[i]), named Name in the
// legend. A nil X numbers the points 1, 2, 3...
type Series struct {
	Name string
	X, Y []float64
}

// Size is the size of the PNG files [Lines] writes.
var Size = struct{ W, H vg.Length }{16 * vg.Centimeter, 10 * vg.Centimeter}

// Lines writes a line chart of series to path, a PNG file (its folder is
// made if missing), with a title and axis labels. Lines with one point are
// drawn as a point. It returns an error naming path when a series is
// empty or its X and Y differ in length, or when the file cannot be
// written.
func Lines(path, title, xlabel, ylabel string, series ...Series) error {
	if len(series) == 0 {
		return fmt.Errorf("plot %s: no series", path)
	}
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	var ends []float64 // the last y of every series, for the legend's place
	for i, s := range series {
		xys, err := s.points()
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("plot %s: series %q: %w", path, s.Name, err)
		}
		c := plotutil.Color(i)
		line.Color = c
		line.Width = vg.Points(1.5)
		points.Color = c
		points.Shape = nil // markers only where a series has one point
		if len(xys) == 1 {
			points.Shape = plotutil.Shape(0)
		}
		p.Add(line, points)
		ends = append(ends, xys[len(xys)-1].Y)
		if s.Name != "" && len(series) > 1 {
			p.Legend.Add(s.Name, line)
		}
	}
	// The legend goes in the corner the lines end away from: at the bottom
	// when they end high (an accuracy), at the top when they end low (a loss).
	p.Legend.Top = mean(ends) < (p.Y.Min+p.Y.Max)/2
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err := p.Save(Size.W, Size.H, path); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}

func (s Series) points() (plotter.XYs, error) {
	switch {
	case len(s.Y) == 0:
		return nil, fmt.Errorf("series %q: %w", s.Name, errEmpty)
	case s.X != nil && len(s.X) != len(s.Y):
		return nil, fmt.Errorf("series %q: %d x values and %d y values", s.Name, len(s.X), len(s.Y))
	}
	xys := make(plotter.XYs, len(s.Y))
	for i, y := range s.Y {
		x := float64(i + 1)
		if s.X != nil {
			x = s.X[i]
		}
		xys[i] = plotter.XY{X: x, Y: y}
	}
	return xys, nil
}

func mean(v []float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

var errEmpty = errors.New("no points")
