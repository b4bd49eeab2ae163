package mxnet

import "path/filepath"

const testdata = "../../dataset/imagerec/testdata"

func tdPath(name, ext string) string { return filepath.Join(testdata, name+ext) }
