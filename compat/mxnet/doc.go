// Package mxnet offers MXNet's data iterators under MXNet's names and with
// its parameters, for programs and people who know them: MNISTIter, a thin
// constructor over the parts every tensorfeed pipeline is made of (a
// dataset package's random-access set, source.ReadIndexed, the pipeline
// builder and a sink built from struct tags), and ImageRecordIter, MXNet's
// image record iterator (parallel decoding and augmentation straight into
// the batch, parts by byte ranges), over dataset/imagerec's format. Each
// returns a pipeline.Pipe, so it resumes, reports and checkpoints as any
// pipeline does.
//
// Parameters are given as MXNet's Python keyword arguments are, by name,
// in [Params]; a value is a Go value (128, false, "path") or the string
// MXNet's C API passes ("128", "False"). A parameter MXNet's iterator does
// not have is an error that lists the ones it has, as dmlc's parameter
// parser reports it.
//
//	train, err := mxnet.MNISTIter(ctx, mxnet.Params{
//		"image": "data/mnist/train-images-idx3-ubyte.gz",
//		"label": "data/mnist/train-labels-idx1-ubyte.gz",
//		"batch_size": 100, "flat": true,
//	})
//	images, err := mxnet.ImageRecordIter(ctx, mxnet.Params{
//		"path_imgrec": "train.rec", "path_imgidx": "train.idx",
//		"data_shape": "(3, 224, 224)", "batch_size": 128,
//		"shuffle": true, "rand_crop": true, "rand_mirror": true,
//	})
package mxnet
