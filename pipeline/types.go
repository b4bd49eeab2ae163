package pipeline

import "github.com/tensorfeed/tensorfeed/internal/stage"

// The types and options of the steps, named here so that a program can
// spell what the builder returns and takes.

// Stage is a step of your own: a function from the reader of one step to
// the reader of the next. Add it with Apply; test it with
// sourcetest.TestStage.
type Stage[In, Out any] = stage.Stage[In, Out]

// Tuple2 is one sample of each of two zipped readers (Zip2).
type Tuple2[A, B any] = stage.Tuple2[A, B]

// Tuple3 is one sample of each of three zipped readers (Zip3).
type Tuple3[A, B, C any] = stage.Tuple3[A, B, C]

// Tuple4 is one sample of each of four zipped readers (Zip4).
type Tuple4[A, B, C, D any] = stage.Tuple4[A, B, C, D]

// Numbered is a sample with its index in the pass (Enumerate), counting from
// 0 on every pass.
type Numbered[T any] = stage.Numbered[T]

// ParallelOption configures ParallelMap.
type ParallelOption = stage.ParallelOption

// ErrNotAligned is the error of a zip whose readers end at different
// lengths (unless Shortest is given).
var ErrNotAligned = stage.ErrNotAligned

// Unordered lets ParallelMap yield results as they finish instead of in
// input order: faster when the time per sample varies, but the order then
// depends on timing.
func Unordered() ParallelOption { return stage.Unordered() }

// InFlight bounds how many samples ParallelMap holds at once, read but not
// yet yielded, inputs and results together: the memory bound of a pass. By
// default the bound adapts: 16 per worker while f is slow (decoding,
// augmentation), up to 64 per worker while f is cheap enough for workers
// to take chunks of many samples. InFlight panics if n < 1.
func InFlight(n int) ParallelOption { return stage.InFlight(n) }

// Shortest makes a zip end with its shortest reader instead of failing
// with ErrNotAligned (the GAN's endless noise zipped with a finite set).
func Shortest() stage.ZipOption { return stage.Shortest() }
