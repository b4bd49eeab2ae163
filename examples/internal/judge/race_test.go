//go:build race

package judge_test

// Training the classifier is arithmetic in one goroutine (gonum), about
// five times slower under the race detector and with nothing for it to
// find; test.sh runs TestJudge again without it.
func init() { raceEnabled = true }
