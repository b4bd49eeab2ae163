package batch

// Batch is a group of samples that travels through a pipeline as one item.
// When the last batch of a pass is padded to the full size, the padding
// samples come last and Padded counts them (MXNet.jl's count_samples is
// len(Samples) - Padded).
//
// With RollOver, Carried counts the samples at the start of the batch that
// a previous pass left over; they are data and Real includes them. MXNet's
// NDArrayIter with roll_over reports that count as the batch's pad, so an
// MXNet-compatible pad is Padded + Carried.
//
// A batch owns its Samples slice: Of and OfFill allocate a new slice for
// each batch, so a consumer may keep or modify it. With the Recycling
// option the consumer owns it only until it calls Release.
type Batch[T any] struct {
	Samples []T
	Padded  int
	Carried int

	slot *slot[T] // where Release hands Samples back; nil if nowhere
	gen  uint64   // slot's use count when this batch was made
}

// Real returns the samples that are data, not padding.
func (b Batch[T]) Real() []T { return b.Samples[:len(b.Samples)-b.Padded] }
