package storage

import (
	"context"
	"io"

	"github.com/tensorfeed/tensorfeed/internal/scope"
)

// block is one range of the object, fetched ahead of the reader.
type block struct {
	buf  []byte
	n    int
	err  error
	done chan struct{}
}

// objectReader reads an object from the start to the end (readerFrom
// returns one), keeping up to n range
// requests of blockBytes in flight ahead of what has been read (ReadAhead).
// Its goroutines run from its creation to Close, which must be called.
// It is for one goroutine.
type objectReader struct {
	obj    *object
	g      *scope.Group
	ctx    context.Context
	queue  chan *block // fetched or being fetched, in order
	free   chan []byte // buffers handed back by the reader
	cur    *block
	pos    int
	lpos   int64 // the next offset of a local file
	start  int64 // where the reader starts
	err    error
	closed bool
}

// readerFrom returns a sequential reader of the object from byte off
// (clamped to [0, size]) to its end with read-ahead: up to n range requests
// of blockBytes in flight ahead of what has been read ([ReadAhead]). For a
// local file it reads the file directly (the OS reads ahead). ctx bounds
// its requests; Close, which must be called, stops them and waits for its
// goroutines (it does not close the object).
func (o *object) readerFrom(ctx context.Context, off int64) *objectReader {
	off = min(max(off, 0), o.size)
	r := &objectReader{obj: o, start: off, lpos: off}
	if o.local || off == o.size {
		return r
	}
	blocks := o.cfg.blocks
	if nb := int((o.size - off + int64(o.cfg.blockBytes) - 1) / int64(o.cfg.blockBytes)); nb < blocks {
		blocks = nb
	}
	r.g, r.ctx = scope.New(ctx)
	r.queue = make(chan *block, blocks)
	r.free = make(chan []byte, blocks)
	for range blocks {
		r.free <- nil
	}
	r.g.Go(r.produce)
	return r
}

// produce starts one fetch per block, in order, each once a buffer is free,
// and queues it for the reader.
func (r *objectReader) produce() error {
	defer close(r.queue)
	bs := int64(r.obj.cfg.blockBytes)
	for off := r.start; off < r.obj.size; off += bs {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.ctx.Done():
			return nil
		}
		n := int(min(bs, r.obj.size-off))
		if cap(buf) < n {
			buf = make([]byte, bs)
		}
		b := &block{buf: buf[:n], done: make(chan struct{})}
		r.g.Go(func() error {
			defer close(b.done)
			b.n, b.err = r.obj.readFull(r.ctx, b.buf, off)
			return nil
		})
		if !scope.Send(r.ctx, r.queue, b) {
			return nil
		}
	}
	return nil
}

// Read reads the next bytes of the object; io.EOF at its end.
func (r *objectReader) Read(p []byte) (int, error) {
	if r.obj.local {
		return r.readLocal(p)
	}
	if r.err != nil {
		return 0, r.err
	}
	if r.closed {
		return 0, objectError("read", r.obj.name, 0, -1, io.ErrClosedPipe)
	}
	if len(p) == 0 {
		return 0, nil
	}
	for r.cur == nil || r.pos == r.cur.n {
		if r.cur != nil {
			r.free <- r.cur.buf
			r.cur = nil
		}
		if r.queue == nil {
			r.err = io.EOF
			return 0, r.err
		}
		var b *block
		var ok bool
		select {
		case b, ok = <-r.queue:
		case <-r.ctx.Done():
			r.err = objectError("read", r.obj.name, 0, -1, context.Cause(r.ctx))
			return 0, r.err
		}
		if !ok {
			r.err = io.EOF
			return 0, r.err
		}
		select {
		case <-b.done:
		case <-r.ctx.Done():
			r.err = objectError("read", r.obj.name, 0, -1, context.Cause(r.ctx))
			return 0, r.err
		}
		if b.err != nil {
			r.err = b.err
			return 0, r.err
		}
		r.cur, r.pos = b, 0
	}
	n := copy(p, r.cur.buf[r.pos:r.cur.n])
	r.pos += n
	return n, nil
}

func (r *objectReader) readLocal(p []byte) (int, error) {
	if r.closed {
		return 0, objectError("read", r.obj.name, 0, -1, io.ErrClosedPipe)
	}
	n, err := r.obj.readAt(context.Background(), p, r.lpos)
	r.lpos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Close stops the read-ahead and waits for its requests to end. It does
// not close the object.
func (r *objectReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.g != nil {
		_ = r.g.Stop()
	}
	return nil
}
