package badinput_test

import (
	"fmt"
	"os"

	"github.com/tensorfeed/tensorfeed/internal/testkit/badinput"
)

// Write the small cases of the corpus and count the good and bad files.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cases, err := badinput.Write(dir, false)
	if err != nil {
		panic(err)
	}
	good := 0
	for _, c := range cases {
		if c.Good {
			good++
		}
	}
	fmt.Println(good > 0, len(cases)-good > good)
	// Output: true true
}
