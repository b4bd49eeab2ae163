package skiplog

import "testing"

// TestPosition checks that a position counts the skips before it, only
// those of its own epoch and pass, and forgets old epochs.
func TestPosition(t *testing.T) {
	var l Log
	l.Start(0)
	l.Skipped(0, 2)
	l.Skipped(0, 3)
	l.Skipped(0, 7)
	for _, tt := range []struct {
		from, n, want int64
	}{
		{0, 0, 0},
		{0, 2, 4},  // 0 1 yielded; 2 3 skipped
		{0, 4, 6},  // 4 5 yielded
		{0, 5, 8},  // 6 yielded, 7 skipped
		{3, 1, 5},  // a pass resumed at 3: 3 skipped, 4 yielded
		{8, 2, 10}, // no skip at or after 8
	} {
		if got := l.Position(0, tt.from, tt.n); got != tt.want {
			t.Errorf("Position(0, %d, %d) = %d, want %d", tt.from, tt.n, got, tt.want)
		}
	}
	if got := l.Position(1, 0, 5); got != 5 {
		t.Errorf("another epoch: Position = %d, want 5", got)
	}
	l.Start(0) // a new pass of epoch 0 forgets the old one
	if got := l.Position(0, 0, 5); got != 5 {
		t.Errorf("after Start: Position = %d, want 5", got)
	}
	l.Skipped(0, 1)
	l.Start(2) // epoch 0 is forgotten two epochs later
	if got := l.Position(0, 0, 5); got != 5 {
		t.Errorf("after Start(2): Position = %d, want 5", got)
	}
}
