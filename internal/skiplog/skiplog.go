// Package skiplog records the positions that the passes of a reader with
// a position skipped as bad, so that the reader's state after n yielded
// samples is n plus the skips before it.
package skiplog

import "sync"

// Log records which positions the passes of recent epochs skipped as
// bad, so that a reader's state after n yielded samples counts them in: the
// position is n plus the skips before it. Readers with a bad-record policy
// and a position (source.ReadIndexed, Parquet rows) keep one. It is small, as a
// policy allows few skips, and safe for concurrent use; the zero value is
// ready.
type Log struct {
	mu     sync.Mutex
	epochs map[int][]int64 // epoch -> positions, ascending
}

// Start begins a pass of epoch: it forgets what an earlier pass of the same
// epoch skipped, and the epochs before the previous one.
func (l *Log) Start(epoch int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epochs == nil {
		l.epochs = map[int][]int64{}
	}
	delete(l.epochs, epoch)
	for e := range l.epochs {
		if e < epoch-1 {
			delete(l.epochs, e)
		}
	}
}

// Skipped records that the pass of epoch skipped position pos. Positions
// of a pass are recorded in ascending order.
func (l *Log) Skipped(epoch int, pos int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epochs == nil {
		l.epochs = map[int][]int64{}
	}
	l.epochs[epoch] = append(l.epochs[epoch], pos)
}

// Position returns the position of the pass of epoch that started at from
// after its consumer received n samples: from+n, plus the positions skipped
// on the way.
func (l *Log) Position(epoch int, from, n int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	pos := from + n
	for _, s := range l.epochs[epoch] {
		if s < from {
			continue
		}
		if s > pos {
			break
		}
		pos++
	}
	return pos
}
