package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/pipeline"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/tensor"
)

// Feed builds the pipeline that serves one client: the share of rank of a
// job of world ranks (source.ShardIndex splits an epoch exactly). It is
// called once per connection, so every client has a pipe of its own with
// its own position; data that every client reads (a table in memory) is
// loaded once, outside it. Its batches must have tensors of distinct names
// and element types numpy knows (all of package sample's).
type Feed func(world, rank int) (*pipeline.Pipe[*tensor.Batch], error)

// Option configures a Server.
type Option = option.Option[config]

type config struct {
	log     *zap.Logger
	affines map[string]map[string][2]float32 // feed -> tensor -> scale, offset
}

// Logger sets the logger of the server and of the passes it runs
// (tensorfeed.WithLogger): one entry per connection and per epoch. The
// default discards.
func Logger(l *zap.Logger) Option { return option.New(func(c *config) { c.log = l }) }

// Affine declares that the uint8 tensor named tensor of feed stands for
// the float32 values float32(x)*scale + offset (the product rounded to
// float32, then the sum): images kept as bytes, normalised on the way.
// A client that decodes (the Python client does) receives the bytes, a
// quarter of the float32 ones, with scale and offset, and computes the
// float32 tensor itself, bit for bit what the server computes for any
// other client. MNIST normalised as (x/255-0.1307)/0.3081:
//
//	serve.Affine("mnist", "image", 1/(255*0.3081), -0.1307/0.3081)
//
// A run fails when the tensor is not uint8.
func Affine(feed, tensor string, scale, offset float32) Option {
	return option.New(func(c *config) {
		if c.affines == nil {
			c.affines = map[string]map[string][2]float32{}
		}
		if c.affines[feed] == nil {
			c.affines[feed] = map[string][2]float32{}
		}
		c.affines[feed][tensor] = [2]float32{scale, offset}
	})
}

// Server serves named feeds to clients over stream sockets. Make one with
// New, give it listeners with Serve, stop it with Close.
type Server struct {
	feeds   map[string]Feed
	affines map[string]map[string][2]float32 // of Affine: feed -> tensor -> scale, offset
	log     *zap.Logger

	ctx    context.Context // cancelled by Close: ends every connection
	cancel context.CancelFunc

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	ranks     map[rankKey]int // (feed, rank) -> the world of the client that holds it
	wg        sync.WaitGroup  // Serve loops and connections
}

// rankKey names what one client at a time may read.
type rankKey struct {
	feed string
	rank int
}

// New returns a server of the feeds, by name. It reads nothing until a
// client connects.
func New(feeds map[string]Feed, opts ...Option) *Server {
	var c config
	option.Apply(&c, opts)
	if c.log == nil {
		c.log = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(tensorfeed.WithLogger(context.Background(), c.log))
	return &Server{feeds: maps(feeds), affines: c.affines, log: c.log, ctx: ctx, cancel: cancel,
		listeners: map[net.Listener]struct{}{}, ranks: map[rankKey]int{}}
}

func maps(m map[string]Feed) map[string]Feed {
	c := make(map[string]Feed, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Serve accepts connections on l and serves each on a goroutine of its
// own until Close; it then returns nil. Another error of Accept ends it
// too, with that error (l is closed then). Serve may be called with
// several listeners at once.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return nil
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()
	for {
		conn, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("serve: accept on %s: %w", l.Addr(), err)
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return nil
		}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(conn)
		}()
	}
}

// Close stops every Serve, ends every connection (a client mid-stream sees
// the connection close and may reconnect to another server with its
// state) and waits until their goroutines have returned.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// refusal is an error frame's code and message.
type refusal struct {
	code string
	err  error
}

func (r *refusal) Error() string { return r.err.Error() }

func refuse(code, format string, args ...any) error {
	return &refusal{code: code, err: fmt.Errorf(format, args...)}
}

// helloTimeout bounds how long a connection may take to say what it
// wants: a port scanner or a stuck client does not hold a goroutine.
const helloTimeout = 30 * time.Second

// writeBuffer is the socket send buffer a connection asks for (the
// system caps it: net.core.wmem_max on Linux).
const writeBuffer = 4 << 20

