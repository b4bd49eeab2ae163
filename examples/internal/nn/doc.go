// Package nn is a very small neural-network toolkit for tensorfeed's
// examples: fully connected layers, two-dimensional convolutions and
// transposed convolutions, batch normalisation, dropout, a few activations,
// softmax and logistic losses, the SGD-with-momentum and Adam optimisers
// and a moving average of weights, all on gonum's float64 matrices.
//
// # Layout
//
// A batch is a *mat.Dense with one sample per row. Images are rows of
// H·W·C values in HWC order (a Shape describes them), as a sink's image
// tensors are, so a convolution's output feeds a Linear layer without a
// reshape. Forward returns a matrix that the layer owns and overwrites on
// its next Forward; a layer keeps what it needs for Backward, so call
// Forward and Backward in pairs. Backward adds to the parameters' gradients
// (it never clears them), which lets a model see two batches before one
// optimiser step, as a GAN's discriminator does with its real and generated
// halves; call ZeroGrad before each step.
//
// # Convolutions
//
// Conv2D and ConvTranspose2D run as one matrix product per batch over an
// im2col matrix (every kernel window of the input as a row), the way most
// CPU frameworks do; the matrix product is gonum's, which uses all cores
// for large batches.
//
// It is not a general library: no graph, no automatic differentiation, no
// GPU. It is here so that the examples train real models on the data
// tensorfeed reads.
package nn
