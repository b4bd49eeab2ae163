package batch

import "fmt"

// Policy says what Of does with the last batch of a pass when it is short.
type Policy uint8

const (
	// Keep yields the short last batch as it is: its Len is smaller than
	// the batch size.
	Keep Policy = iota
	// Drop discards the short last batch.
	Drop
	// Pad fills the short last batch up to the batch size by repeating the
	// first samples of the pass, in order, and sets Batch.Padded to the
	// number of samples added. A pass shorter than one batch repeats its
	// own samples cyclically.
	Pad
	// RollOver keeps the short last batch in the reader and starts the
	// first batch of the next pass with it (MXNet's roll_over), so every
	// batch is full and no sample is lost between epochs. Batch.Carried
	// counts the carried samples of a batch, which MXNet's NDArrayIter
	// reports as pad. See Of for the end of the last pass and concurrent
	// passes.
	RollOver
	// RoundBatch fills the short last batch up to the batch size with the
	// first samples of the data, as Pad does, counts them in Batch.Padded,
	// and starts the next pass after them (MXNet's round_batch): the next
	// pass skips as many samples from its start as the padding took. Pad
	// instead starts every pass at the first sample. See Of.
	RoundBatch
)

var policyNames = [...]string{"keep", "drop", "pad", "rollover", "roundbatch"}

// String returns the policy's name: "keep", "drop", "pad", "rollover" or
// "roundbatch".
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", p)
}
