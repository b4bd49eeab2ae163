package option_test

import (
	"testing"

	"github.com/tensorfeed/tensorfeed/internal/option"
)

type config struct{ a, b int }

type Option = option.Option[config]

func A(v int) Option { return option.New(func(c *config) { c.a = v }) }
func B(v int) Option { return option.New(func(c *config) { c.b = v }) }

func TestApplyInOrder(t *testing.T) {
	c := config{a: 1, b: 2}
	option.Apply(&c, []Option{A(5), nil, B(7), A(9)})
	if c != (config{a: 9, b: 7}) {
		t.Fatalf("config = %+v, want {a:9 b:7}", c)
	}
}
