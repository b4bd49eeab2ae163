package mxnet

import (
	"context"

	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// ImageRecordIter returns MXNet's ImageRecordIter over the image RecordIO
// data of p's "path_imgrec": a feed of batches with the tensors "data"
// (data_name), [batch_size C H W] of dtype, and "softmax_label"
// (label_name), float32 [batch_size] ([batch_size label_width] for
// label_width > 1). Every image is decoded, augmented and normalised in
// parallel, straight into its row of the batch; the batches keep the
// data's order (or the shuffled one) whatever preprocess_threads is.
// Release each batch when done with it: the iterator fills the same memory
// again, so a loop that releases allocates no batch memory in steady
// state.
//
// data_shape ((C, H, W), C 1, 3 or 4) and batch_size are required. The
// other parameters and their defaults are MXNet's:
//
//   - path_imgrec: a .rec file, a ";"-separated list of them, or a
//     directory, whose .rec files are read in name order, as one stream;
//     each may be an s3:// or http(s):// URL (package storage; an s3://
//     URL that does not end in ".rec" is listed as a directory, or as a
//     glob). path_imgidx (""): the .idx file of each .rec, as a list in
//     the same order or a directory (a URL prefix) holding them under the
//     .rec files' base names; every pass checks each index against its
//     .rec and fails when it does not match: a local .rec first, whole
//     (recordio.ValidateIndex, the error naming the .idx line); a remote
//     one is not read twice: its offsets are checked before the first
//     record, and each record as it is read must start at its offset and
//     end where the next indexed one begins (in file order: start at the
//     next entry of the part read, no entry left at the file's end), the
//     error naming the .rec, the offset, the .idx and the key, before the
//     record reaches a batch. A pass
//     shuffled through the index keeps up to 16 records (16 MiB) in
//     flight ahead of the decoding, so that the latency of range requests
//     is hidden. path_imglist (""): a .lst file whose labels replace the
//     records' by the id each record carries. label_width (1).
//   - shuffle (false), seed (0): with path_imgidx, a new permutation of
//     all records every epoch; without it, a buffer of shuffle_buffer
//     records is mixed. Image i of epoch e draws its augmentation from
//     source.NewRand(seed, e, i), so the batches are the same for a seed.
//   - num_parts (1), part_index (0): the part's equal byte range of the
//     data (recordio.Shard), all files cut as one stream, so every record
//     falls in exactly one part.
//   - batch_size; round_batch (true): the short last batch is filled with
//     the first images, counted in tensor.Batch.Padded, and the next epoch
//     starts after them (batch.RoundBatch); false pads it the same way but
//     starts every epoch at the first image (batch.Pad). A batch.Policy
//     value gives any other (batch.Keep yields the short batch, batch.Drop
//     drops it, batch.RollOver carries it into the next epoch).
//   - resize (-1: none): the shorter side first scaled to resize.
//     rand_crop (false): the crop of the data shape at a random place
//     instead of the centre; crop_x_start, crop_y_start (-1): at a fixed
//     place. min_crop_size, max_crop_size (-1): a square of a side drawn
//     from [min, max] cropped and resized to the data shape. mirror
//     (false) flips every image, rand_mirror (false) half of them.
//   - max_rotate_angle (0), rotate (-1), max_shear_ratio (0),
//     min_random_scale (1), max_random_scale (1), max_aspect_ratio (0),
//     min_img_size (0), max_img_size (1e10): the random affine warp
//     (augment.Affine). pad (0) pixels added on every side before the
//     crop, fill_value (255) their value and the warp's. random_h,
//     random_s, random_l (0): the colour jitter (augment.ColorJitter).
//     inter_method (1, bilinear; 0-4, 9, 10 or an augment.Interp).
//   - mean_r, mean_g, mean_b, mean_a (0), std_r ... std_a (1), scale (1),
//     max_random_contrast, max_random_illumination (0): the normalisation
//     (augment.Normalize). mean_img (""): MXNet's mean image file
//     (imagerec.ParseMeanImage), subtracted instead of the means; when the
//     local file does not exist, the first pass computes it (the mean of
//     every pixel over the data, augmented as epoch 0, unshuffled) and
//     saves it there, as MXNet does.
//   - dtype ("float32"): "uint8" gives the raw pixels, only mirrored;
//     "int8" each pixel less its mean (mean_r... or mean_img), rounded and
//     saturated, as MXNet does. preprocess_threads (4, at most
//     GOMAXPROCS), prefetch_buffer (4 batches; 0 for none), verbose
//     (nothing is printed either way).
//
// tensorfeed adds: decoder (a decode.Decoder; decode.Default()),
// max_decode_bytes (the memory one decode may take; decode.DefaultMaxBytes;
// an image over it is refused from its header), shuffle_buffer (4096),
// storage (a []storage.Option for URLs: endpoint, credentials, a cache)
// and skip_bad (a *source.SkipPolicy: records whose header, labels or
// image are bad are skipped, counted and logged within its bound, later
// images moving up; damage to the RecordIO framing and an .idx that does
// not match still end the pass).
//
// The feed is a plain pipeline, and its Stats and Report show its steps:
// "records", "shuffle" (shuffle without path_imgidx), "parse" (the record
// header and labels), "batch", "tensorize" (the decode, augmentation and
// normalisation of every image into its row, on preprocess_threads
// goroutines; its Skipped counts what skip_bad skipped) and "buffered"
// (prefetch_buffer).
//
// Errors about the data are *tensorfeed.Error values naming the file,
// record and byte offset, wrapping imagerec's, recordio's or decode's
// sentinels and tensorfeed.ErrBadData. The feed resumes exactly from the
// pipeline's Checkpoint (by position with path_imgidx and shuffle, by
// replay otherwise), and a checkpoint taken with other augmentation is
// refused naming the parameter.
func ImageRecordIter(ctx context.Context, p Params) (*pipeline.Pipe[*tensor.Batch], error) {
	it, err := newRecIter(ctx, p)
	if err != nil {
		return nil, err
	}
	return it.feed, nil
}
