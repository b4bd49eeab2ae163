package pipeline

import "sync"

// position is where the consumer of a pipe's Epochs stands: the epoch of
// the pass it ranges and how many items of that pass it has received,
// counted from the start of the epoch (a pass resumed from a checkpoint at
// step s starts at s). It is what Checkpoint saves, so the loop never
// counts steps itself; a count kept by hand restarts at 0 in a resumed
// process and silently checkpoints the wrong place.
type position struct {
	mu    sync.Mutex
	epoch int
	step  int64
}

func (p *position) set(epoch int, step int64) {
	p.mu.Lock()
	p.epoch, p.step = epoch, step
	p.mu.Unlock()
}

func (p *position) get() (int, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.epoch, p.step
}

// Position returns the epoch of the pass that Epochs or EpochsFrom is
// ranging (or ranged last) and how many items of it the consumer has
// received, counted from the start of the epoch, also across a resume: a
// run resumed from a checkpoint at step 300 is at step 400 after 100 more
// items. At the end of an epoch the step is the epoch's length. Before any
// pass it is (0, 0), and right after EpochsFrom the checkpoint's position.
// It is the position Checkpoint saves; call it from the loop, between
// items.
func (p *Pipe[T]) Position() (epoch int, step int64) { return p.pos.get() }