// handle serves one connection: its hello, then its run.
func (s *Server) handle(conn net.Conn) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	defer conn.Close()
	// Closing the connection unblocks a write to a consumer that stopped
	// reading when the server closes or the client goes away.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	log := s.log.With(zap.String("client", conn.RemoteAddr().String()))

	conn.SetReadDeadline(time.Now().Add(helloTimeout))
	var h hello
	if err := readFrame(conn, &h); err != nil {
		s.fail(conn, log, refuse(codeBadRequest, "serve: reading the hello: %v", err))
		return
	}
	conn.SetReadDeadline(time.Time{})
	log = log.With(zap.String("feed", h.Feed), zap.Int("world", h.World), zap.Int("rank", h.Rank))
	feed, err := s.check(&h)
	if err != nil {
		s.fail(conn, log, err)
		return
	}
	key := rankKey{h.Feed, h.Rank}
	s.mu.Lock()
	world, busy := s.ranks[key]
	if !busy {
		s.ranks[key] = h.World
	}
	s.mu.Unlock()
	if busy {
		s.fail(conn, log, refuse(codeRankBusy, "serve: feed %q rank %d is being read by another client (world %d): one client per rank; stop it, or give this client another rank", h.Feed, h.Rank, world))
		return
	}
	// The rank is released as soon as the run ends, before its last frame
	// is written: a client that reconnects on reading it finds it free.
	release := sync.OnceFunc(func() {
		s.mu.Lock()
		delete(s.ranks, key)
		s.mu.Unlock()
	})
	defer release()

	// The client sends nothing after its hello: the end of its stream
	// means it is gone, and the run stops at once rather than at its next
	// write.
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		io.Copy(io.Discard, conn)
		cancel()
	}()
	defer func() {
		conn.Close()
		<-gone
	}()

	// A socket buffer of several batches lets the run write ahead of a
	// client busy with the last batch, rather than wait for each read.
	if wb, ok := conn.(interface{ SetWriteBuffer(int) error }); ok {
		wb.SetWriteBuffer(writeBuffer)
	}
	log.Info("serve: client connected")
	start := time.Now()
	n, err := s.run(ctx, conn, feed, &h)
	release()
	if err == nil && ctx.Err() == nil {
		var end []byte
		if end, err = frame(header{Type: "end"}); err == nil {
			_, err = conn.Write(end)
		}
	}
	switch {
	case ctx.Err() != nil:
		log.Info("serve: client gone", zap.Int64("batches", n), zap.Duration("wall", time.Since(start)))
	case err != nil:
		s.fail(conn, log, err)
	default:
		log.Info("serve: run done", zap.Int64("batches", n), zap.Duration("wall", time.Since(start)))
	}
}

