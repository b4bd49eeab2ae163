package main

import "gonum.org/v1/gonum/mat"

func matFilled(r, c int, v float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, v)
		}
	}
	return m
}
