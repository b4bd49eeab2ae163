// Package sinkrows lets pipeline's Tensorize tell a sink on how many
// goroutines to fill the rows of one batch's fallible fields (those made
// by sink.Fill: an image decoded into its row), without an exported
// setting on sink.Sink.
//
// Tensorize's workers assemble whole batches, in order; when an epoch has
// fewer batches than workers (or at its start and end) most of them would
// wait, so a batch's expensive rows are split among goroutines too, at
// most the step's worker count filling at once.
package sinkrows

// SetWorkers sets the number of goroutines that fill a batch's rows for
// the sink s, a *sink.Sink[T] of any T, and reports whether s has a field
// whose rows it splits among them. Package sink sets it when it is
// initialised, so it is never nil in a program that has a sink.
var SetWorkers func(s any, n int) bool
