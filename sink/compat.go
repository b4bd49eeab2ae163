package sink

import "github.com/tensorfeed/tensorfeed/tensor"

// Tensors is the batch of tensors a sink assembles.
//
// Deprecated: use tensor.Batch.
type Tensors = tensor.Batch

// Tensor is one named tensor of a batch.
//
// Deprecated: use tensor.Tensor.
type Tensor = tensor.Tensor

// Desc describes a tensor before any data exists.
//
// Deprecated: use tensor.Desc.
type Desc = tensor.Desc
