// Package streamfile is the one core of the streaming-file readers (CSV,
// RecordIO, TFRecord, WebDataset): the part of a pass that is not about
// the format. A format reads its records; a [Stream] counts them, puts
// where each record ends in the pass's ring of record ends (internal/marks),
// drops the records a replay state skips, counts bad records under the
// reader's policy, and turns a checkpoint into an offset state and back.
//
// # States
//
// A reader's state after the consumer received n records is either an
// offset state, {kind, counters}: the counters the format chose (a file, a
// byte offset, line and record counts) with the count of records of the
// epoch's pass among them, built by the format from the words its pass put
// after that record; or, when the pass no longer remembers where record n
// ended, the replay state {kind, [n]}, which resumes by reading the pass
// from its start and dropping its first n records. Both are exact. A state
// of another reader (another kind, other counters) is a *source.StateError.
//
// A reader of a list of files keeps the file and the byte offset first,
// {kind, [file, offset, n, ...]}: [Stream.StartIn] and [ListPaths] read
// those for its file loop.
package streamfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/dataid"
	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/skipcount"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Stream is the resumable part of a streaming reader: where its passes
// begin and the ends of the records its passes read. A reader keeps one
// and makes a new one for each resumed reader ([Stream.Resume]); the
// value is copied only before its first pass.
type Stream struct {
	name, unit string // "recordio", "records": in errors
	kind       string // the reader's state kind
	width      int    // words the format puts per record
	// From says where the passes begin: at the start of the epoch's pass,
	// dropping From.Skip records, or, with From.Exact, after From.N
	// records at the position At.
	From marks.From
	// At holds, with From.Exact, the counters of the offset state the
	// passes resume from; the format reads its position from them.
	At     []int64
	epochs *source.Epochs
	marks  *marks.Marks
}

// New returns the stream of a new reader named name (the prefix of its
// errors) that counts unit ("records", "rows", "samples"), whose states
// have kind and whose passes put width words per record (see
// [marks.Ring.Put]).
func New(name, unit, kind string, width int) Stream {
	return Stream{name: name, unit: unit, kind: kind, width: width, epochs: new(source.Epochs), marks: marks.New(width)}
}

// Kind returns the kind of the reader's states.
func (s *Stream) Kind() string { return s.kind }

// StateAt returns the state of the pass of epoch after its consumer
// received n records. Where the pass still remembers where that record
// ended, it is the offset state {kind, pos(abs, w)}: abs is the record's
// count in the epoch's pass and w the words the pass put after it; else it
// is the replay state {kind, [abs]}. It reads nothing.
func (s *Stream) StateAt(epoch int, n int64, pos func(abs int64, w []int64) []int64) (source.State, error) {
	if n < 0 {
		return source.State{}, fmt.Errorf("%s: state after %d %s: negative count", s.name, n, s.unit)
	}
	abs := s.From.Count(n)
	var w [4]int64
	if s.marks.At(epoch, abs, w[:s.width]) {
		return source.State{Kind: s.kind, Pos: pos(abs, w[:s.width])}, nil
	}
	return source.State{Kind: s.kind, Pos: []int64{abs}}, nil
}

// Resume returns the stream of a reader whose passes continue the pass st
// was taken from: a replay state drops its count of records; an offset
// state has one of counts counters (the first is the one named in errors),
// none negative, and its count of records at nAt; the format checks what
// else its counters must be. A state of another reader is a
// *source.StateError.
func (s *Stream) Resume(st source.State, nAt int, counts ...int) (Stream, error) {
	from, replay, err := marks.Replay(st, s.kind)
	if err != nil {
		return Stream{}, err
	}
	r := New(s.name, s.unit, s.kind, s.width)
	if replay {
		r.From = from
		return r, nil
	}
	want := counts[0]
	if slices.Contains(counts, len(st.Pos)) {
		want = len(st.Pos)
	}
	if err := st.Check(s.kind, want, 0); err != nil {
		return Stream{}, err
	}
	r.From = marks.From{Exact: true, N: st.Pos[nAt]}
	r.At = slices.Clone(st.Pos)
	return r, nil
}

