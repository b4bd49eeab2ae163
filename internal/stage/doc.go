// Package stage holds reader decorators: each takes one or more readers and
// returns a reader, as io.LimitReader and bufio.NewReader do for io.Reader
// and as PaddlePaddle's reader decorators do for its readers.
//
// # Typed steps
//
// Go methods cannot add type parameters, so every stage is a free generic
// function: Map[In, Out], Zip2[A, B], and so on. A type-preserving step
// (Shuffle, Filter, Take, Buffered) keeps its element type; the pipeline
// package offers those as methods of a fluent builder too.
//
// # Concurrency
//
// Only Buffered and ParallelMap start goroutines, and only while a pass
// runs. When the consumer stops early, errs or cancels, the pass cancels its
// workers and waits for them before it returns. A panic in a worker reaches
// the consumer as a *tensorfeed.PanicError with the worker's stack; code that
// runs on the consumer's goroutine (Map, Filter, ...) panics as usual.
//
// # Determinism
//
// Every random stage takes a seed; epoch e of a stage seeded s draws from a
// generator derived from (s, e) (see source.Epochs), so epochs differ and
// runs repeat. ParallelMap keeps input order unless asked not to, so its
// output is the same for any number of workers.
package stage
