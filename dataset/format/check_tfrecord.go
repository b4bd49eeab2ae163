package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/tfrecord"
	"github.com/tensorfeed/tensorfeed/internal/checkstat"
)

// maxFeatureNames bounds the feature names checkTFRecord keeps for its
// summary, so that records with ever new names cannot make it grow.
const maxFeatureNames = 100

// featureStats counts, for each feature name, the records that hold it by
// kind, and judges the records that do not parse as tf.train.Example.
type featureStats struct {
	examples, other int64 // records that parse as tf.train.Example, and those that do not
	counts          map[string]map[tfrecord.Kind]int64
	overflow        bool // more names than maxFeatureNames

	// mixed accepts records that do not parse among those that do
	// (Mixed). Without it, a file that holds tf.train.Example (a record
	// with features parsed) must hold nothing else.
	mixed bool
	// seen is set at the first record that parses with features: from
	// then on the file holds tf.train.Example.
	seen bool
	// held is the first record that failed to parse before any parsed
	// with features (a file of other payloads is good), heldMore counts
	// those after it; they are reported when a tf.train.Example follows.
	held     error
	heldMore int64
}

// add parses a record and reports, through c, a record that should be a
// tf.train.Example and is not. It returns whether the check goes on.
func (s *featureStats) add(r tfrecord.Record, c *checker) bool {
	ex, err := r.Example()
	if err != nil {
		s.other++
		switch {
		case errors.Is(err, tfrecord.ErrTooLarge):
			// An Example over the parser's limits, whatever else the file
			// holds: the pipeline's parse would refuse it too.
			return c.report(err)
		case s.mixed:
			return true
		case s.seen:
			return c.report(err)
		case s.held == nil:
			s.held = err
		default:
			s.heldMore++
		}
		return true
	}
	s.examples++
	if s.counts == nil {
		s.counts = map[string]map[tfrecord.Kind]int64{}
	}
	for name, f := range ex.Features {
		kinds, ok := s.counts[name]
		if !ok {
			if len(s.counts) >= maxFeatureNames {
				s.overflow = true
				continue
			}
			kinds = map[tfrecord.Kind]int64{}
			s.counts[name] = kinds
		}
		kinds[f.Kind]++
	}
	if len(ex.Features) == 0 || s.seen {
		return true // an empty record parses as an empty Example: it says nothing of the file
	}
	s.seen = true
	if s.held == nil || s.mixed {
		return true
	}
	err, s.held = s.held, nil
	var fe *tensorfeed.Error
	if s.heldMore > 0 && errors.As(err, &fe) {
		fe.Err = fmt.Errorf("%w (and %d more records before record %d, the first tf.train.Example with features, do not parse either)",
			fe.Err, s.heldMore, r.Index)
	}
	return c.report(err)
}

// String describes the features: each name with its kinds and how many
// records hold it.
func (s *featureStats) String() string {
	if s.examples == 0 {
		return "no record parses as tf.train.Example"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tf.train.Example", s.examples)
	if s.other > 0 {
		fmt.Fprintf(&b, " and %d other records", s.other)
	}
	if len(s.counts) == 0 {
		b.WriteString("; no features")
		return b.String()
	}
	b.WriteString("; features:")
	names := make([]string, 0, len(s.counts))
	for n := range s.counts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var ks []string
		for k, c := range s.counts[n] {
			ks = append(ks, fmt.Sprintf("%s %d", k, c))
		}
		slices.Sort(ks)
		fmt.Fprintf(&b, " %q (%s)", n, strings.Join(ks, ", "))
	}
	if s.overflow {
		fmt.Fprintf(&b, " and more than %d names", maxFeatureNames)
	}
	return b.String()
}

// checkTFRecord reads a TFRecord file (plain or gzip) to its end through
// tfrecord.Open, which verifies each record's length and data checksums.
// A record whose data checksum fails is reported and, with --all, skipped
// (under OnBad) so that every such record is listed; any other
// damage ends the check. Records that parse as tf.train.Example are
// summarised by feature. TFRecord may hold any payload, so a file whose
// records all fail to parse is good; but in a file that holds
// tf.train.Example, a record that does not parse is reported with its
// index, offset and why, unless Mixed (the file mixes payloads),
// when it is only counted. An Example over the parser's limits
// (tfrecord.MaxValues, MaxFeatures) is always reported.
//
// Memory holds one record at a time, at most 256 MiB (tfrecord.MaxRecordBytes's default),
// and its Example, which the parser's limits bound.
func checkTFRecord(ctx context.Context, c *checker, stdout io.Writer, opts []tfrecord.Option) error {
	path := c.path
	gz, err := checkstat.IsGzip(ctx, path, c.sopts)
	if err != nil {
		return err
	}
	opts = append(slices.Clip(opts), tfrecord.ReuseBuffer(), tfrecord.Storage(c.sopts...))
	if c.policy != nil {
		opts = append(opts, tfrecord.OnBad(c.policy))
	}
	var n, payload int64
	feats := featureStats{mixed: c.mixed}
	for r, err := range tfrecord.Open(path, opts...).All(ctx) {
		if err != nil {
			return err
		}
		n++
		payload += int64(len(r.Data))
		if !feats.add(r, c) {
			return nil // reported
		}
	}
	if c.bad() > 0 {
		return nil
	}
	kind := "TFRecord"
	if gz {
		kind += ", gzip"
	}
	fmt.Fprintf(stdout, "%s: %s: %d records, %d payload bytes; %s\n", path, kind, n, payload, &feats)
	return nil
}
