package main

// imagerecRows is a placeholder until dataset/imagerec's Iter and Decode
// reader are in the tree: its rows say that nothing was measured.
func imagerecRows(cfg config) ([]Row, error) {
	const note = "not measured: dataset/imagerec has no Iter or Decode reader in this tree yet"
	return []Row{
		{Name: "imagerec-decode", Decoder: "go", Threads: 1, Note: note},
		{Name: "imagerec-pipeline", Decoder: "go", Threads: 1, Note: note},
	}, nil
}
