// Package serve serves the batches of tensorfeed pipelines to other
// processes, a PyTorch training loop above all, over a stream socket (a
// Unix socket, or TCP on a loopback address). The Python client lives in
// the repository's python/ folder (tensorfeed_client); the command
// "tensorfeed serve" serves MNIST, image records and fixed-shape records
// without writing Go.
//
// A Server holds named feeds. A Feed builds, for one client, the pipeline
// of its share of the data, a *pipeline.Pipe of *tensor.Batch:
//
//	table, err := mnist.Train("data/mnist").Load(ctx) // once, shared by every client
//	s := serve.New(map[string]serve.Feed{
//		"mnist": func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error) {
//			src := source.ReadIndexed(table, source.ShuffleIndex(42), source.ShardIndex(world, rank, source.PadShards))
//			return pipeline.Tensorize(pipeline.From(src), sink, batch.Keep).Buffered(4), nil
//		},
//	})
//	l, err := serve.Listen("unix:/tmp/tensorfeed.sock")
//	go s.Serve(l)
//	defer s.Close()
//
// # What a client gets
//
// A client names a feed, its rank in a world of ranks, the epoch to stop
// before and, to resume, a state: the pipeline's checkpoint
// (pipeline.Checkpoint's JSON). The server runs the client's pipe from
// that state (EpochsFrom) and sends every batch with the checkpoint after
// it, so the client always holds the exact position of what it delivered:
// a trainer that saves it with its model, or a client that reconnects
// after the server restarted, continues the identical stream, with no
// batch lost or repeated. Each tensor is sent as a .npy array, straight
// from the batch's memory (writev), and the batch is released once written.
//
// Images are best kept as bytes: a uint8 tensor declared with Affine
// (scale and offset, such as a normalisation) is sent as its bytes to a
// client that decodes it, as the Python client does, and as float32 to
// any other, the same values bit for bit. A quarter of the bytes cross
// the socket, and the client's conversion replaces the server's.
//
// # Faults
//
// Each refusal is an error frame with a code and a message that says what
// to do: an unknown feed (the message lists the feeds), a state of another
// pipeline or a damaged one (pipeline.ErrCheckpoint's message, naming the
// field), a rank outside the world, a second client of the same feed and
// rank while the first is connected, a failing pipeline (the bad file and
// where). A consumer that reads slowly blocks the server's write: the
// memory a connection holds is its pipeline's prefetch and the socket's
// buffers, never a queue that grows. A client that disconnects stops its
// run at once; Close ends every run and joins every goroutine.
package serve
