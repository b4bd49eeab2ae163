package source

import "github.com/tensorfeed/tensorfeed"

// PanicError is tensorfeed.PanicError, kept under its old name while the
// packages that name it move to the root package.
type PanicError = tensorfeed.PanicError

// NewPanicError is tensorfeed.NewPanicError.
func NewPanicError(v any) *PanicError { return tensorfeed.NewPanicError(v) }
