// Package nn is a very small neural-network toolkit for tensorfeed's
// examples: fully connected layers, a few activations, softmax and logistic
// losses, and the SGD-with-momentum and Adam optimisers, all on gonum's
// float64 matrices.
//
// # Layout
//
// A batch is a *mat.Dense with one sample per row. Forward returns a matrix
// that the layer owns and overwrites on its next Forward; a layer keeps what
// it needs for Backward, so call Forward and Backward in pairs. Backward
// adds to the parameters' gradients (it never clears them), which lets a
// model see two batches before one optimiser step, as a GAN's discriminator
// does with its real and generated halves; call ZeroGrad before each step.
//
// It is not a general library: no convolutions, no graph, no GPU. It is
// here so that the examples train real models on the data tensorfeed reads.
package nn