// check checks a hello and returns the feed it names.
func (s *Server) check(h *hello) (Feed, error) {
	switch {
	case h.Protocol != protocol:
		return nil, refuse(codeBadRequest, "serve: the client speaks protocol %d, this server %d: use the client of this tensorfeed", h.Protocol, protocol)
	case h.World < 1 || h.Rank < 0 || h.Rank >= h.World:
		return nil, refuse(codeBadRequest, "serve: rank %d of world %d: need world >= 1 and 0 <= rank < world", h.Rank, h.World)
	}
	feed, ok := s.feeds[h.Feed]
	if !ok {
		names := make([]string, 0, len(s.feeds))
		for name := range s.feeds {
			names = append(names, name)
		}
		slices.Sort(names)
		return nil, refuse(codeUnknownFeed, "serve: unknown feed %q; this server serves %s", h.Feed, quoteList(names))
	}
	return feed, nil
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return "no feed"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// fail sends the error frame of err (its code, or codeData for an error
// of the pipeline) and logs it.
func (s *Server) fail(conn net.Conn, log *zap.Logger, err error) {
	code := codeData
	var r *refusal
	switch {
	case errors.As(err, &r):
		code = r.code
	case errors.Is(err, pipeline.ErrCheckpoint):
		code = codeBadState
	case s.ctx.Err() != nil:
		code = codeClosing
	}
	log.Warn("serve: refused", zap.String("code", code), zap.Error(err))
	b, ferr := frame(header{Type: "error", Code: code, Error: err.Error()})
	if ferr == nil {
		conn.SetWriteDeadline(time.Now().Add(5 * time.Second)) // a client that reads nothing does not hold us
		conn.Write(b)
	}
}

// run builds the client's pipe, sends where the run starts and then every
// batch with the checkpoint after it (all but the final "end" frame), and
// returns how many batches it sent.
func (s *Server) run(ctx context.Context, conn net.Conn, feed Feed, h *hello) (int64, error) {
	pipe, err := feed(h.World, h.Rank)
	if err != nil {
		return 0, fmt.Errorf("serve: feed %q rank %d of %d: %w", h.Feed, h.Rank, h.World, err)
	}
	var epochs iter.Seq2[int, iter.Seq2[*tensor.Batch, error]]
	var first *pipeline.Checkpoint
	if st := bytes.TrimSpace(h.State); len(st) > 0 && !bytes.Equal(st, []byte("null")) {
		ck, err := pipeline.ParseCheckpoint(st)
		if err != nil {
			return 0, refuse(codeBadState, "serve: feed %q: the client's state: %v", h.Feed, err)
		}
		ck.Source = "the client's state"
		if epochs, err = pipe.EpochsFrom(ctx, ck, h.EndEpoch); err != nil {
			return 0, refuse(codeBadState, "serve: feed %q: %v", h.Feed, err)
		}
		first = ck
	} else {
		if first, err = pipe.CheckpointAt(ctx, 0, 0); err != nil {
			return 0, err
		}
		epochs = pipe.Epochs(ctx, h.EndEpoch)
	}
	w := &writer{conn: conn, pipe: pipe, template: *first, affines: s.affines[h.Feed], decode: h.Decode}
	if err := w.send(header{Type: "ready", Epoch: first.Epoch, Step: first.Step}, first.Epoch, first.Step, nil); err != nil {
		return 0, err
	}
	var sent int64
	for e, pass := range epochs {
		for b, err := range pass {
			if err != nil {
				return sent, err
			}
			_, step := pipe.Position()
			err := w.batch(e, step, b)
			b.Release()
			if err != nil {
				return sent, err
			}
			sent++
		}
		if ctx.Err() != nil {
			return sent, ctx.Err()
		}
		// The state after a whole epoch is the start of the next, so that
		// a client's next run begins there.
		if err := w.send(header{Type: "epoch_end", Epoch: e}, e+1, 0, nil); err != nil {
			return sent, err
		}
	}
	return sent, ctx.Err()
}

// writer writes a run's frames.
type writer struct {
	conn     net.Conn
	pipe     *pipeline.Pipe[*tensor.Batch]
	template pipeline.Checkpoint   // the run's first checkpoint: its data digest is every later one's
	affines  map[string][2]float32 // the feed's tensors declared with Affine
	decode   bool                  // the client decodes them: send their bytes
	bufs     net.Buffers
	npy      map[string][]byte    // the .npy header of each tensor's last dtype and shape
	f32      map[string][]float32 // each declared tensor decoded, for a client that does not decode
}

// state returns the checkpoint JSON of the pipe after step items of
// epoch. It is the run's first checkpoint with another position: the data
// was identified once, at the start of the run, rather than once a batch.
func (w *writer) state(epoch int, step int64) ([]byte, error) {
	st, err := w.pipe.StateAt(epoch, step)
	if err != nil {
		return nil, err
	}
	c := w.template
	// The template's fingerprint is st's: a fingerprint is of the kinds of
	// the pipe's steps, which every state of the pipe shares.
	c.Epoch, c.Step, c.State = epoch, step, st
	return c.Encode()
}

// send writes a frame whose payload is the checkpoint at (epoch, step)
// followed by parts.
func (w *writer) send(h header, epoch int, step int64, parts [][]byte) error {
	st, err := w.state(epoch, step)
	if err != nil {
		return err
	}
	h.StateBytes = len(st)
	f, err := frame(h)
	if err != nil {
		return err
	}
	w.bufs = append(append(w.bufs[:0], f, st), parts...)
	_, err = w.bufs.WriteTo(w.conn) // writev: the tensors go from their memory to the socket
	return err
}

// batch writes the frame of b, the step-th batch of epoch, with its
// tensors as .npy files.
func (w *writer) batch(epoch int, step int64, b *tensor.Batch) error {
	if w.npy == nil {
		w.npy = map[string][]byte{}
	}
	h := header{Type: "batch", Epoch: epoch, Step: step, Padded: b.Padded}
	parts := make([][]byte, 0, 2*(len(b.Data)+len(b.Label)))
	for _, ts := range [][]tensor.Tensor{b.Data, b.Label} {
		for i := range ts {
			t := &ts[i]
			if slices.ContainsFunc(h.Arrays, func(a array) bool { return a.Name == t.Name }) {
				return fmt.Errorf("serve: two tensors of a batch are named %q: a client gets a dict by name", t.Name)
			}
			desc, data, err := w.wire(t)
			if err != nil {
				return err
			}
			dt := desc.DType
			hdr := w.npy[t.Name]
			if want := npyHeader(dt, t.Shape); !bytes.Equal(hdr, want) {
				hdr = want
				w.npy[t.Name] = want
			}
			desc.Shape, desc.NPY, desc.NBytes = t.Shape, len(hdr), len(data)
			h.Arrays = append(h.Arrays, desc)
			parts = append(parts, hdr, data)
		}
	}
	return w.send(h, epoch, step, parts)
}

// wire returns how t is sent: its description (name, dtype, affine) and
// its data. A tensor declared with Affine is sent as its bytes to a client
// that decodes, and decoded here for any other.
func (w *writer) wire(t *tensor.Tensor) (array, []byte, error) {
	a := array{Name: t.Name}
	af, declared := w.affines[t.Name]
	if !declared {
		dt, err := npyDType(t.DType)
		if err != nil {
			return a, nil, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		a.DType = dt
		return a, bytesOf(t), nil
	}
	if t.DType != sample.Uint8 {
		return a, nil, fmt.Errorf("serve: tensor %q is %v, but serve.Affine declares it uint8", t.Name, t.DType)
	}
	if w.decode {
		a.DType, a.Affine = "|u1", &af
		return a, t.U8, nil
	}
	if w.f32 == nil {
		w.f32 = map[string][]float32{}
	}
	// One buffer per tensor, reused: the frame is written before the next
	// batch is decoded.
	f := slices.Grow(w.f32[t.Name][:0], len(t.U8))[:len(t.U8)]
	w.f32[t.Name] = f
	decode(f, t.U8, af[0], af[1])
	a.DType, _ = npyDType(sample.Float32)
	return a, bytesOf(&tensor.Tensor{DType: sample.Float32, F32: f}), nil
}

// decode sets dst[i] to float32(src[i])*scale + offset, rounding the
// product to float32 before the sum: the explicit conversion keeps the
// compiler from fusing them into one multiply-add, so that the result is
// what numpy computes in two float32 operations on the client. The 256
// values are computed once and looked up.
func decode(dst []float32, src []uint8, scale, offset float32) {
	var table [256]float32
	for x := range table {
		table[x] = float32(float32(x)*scale) + offset
	}
	for i, x := range src {
		dst[i] = table[x]
	}
}

// Listen listens on addr: "unix:PATH" for a Unix socket (a stale socket
// file of a server that died is replaced; any other file there is an
// error), or "HOST:PORT" for TCP, where HOST must be a loopback address
// ("127.0.0.1" when empty: ":5555"). The batches are not encrypted nor
// their clients authenticated: to serve other machines, call net.Listen
// yourself, on a network you trust.
func Listen(addr string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		l, err := net.Listen("unix", path)
		if err == nil || !stale(path) {
			return l, err
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
		return net.Listen("unix", path)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("serve: address %q: want unix:PATH or HOST:PORT: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("serve: address %q is not a loopback address: batches would be served unauthenticated to the network", addr)
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// stale reports whether path is a Unix socket nobody listens on.
func stale(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return false
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return true
}
