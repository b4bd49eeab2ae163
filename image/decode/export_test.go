package decode

// GoDecodeBytes is the memory the bound counts for decoding data with
// GoDecoder to ch channels (0: the image's own), or -1 when its header
// does not read.
func GoDecodeBytes(data []byte, ch int) int64 {
	switch Sniff(data) {
	case FormatJPEG:
		j, err := jpegHeader(data)
		if err != nil {
			return -1
		}
		native := 3
		if j.comps == 1 {
			native = 1
		}
		return goJPEGBytes(&j, outChannels(ch, native))
	case FormatPNG:
		p, err := pngHeader(data)
		if err != nil {
			return -1
		}
		return goPNGBytes(&p, outChannels(ch, p.channels()))
	}
	return -1
}
