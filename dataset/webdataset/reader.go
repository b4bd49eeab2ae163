package webdataset

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// defaultMaxMemberBytes is the largest member a reader accepts by default:
// 64 MiB.
const defaultMaxMemberBytes = 64 << 20

// defaultMaxSampleBytes is the most bytes the members of one sample may
// hold together by default: 256 MiB.
const defaultMaxSampleBytes = 256 << 20

const maxLimit = 1 << 40

type config struct {
	maxMember   int64
	maxSample   int64
	ignoreZeros bool
	reuse       bool
	required    []string
	bad         *source.SkipPolicy
	storage     []storage.Option
}

// Option configures [Open].
type Option = option.Option[config]

// MaxMemberBytes sets the largest member a pass reads (default
// [defaultMaxMemberBytes]). A larger member ends the pass with an [*tensorfeed.Error]
// wrapping [ErrTooLarge], from its header, before any of it is read,
// under any bad-record policy: the fix is a larger limit. A pass holds
// one sample and the first member of the next at a time, so its memory is
// bounded by MaxSampleBytes plus MaxMemberBytes. MaxMemberBytes panics unless 1 <= n <= 1<<40.
func MaxMemberBytes(n int64) Option {
	if n < 1 || n > maxLimit {
		panic(fmt.Sprintf("webdataset: MaxMemberBytes(%d): must be in [1, %d]", n, int64(maxLimit)))
	}
	return option.New(func(c *config) { c.maxMember = n })
}

// MaxSampleBytes sets the most bytes the members of one sample may hold
// together (default [defaultMaxSampleBytes]), so that a sample of many
// members, such as a gzip shard that decompresses to a flood of them,
// cannot take more memory than that. A member that would pass the bound
// ends the pass with an [*tensorfeed.Error] wrapping [ErrTooLarge], from its header,
// before it is read, under any bad-record policy. MaxSampleBytes panics
// unless 1 <= n <= 1<<40.
func MaxSampleBytes(n int64) Option {
	if n < 1 || n > maxLimit {
		panic(fmt.Sprintf("webdataset: MaxSampleBytes(%d): must be in [1, %d]", n, int64(maxLimit)))
	}
	return option.New(func(c *config) { c.maxSample = n })
}

// IgnoreZeros reads on past the end-of-archive blocks of a shard, as GNU
// tar's --ignore-zeros (-i) does: a shard made by joining tar archives end
// to end (cat a.tar b.tar > c.tar, or gzip streams joined the same way)
// then gives the samples of every archive, read as one shard (a key that
// appears in two of them is [ErrSplit]). Without it, only zero padding may
// follow the end-of-archive blocks, and a block that is not zero is an
// [*tensorfeed.Error] wrapping [ErrAfterEnd] at its offset, so that what follows is
// never dropped silently. Either way, at most [MaxMemberBytes] of zero
// blocks are read in a row after an end of archive ([ErrTooLarge] past
// that), which bounds the work a small gzip shard of zeros can cause. A
// single zero block followed by a header is a bad tar header in
// both modes: archive/tar reads it so.
func IgnoreZeros() Option { return option.New(func(c *config) { c.ignoreZeros = true }) }

// ReuseBuffer makes the samples of a pass share their memory: a sample's
// Fields map and the bytes in it are valid only until the next sample is
// read. Use it when each sample is consumed (decoded, copied) before the
// next one is asked for, as [Decode]'s function or a loop body does, and
// never with a stage that holds on to samples (Shuffle, Buffered, Cache,
// batching of raw bytes). It saves a new slice for every member and a new
// map for every sample, which is most of the time a pass of small members
// takes beyond archive/tar's own work.
func ReuseBuffer() Option { return option.New(func(c *config) { c.reuse = true }) }

// Fields names fields every sample must have ("jpg", "cls"): a sample
// without one of them is bad (an error wrapping [ErrFormat], "missing field"). Samples may hold other
// fields too.
func Fields(names ...string) Option {
	names = slices.Clone(names)
	return option.New(func(c *config) { c.required = append(c.required, names...) })
}

