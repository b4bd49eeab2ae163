// Package markstest holds the helpers shared by the resume tests of the
// streaming readers.
package markstest

import (
	"encoding/json"
	"testing"

	"github.com/tensorfeed/tensorfeed/source"
)

// JSONRoundTrip returns st after encoding it to JSON and back, as a
// checkpoint stores it.
func JSONRoundTrip(t testing.TB, st source.State) source.State {
	t.Helper()
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back source.State
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
