package tensorfeed

import "fmt"

// PanicError is the error a concurrent stage yields when user code panics in
// one of its goroutines (internal/scope recovers it). It keeps the panic value and the goroutine's stack.
// Code that runs on the consumer's own goroutine (Map, Filter, ...) is not
// wrapped: its panics unwind through the consumer's loop as usual.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the stack of the goroutine that panicked
}

func (p *PanicError) Error() string {
	return fmt.Sprintf("tensorfeed: panic: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic value when it is an error.
func (p *PanicError) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}