// OnBad sets the bad-record policy, which may be shared with other readers.
// A bad sample is one that lacks a field named by [Fields] or holds a
// field twice, or, through [Decode], one whose decoding fails with an
// error that wraps tensorfeed.ErrBadData. The policy's warnings go to the
// logger of the pass's context (tensorfeed.WithLogger). Whatever the
// policy, the pass fails on a shard that cannot be opened or read, a bad
// tar header or gzip stream, a truncated shard, a member over
// MaxMemberBytes and a split sample: what follows such damage cannot be
// trusted. The default, a nil policy, fails the pass at the first bad
// sample.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.bad = p }) }

// Storage sets the options of package storage through which shards are
// opened: every path given to Open may be a local path, an
// s3://bucket/key object or an http(s):// URL (see [storage.Open]; list a
// dataset's shards with [storage.List]), and opts say how to reach them
// (endpoint, credentials, retries, read-ahead, a cache). Without it, URLs
// are opened with storage's defaults. The storage's errors name the URL
// and the byte range.
func Storage(opts ...storage.Option) Option {
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// reader reads the samples of one or more WebDataset shards, in order
// (see Open).
type reader struct {
	list string // the shards, as source.Paths expands them
	cfg  config
	core streamfile.Stream
}

// Open returns a reader of the shards that list names (each a tar or a
// gzip-compressed tar, told apart by its magic bytes): a path or a URL
// (see [Storage]), several separated by ';', a directory (every file in
// it, in name order) or a glob, as source.Paths expands it when a pass
// starts. Each pass opens the shards one after the other, with the pass's
// context, and closes each before the next. A sample whose key ends one
// shard and starts the next is an error ([ErrSplit], worded by
// [SplitAcross]), as it is for the shards that dataset/format reads one by
// one. A bad sample ends the pass with its [*tensorfeed.Error], unless a
// bad-record policy ([OnBad]) skips it. The pass logs through
// tensorfeed.Logger(ctx): a debug entry for each shard it opens, and a
// warning for each sample the policy skips.
//
// The reader is source.Resumable from a shard and a byte offset (see
// resume.go), a source.Identifier and a source.SkipCounted.
func Open(list string, opts ...Option) source.Reader[Sample] {
	c := config{maxMember: defaultMaxMemberBytes, maxSample: defaultMaxSampleBytes}
	option.Apply(&c, opts)
	width := 1 // pack(shard, offset)
	if c.bad != nil {
		width = 2 // and the samples skipped as bad
	}
	return &reader{list: list, cfg: c, core: streamfile.New("webdataset", "samples", kind(list), width)}
}

// Skipped returns how many bad samples the reader's policy (OnBad) has
// skipped, over all passes and all readers that share the
// policy; 0 without one. It makes the reader a source.SkipCounted.
func (r *reader) Skipped() int64 { return r.cfg.bad.Skipped() }

// All starts a pass over the samples of the shards (see Open).
func (r *reader) All(ctx context.Context) iter.Seq2[Sample, error] {
	return pass(ctx, r, func(s Sample) (Sample, error) { return s, nil })
}

// Decode returns a reader that applies f to every sample of r, a reader
// that Open returned. An error from f that wraps tensorfeed.ErrBadData
// (the errors of the decoding methods of [Sample] do) makes the sample
// bad, under r's policy like the samples r finds bad itself: skipped and
// counted, or the end of the pass. Any other error from f ends the pass.
// The reader it returns resumes and counts its skipped samples as r does.
// It panics if r is not a reader of Open.
func Decode[T any](r source.Reader[Sample], f func(Sample) (T, error)) source.Reader[T] {
	wr, ok := r.(*reader)
	if !ok {
		panic(fmt.Sprintf("webdataset: Decode needs a reader that Open returned, not a %T", r))
	}
	return &decoded[T]{r: wr, f: f}
}

type decoded[T any] struct {
	r *reader
	f func(Sample) (T, error)
}

func (d *decoded[T]) All(ctx context.Context) iter.Seq2[T, error] { return pass(ctx, d.r, d.f) }

// StateAt returns the state of r's pass (see resume.go).
func (d *decoded[T]) StateAt(epoch int, n int64) (source.State, error) { return d.r.StateAt(epoch, n) }

// Resume returns Decode(r resumed from st, f) (see resume.go).
func (d *decoded[T]) Resume(st source.State) (source.Reader[T], error) {
	r, err := d.r.resume(st)
	if err != nil {
		return nil, err
	}
	return &decoded[T]{r: r, f: d.f}, nil
}

// Skipped returns how many bad samples the reader's policy has skipped.
func (d *decoded[T]) Skipped() int64 { return d.r.Skipped() }

func pass[T any](ctx context.Context, r *reader, f func(Sample) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		sp := r.core.Start(ctx)
		p := &passState[T]{Pass: sp, r: r, f: f, yield: yield}
		sp.OnBad(r.cfg.bad, r.skippedBefore())
		first := 0
		if at := r.core.At; r.core.From.Exact {
			first = int(at[0])
			p.put(marks.Pack(at[0], at[1]))
			sp.Log.Debug("webdataset resume", zap.Int64("shard", at[0]), zap.Int64("offset", at[1]), zap.Int64("sample", sp.N))
		}
		paths, err := r.core.ListPaths(sp.Ctx, r.list, "", r.cfg.storage, "shard", true)
		if err != nil {
			var zero T
			yield(zero, err)
			return
		}
		p.paths = paths
		for i := first; i < len(paths); i++ {
			if !p.shard(i) {
				return
			}
		}
		if err := sp.End(); err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

type passState[T any] struct {
	*streamfile.Pass
	r       *reader
	paths   []string // the shards of the pass
	f       func(Sample) (T, error)
	yield   func(T, error) bool
	lastKey string
	mem     reused // under ReuseBuffer
}

// shard reads shard i of the pass and reports whether the pass goes on.
func (p *passState[T]) shard(i int) bool {
	var zero T
	path := p.paths[i]
	if ce := p.Log.Check(zap.DebugLevel, "webdataset shard"); ce != nil {
		ce.Write(zap.String("shard", path), zap.Int("index", i), zap.Int("shards", len(p.paths)))
	}
	off, _, _ := p.r.core.StartIn(i)
	sh, err := openShard(p.Ctx, path, &p.r.cfg, off, &p.mem)
	var bad *badOffset
	if errors.As(err, &bad) {
		// A state changed by hand, or taken of another file: say which
		// number is wrong rather than read nothing or a header mid-member.
		err = p.r.core.Refuse("pos[1]", bad.Error())
	}
	if err != nil {
		p.yield(zero, err)
		return false
	}
	defer sh.close()
	for first := true; ; first = false {
		if err := p.Stopped(); err != nil {
			p.yield(zero, err)
			return false
		}
		s, bad, err := sh.next()
		if err == io.EOF {
			return true
		}
		if err == nil && first && i > 0 && off == 0 && s.Key == p.lastKey {
			e := SplitAcross(p.paths[i-1], path, s.Key, s.Offset)
			e.Member = sh.firstMember
			err = e
		}
		if err != nil {
			p.yield(zero, err)
			return false
		}
		p.lastKey = s.Key
		var out T
		if bad == nil {
			out, bad = p.f(s)
			if bad != nil && !perSample(bad) {
				p.yield(zero, bad)
				return false
			}
		}
		if bad != nil {
			if err := p.Bad(bad); err != nil {
				p.yield(zero, err)
				return false
			}
			continue
		}
		at := marks.Pack(int64(i+1), 0) // the end of the shard: the next one's start
		if next, ok := sh.nextOffset(); ok {
			at = marks.Pack(int64(i), next)
		}
		if !p.good(at) {
			continue // dropped by a replay
		}
		if !p.yield(out, nil) {
			return false
		}
	}
}

// put records in the ring where the sample after the first p.n starts,
// and under a policy how many samples the pass skipped before it.
func (p *passState[T]) put(at int64) {
	if p.r.cfg.bad == nil {
		p.Mark(at)
		return
	}
	p.Mark(at, p.Skipped())
}

// good counts a good sample and puts where the sample after it starts, at,
// in the ring (see put); it reports whether the sample goes to the
// consumer.
func (p *passState[T]) good(at int64) bool {
	if p.r.cfg.bad == nil {
		return p.Good(at)
	}
	return p.Good(at, p.Skipped())
}

// counter counts the bytes read from the tar stream, so that a header's
// offset is known, and keeps the first error of the underlying reader. n
// is the offset of the next byte Read returns: bytes put back by unread
// are read again, and counted again.
type counter struct {
	r    io.Reader
	n    int64
	err  error
	back []byte
}

func (c *counter) Read(p []byte) (int, error) {
	if len(c.back) > 0 {
		n := copy(p, c.back)
		c.back = c.back[n:]
		c.n += int64(n)
		return n, nil
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// unread puts b, the bytes read last, back in front of the stream.
func (c *counter) unread(b []byte) {
	c.back = append(bytes.Clone(b), c.back...)
	c.n -= int64(len(b))
}

// ioRecorder keeps the first error of the file other than io.EOF, to tell
// I/O failures from bad data.
type ioRecorder struct {
	r   io.Reader
	err error
}

func (c *ioRecorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

type member struct {
	name, key, field string
	offset           int64
	data             []byte
}

// shard is one pass over one shard: a pull reader of samples.
type shard struct {
	path        string
	cfg         *config
	f           storage.File
	size        int64 // the file's size when plain, -1 for gzip
	file        *ioRecorder
	cnt         *counter
	tr          *tar.Reader
	pending     member // the first member of the next sample, when hasPending
	hasPending  bool
	pendingErr  error
	curKey      string // the key of the sample being read
	curBytes    int64  // the bytes of its members so far
	eof         bool
	endAt       int64 // the offset of the last end-of-archive blocks read
	seen        map[string]struct{}
	firstMember string
	*reused
}

// reused is the memory the samples of a pass share under ReuseBuffer: the
// bytes of the members of two samples, the one handed out last and the
// next (whose first member is read before the one before it is handed
// out), used in turn, and the map of fields every sample gets.
type reused struct {
	arena  [2][]byte
	cur    int // the arena of the sample being read
	fields map[string][]byte
}

// tarBlock is the size of a tar block: every header starts at a multiple.
const tarBlock = 512

// badOffset is a resume offset that cannot be a header's in a plain shard:
// past its end or not at a block.
type badOffset struct {
	path      string
	off, size int64
}

func (e *badOffset) Error() string {
	if e.off > e.size {
		return fmt.Sprintf("offset %d is past the end of %s (%d bytes)", e.off, e.path, e.size)
	}
	return fmt.Sprintf("offset %d in %s is not at a tar block (a multiple of %d)", e.off, e.path, tarBlock)
}

// openShard opens the shard at p and starts reading its tar stream at
// offset off (in the decompressed stream for gzip).
func openShard(ctx context.Context, p string, cfg *config, off int64, mem *reused) (*shard, error) {
	f, err := storage.OpenFile(ctx, p, cfg.storage...)
	if err != nil {
		return nil, err
	}
	plain := false
	if off > 0 {
		var magic [2]byte
		if _, err := f.ReadAt(magic[:], 0); err != nil {
			f.Close()
			return nil, fmt.Errorf("webdataset: %s: %w", p, err)
		}
		if plain = magic != [2]byte{0x1f, 0x8b}; plain {
			if size := f.Size(); off > size || off%tarBlock != 0 {
				f.Close()
				return nil, &badOffset{path: p, off: off, size: size}
			}
			if _, err := f.Seek(off, io.SeekStart); err != nil {
				f.Close()
				return nil, fmt.Errorf("webdataset: %s: %w", p, err)
			}
		}
	}
	rec := &ioRecorder{r: f}
	br := bufio.NewReaderSize(rec, 64<<10)
	sh := &shard{path: p, cfg: cfg, f: f, size: f.Size(), file: rec, seen: make(map[string]struct{}), reused: mem}
	var stream io.Reader = br
	if magic, _ := br.Peek(2); !plain && bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			if rec.err != nil {
				return nil, rec.err
			}
			return nil, shardError(p, 0, "", fmt.Errorf("%w: gzip: %w", errHeader, err))
		}
		zr.Multistream(true)
		stream = zr
		sh.size = -1
	}
	if rec.err != nil {
		f.Close()
		return nil, rec.err
	}
	sh.cnt = &counter{r: stream}
	if off > 0 && !plain {
		// A resumed gzip shard: decompress up to the offset.
		if m, err := io.CopyN(io.Discard, sh.cnt, off); err != nil {
			f.Close()
			return nil, sh.fail(m, "", err)
		}
	}
	sh.cnt.n = off
	sh.tr = tar.NewReader(sh.cnt)
	return sh, nil
}

func (s *shard) close() { s.f.Close() }

// nextOffset returns the offset of the first member of the sample after
// the one next returned last, or false when that one ended the shard.
func (s *shard) nextOffset() (int64, bool) {
	if s.hasPending {
		return s.pending.offset, true
	}
	if e, ok := s.pendingErr.(*tensorfeed.Error); ok {
		if errors.Is(e.Err, ErrAfterEnd) {
			// A pass resumed here reads the end blocks and what follows
			// them again, and fails again: resumed at the data after them,
			// it would read on as IgnoreZeros does.
			return s.endAt, true
		}
		return e.Offset, true
	}
	return 0, false
}

// fail turns an error of the tar or gzip reader into a positioned error,
// or returns the file's own I/O error.
func (s *shard) fail(off int64, name string, err error) error {
	if s.file.err != nil {
		return &tensorfeed.Error{Path: s.path, Offset: -1, Record: -1, Err: fmt.Errorf("webdataset: %w", s.file.err)}
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: the shard ends early", errTruncated)
	case errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || s.cnt.err != nil && s.cnt.err != io.EOF:
		err = fmt.Errorf("%w: gzip: %w", errHeader, err)
	default:
		err = fmt.Errorf("%w: %w", errHeader, err)
	}
	return shardError(s.path, off, name, err)
}

// member reads the next member that belongs to a sample, skipping
// directories, other non-regular entries and files without a field name
// (as WebDataset does). It returns io.EOF at the end of the archive.
func (s *shard) member() (member, error) {
	for {
		// The previous member was read whole, so the next header starts at
		// the next 512-byte block.
		off := (s.cnt.n + 511) &^ 511
		hdr, err := s.tr.Next()
		if err == io.EOF {
			if s.file.err != nil {
				return member{}, &tensorfeed.Error{Path: s.path, Offset: -1, Record: -1, Err: fmt.Errorf("webdataset: %w", s.file.err)}
			}
			if s.cnt.n < off+512 {
				return member{}, shardError(s.path, off, "", fmt.Errorf("%w: no end-of-archive blocks", errTruncated))
			}
			s.endAt = off
			more, err := s.afterEnd()
			if err != nil {
				return member{}, err
			}
			if more {
				// Another archive follows (IgnoreZeros): its first header
				// was put back in front of the stream.
				s.tr = tar.NewReader(s.cnt)
				continue
			}
			return member{}, io.EOF
		}
		if err != nil {
			return member{}, s.fail(off, "", err)
		}
		if sparse(hdr) {
			// Reading a sparse member through archive/tar expands its holes,
			// whatever the bytes present: refuse it.
			return member{}, shardError(s.path, off, hdr.Name, fmt.Errorf("%w: sparse members are not supported", errHeader))
		}
		if hdr.Typeflag != tar.TypeReg {
			if _, err := io.Copy(io.Discard, s.tr); err != nil {
				return member{}, s.fail(off, hdr.Name, err)
			}
			continue
		}
		key, field := split(hdr.Name)
		if field == "" {
			if _, err := io.Copy(io.Discard, io.LimitReader(s.tr, hdr.Size)); err != nil {
				return member{}, s.fail(off, hdr.Name, err)
			}
			continue
		}
		if hdr.Size > s.cfg.maxMember {
			return member{}, shardError(s.path, off, hdr.Name, fmt.Errorf("%w: %d bytes, at most %d (MaxMemberBytes)", ErrTooLarge, hdr.Size, s.cfg.maxMember))
		}
		used := int64(0)
		if key == s.curKey {
			used = s.curBytes
		}
		if hdr.Size > s.cfg.maxSample-used {
			return member{}, shardError(s.path, off, hdr.Name, fmt.Errorf("%w: sample %q would hold more than %d bytes (MaxSampleBytes)", ErrTooLarge, key, s.cfg.maxSample))
		}
		if s.size >= 0 && hdr.Size > s.size-s.cnt.n {
			return member{}, shardError(s.path, off, hdr.Name, fmt.Errorf("%w: the member claims %d bytes, the file holds %d after its header", errTruncated, hdr.Size, s.size-s.cnt.n))
		}
		data, err := s.read(hdr.Size, key == s.curKey)
		if err != nil {
			return member{}, s.fail(off, hdr.Name, err)
		}
		return member{name: hdr.Name, key: key, field: field, offset: off, data: data}, nil
	}
}

// afterEnd reads what follows the end-of-archive blocks, to the end of
// the stream (so that a gzip stream's checksum and length are checked and
// a cut stream is not taken for a whole one). Zero blocks are padding, at
// most MaxMemberBytes of them. A block that is not zero starts another
// archive, as joining tar files end to end makes: under IgnoreZeros it is
// put back and afterEnd reports true, for the caller to read on; without,
// it is an error at its offset, so that the samples after it are never
// dropped silently.
func (s *shard) afterEnd() (bool, error) {
	var blk [512]byte
	var zeros int64
	for {
		at := s.cnt.n
		n, err := io.ReadFull(s.cnt, blk[:])
		if s.cnt.err != nil && s.cnt.err != io.EOF || err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			// The file or the gzip stream failed, or the gzip stream is cut.
			if s.cnt.err != nil && s.cnt.err != io.EOF {
				err = s.cnt.err
			}
			return false, s.fail(at, "", err)
		}
		if !zero(blk[:n]) {
			switch {
			case !s.cfg.ignoreZeros:
				return false, shardError(s.path, at, "", fmt.Errorf(
					"%w: the block at this offset is not zero padding: tar archives joined end to end? (webdataset.IgnoreZeros reads on, as tar --ignore-zeros does)", ErrAfterEnd))
			case n < len(blk):
				return false, shardError(s.path, at, "", fmt.Errorf("%w: the shard ends inside a header", errTruncated))
			}
			s.cnt.unread(blk[:])
			return true, nil
		}
		if err != nil {
			return false, nil // the end, maybe after a partial block of zeros
		}
		if zeros += int64(n); zeros > s.cfg.maxMember {
			return false, shardError(s.path, at, "", fmt.Errorf("%w: more than %d bytes of zero padding after the end-of-archive blocks (MaxMemberBytes)", ErrTooLarge, s.cfg.maxMember))
		}
	}
}

// zero tells whether b holds only zero bytes.
func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// sparse tells whether hdr is a GNU sparse file, old GNU or PAX style.
func sparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// read reads the n bytes of the current member, of the sample being read
// when same, else of the next. From a plain file, whose size bounds n, it
// allocates them at once; from a gzip stream it grows the buffer as bytes
// arrive (streamfile.AppendN), so that a header that lies costs no more
// than the data that is there. With ReuseBuffer the bytes go to the end
// of the sample's arena, which the next sample but one reuses.
func (s *shard) read(n int64, same bool) ([]byte, error) {
	chunk := 64 << 10
	if s.size >= 0 {
		chunk = 0 // n is bounded by the file's size
	}
	if !s.cfg.reuse {
		var buf []byte
		if s.size >= 0 || n <= 64<<10 {
			buf = make([]byte, 0, n)
		}
		return streamfile.AppendN(s.tr, buf, int(n), chunk)
	}
	a := s.cur
	if !same {
		a = 1 - s.cur
		s.arena[a] = s.arena[a][:0]
	}
	start := len(s.arena[a])
	var err error
	s.arena[a], err = streamfile.AppendN(s.tr, s.arena[a], int(n), chunk)
	// The member's slice ends at its length, so that appending to it
	// cannot write over the member after it.
	return s.arena[a][start:len(s.arena[a]):len(s.arena[a])], err
}

// split returns the key and the field of a member name: the path up to the
// first dot of its base name, and what follows that dot.
func split(name string) (key, field string) {
	base := path.Base(name)
	dot := strings.IndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 || strings.HasSuffix(name, "/") {
		return "", ""
	}
	cut := len(name) - len(base) + dot
	return name[:cut], name[cut+1:]
}

// next returns the next sample of the shard. err is structural (it ends
// the pass) or io.EOF at the end; bad is set when the sample is bad but
// the shard can be read on.
func (s *shard) next() (smp Sample, bad, err error) {
	if s.pendingErr != nil {
		return Sample{}, nil, s.pendingErr
	}
	if !s.hasPending {
		if s.eof {
			return Sample{}, nil, io.EOF
		}
		m, err := s.member()
		if err != nil {
			return Sample{}, nil, err
		}
		s.pending, s.hasPending = m, true
	}
	// The pending member was read into the arena after the current one
	// (see read): the sample it starts is read there.
	m := s.pending
	s.hasPending = false
	s.cur = 1 - s.cur
	if _, dup := s.seen[m.key]; dup {
		return Sample{}, nil, shardError(s.path, m.offset, m.name, fmt.Errorf("%w: key %q appears again after other keys", ErrSplit, m.key))
	}
	s.seen[m.key] = struct{}{}
	s.firstMember = m.name
	s.curKey, s.curBytes = m.key, int64(len(m.data))
	fields := s.fields
	if fields == nil {
		fields = make(map[string][]byte)
		if s.cfg.reuse {
			s.fields = fields
		}
	}
	clear(fields)
	fields[m.field] = m.data
	smp = Sample{Key: m.key, Shard: s.path, Offset: m.offset, Fields: fields}
	for {
		n, err := s.member()
		if err == io.EOF {
			s.eof = true
			break
		}
		if e, ok := err.(*tensorfeed.Error); ok && (e.Member != "" || errors.Is(e.Err, ErrAfterEnd)) {
			// The member that failed starts another sample, or the archive
			// ended before the data that is refused: this sample is whole,
			// and the error comes next.
			if k, _ := split(e.Member); e.Member == "" || k != smp.Key {
				s.pendingErr = err
				break
			}
		}
		if err != nil {
			return Sample{}, nil, err
		}
		if n.key != smp.Key {
			s.pending, s.hasPending = n, true
			break
		}
		s.curBytes += int64(len(n.data))
		if _, dup := smp.Fields[n.field]; dup {
			if bad == nil {
				bad = shardError(s.path, n.offset, n.name, fmt.Errorf("%w: %q", errDuplicateField, n.field))
			}
			continue
		}
		smp.Fields[n.field] = n.data
	}
	if bad == nil {
		for _, f := range s.cfg.required {
			if _, ok := smp.Fields[f]; !ok {
				bad = shardError(s.path, smp.Offset, s.firstMember, fmt.Errorf("%w: sample %q has no %q", errMissingField, smp.Key, f))
				break
			}
		}
	}
	return smp, bad, nil
}
