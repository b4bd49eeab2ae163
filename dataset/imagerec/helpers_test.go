package imagerec_test

import "path/filepath"

const testdata = "testdata"

func tdPath(name, ext string) string { return filepath.Join(testdata, name+ext) }