// Refuse returns the error that refuses the offset state the passes
// resume from, once a pass finds that it cannot be (an offset past the end
// of its file, a file that the list does not hold): a *source.StateError
// that names the counter at fault (field, "pos[1]") and why.
func (s *Stream) Refuse(field, why string) error {
	return &source.StateError{Want: s.kind, Got: source.State{Kind: s.kind, Pos: s.At}, Field: field, Why: why}
}

// StartIn reports, for a reader of a list of files, where its passes
// start in file i of the list: read is false for a file before the one an
// offset state resumes in, and exact is true, with off the state's offset,
// for that file.
func (s *Stream) StartIn(i int) (off int64, exact, read bool) {
	if !s.From.Exact {
		return 0, false, true
	}
	switch file := int(s.At[0]); {
	case i < file:
		return 0, false, false
	case i == file:
		return s.At[1], true, true
	}
	return 0, false, true
}

// ListPaths expands the list of files of a pass (source.Paths with ext)
// and refuses an offset state whose file is not in it, as its counter
// pos[0]; with end, the index one past the last file is in it too (a pass
// that ended there). noun names a file in the error ("file", "shard").
func (s *Stream) ListPaths(ctx context.Context, list, ext string, opts []storage.Option, noun string, end bool) ([]string, error) {
	paths, err := source.Paths(ctx, list, ext, opts...)
	if err != nil || !s.From.Exact {
		return paths, err
	}
	if file := s.At[0]; file > int64(len(paths)) || !end && file == int64(len(paths)) {
		return nil, s.Refuse("pos[0]", fmt.Sprintf("%s %d of %d", noun, file, len(paths)))
	}
	return paths, nil
}

// Pass is one pass of a stream: the count of its records, its ring of
// record ends and the count of its bad records. The goroutine of the pass
// uses it.
type Pass struct {
	Ctx context.Context // the pass's context, with its epoch
	Log *zap.Logger     // the logger of Ctx
	// N is the count of records of the epoch's pass read so far: a
	// resumed pass starts from the count of its state.
	N     int64
	exact bool
	skip  int64 // records a replay drops
	ring  *marks.Ring
	skips *skipcount.Counter
	done  <-chan struct{}
}

// Start begins a pass of s: it starts the pass's epoch and ring, and its
// count of bad records under no policy (see [Pass.OnBad]). A pass from an
// offset state then puts its start position with [Pass.Mark].
func (s *Stream) Start(ctx context.Context) *Pass {
	ctx, epoch := s.epochs.Start(ctx)
	log := tensorfeed.Logger(ctx)
	return &Pass{Ctx: ctx, Log: log, N: s.From.N, exact: s.From.Exact, skip: s.From.Skip,
		ring: s.marks.Start(epoch, s.From.Low()), skips: (*skipcount.Policy)(nil).Pass(-1, log), done: ctx.Done()}
}

// OnBad sets the pass's bad-record policy. A pass resumed from an offset,
// after skipped bad records before it, judges the policy's fraction over
// the whole pass, as a replay does (source.SkipPolicy.PassFrom).
func (p *Pass) OnBad(policy *source.SkipPolicy, skipped int64) {
	if p.exact {
		p.skips = (*skipcount.Policy)(policy).PassFrom(-1, p.N+skipped, skipped, p.Log)
		return
	}
	p.skips = (*skipcount.Policy)(policy).Pass(-1, p.Log)
}

// Mark puts words, the position after the first N records, in the ring:
// the start of a pass resumed from an offset.
func (p *Pass) Mark(words ...int64) { p.ring.Put(p.N, words...) }

// Stopped returns the context's error once the pass's context is done,
// else nil. A pass asks before each record.
func (p *Pass) Stopped() error {
	if p.done == nil {
		return nil
	}
	select {
	case <-p.done:
		return p.Ctx.Err()
	default:
		return nil
	}
}

// Good counts a good record and puts words, where the record after it
// starts, in the ring after it (see [marks.Ring.Put]; N is then its count).
// It reports whether the record goes to the consumer: a replay drops the
// first records of its pass.
func (p *Pass) Good(words ...int64) bool {
	p.skips.Good()
	p.N++
	p.ring.Put(p.N, words...)
	return p.N > p.skip
}

// Bad counts a bad record: nil when the policy skips it, else the error
// that ends the pass.
func (p *Pass) Bad(err error) error { return p.skips.Bad(err) }

// Skipped returns how many bad records the pass has skipped, those before
// a resumed pass's offset included.
func (p *Pass) Skipped() int64 { return p.skips.Skipped() }

// End returns the policy's error at the end of the pass, if any.
func (p *Pass) End() error { return p.skips.End() }

// NameHash returns a short hash of a path's base name, by which a state
// names the file it was taken of while the file may move to another
// directory or bucket.
func NameHash(p string) string { return fmt.Sprintf("%08x", hashNames(p)) }

// ListHash returns the number of elements of a ';' list and a hash of
// their base names, in order, by which a state names the files it was
// taken of.
func ListHash(list string) (int, string) {
	elems := strings.Split(list, ";")
	h := uint32(offset32)
	for _, p := range elems {
		h = hashBase(h, p)
		h *= prime32 // a 0 byte between names
	}
	return len(elems), fmt.Sprintf("%08x", h)
}

// FNV-1a, which the states of earlier versions used too.
const (
	offset32 = 2166136261
	prime32  = 16777619
)

func hashNames(p string) uint32 { return hashBase(offset32, p) }

func hashBase(h uint32, p string) uint32 {
	for _, c := range []byte(path.Base(strings.ReplaceAll(p, `\`, "/"))) {
		h = (h ^ uint32(c)) * prime32
	}
	return h
}

// Identity returns the identity of the files that list names (source.Paths
// with ext): their base names, sizes and modification times or ETags
// (source.Identifier).
func Identity(ctx context.Context, list, ext string, opts []storage.Option) (string, error) {
	paths, err := source.Paths(ctx, list, ext, opts...)
	if err != nil {
		return "", err
	}
	return dataid.Files(ctx, paths, opts...)
}

// bufSize is the buffer of a record reader's input: large enough that a
// read from storage (a file, a range request) moves many small records.
const bufSize = 64 << 10

// Buffered returns r buffered for a record reader (unless r already is a
// *bufio.Reader), so r must not be read otherwise afterwards.
func Buffered(r io.Reader) *bufio.Reader {
	if br, ok := r.(*bufio.Reader); ok {
		return br
	}
	return bufio.NewReaderSize(r, bufSize)
}

// AppendN appends the next n bytes of r to buf and returns the result,
// with what was read when r fails or ends first (then with the error of
// io.ReadFull). It reads at most chunk bytes (no bound when chunk <= 0)
// ahead of the bytes that arrived, and grows buf by doubling, bounded by
// what the record still needs: memory follows the data that actually
// arrives, so a corrupt length cannot allocate its size for a small file.
func AppendN(r io.Reader, buf []byte, n, chunk int) ([]byte, error) {
	for got := 0; got < n; {
		c := n - got
		if chunk > 0 {
			c = min(c, chunk)
		}
		if cap(buf)-len(buf) < c {
			buf = slices.Grow(buf, min(max(len(buf), c), n-got))
		}
		m, err := io.ReadFull(r, buf[len(buf):len(buf)+c])
		buf = buf[:len(buf)+m]
		got += m
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// OneRecord reports whether err is about one record only, which a skip
// policy may skip: it wraps bad (the format's error for bad data) and none
// of structural, the errors after which the reader cannot trust what
// follows (a broken framing, a limit, files out of step).
func OneRecord(err, bad error, structural ...error) bool {
	if !errors.Is(err, bad) {
		return false
	}
	for _, s := range structural {
		if errors.Is(err, s) {
			return false
		}
	}
	return true
}
