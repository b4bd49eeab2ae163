"""A client of `tensorfeed serve`: batches of a tensorfeed pipeline as dicts of numpy arrays.

    from tensorfeed_client import Feed

    feed = Feed("unix:/tmp/tensorfeed.sock", "mnist-train", world=2, rank=0)
    for epoch in range(3):
        for batch in feed:                  # the rest of the current epoch
            x, y = batch["image"], batch["label"]
    state = feed.state_dict()               # tensorfeed's checkpoint JSON, as a dict

Iterating a Feed serves the rest of its current epoch, as iterating a
torch DataLoader serves one epoch; after a whole epoch the state is the
start of the next. ``state_dict()`` is the pipeline's checkpoint after the
last batch the loop received (torchdata's StatefulDataLoader semantics), so
``load_state_dict`` in a new process continues the identical stream. When the
connection breaks mid-epoch (the server restarted), the client reconnects
with that state: no batch is lost or repeated.

Only numpy is needed; ``torch=True`` yields torch tensors (torch.from_numpy,
no copy) and ``TorchFeed`` wraps a Feed as a torch IterableDataset.

Tensors the server declares as bytes with a scale and offset (``tensorfeed serve
--mnist``'s normalised "image") cross the socket as uint8, a quarter of the
float32 bytes, and are decoded here into a new float32 array per batch,
``float32(x) * scale + offset`` in float32: bit for bit what the server sends a
client that asks for float32 (``decode=False``).
"""

import json
import math
import socket
import struct
import time

import numpy as np

__all__ = ["Feed", "TensorfeedError", "TorchFeed"]

PROTOCOL = 2
_MAX_HEADER = 1 << 20


class TensorfeedError(Exception):
    """An error the server reported, or a connection that could not be restored.

    ``code`` says which: "unknown_feed", "bad_request", "bad_state", "rank_busy",
    "data" (the pipeline failed: a bad file), "closing", or "unreachable" (the
    server could not be reached after the retries).
    """

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Broken(Exception):
    """The connection broke: reconnect with the state of the last batch delivered."""


def _connect(address, timeout):
    if isinstance(address, str) and address.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target = address[len("unix:"):]
    else:
        if isinstance(address, str):
            host, _, port = address.rpartition(":")
            target = (host or "127.0.0.1", int(port))
        else:
            target = tuple(address)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        s.settimeout(timeout)
        s.connect(target)
        s.settimeout(None)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    except BaseException:
        s.close()
        raise
    return s


# The stream is read through a buffer this large: a batch's header, state
# and small arrays come in one system call; large arrays are read straight
# into their memory.
_READ_BUFFER = 1 << 16


def _recv_into(stream, view):
    """Fill view from stream (a buffered reader of the socket); a short read is a broken connection."""
    got, n = 0, len(view)
    while got < n:
        k = stream.readinto(view[got:])
        if not k:
            raise _Broken("the server closed the connection mid-message")
        got += k


def _recv(stream, n):
    b = stream.read(n)  # a buffered reader returns n bytes, unless the stream ended
    if len(b) != n:
        raise _Broken("the server closed the connection mid-message")
    return b


def _frame(stream):
    (n,) = struct.unpack("<I", _recv(stream, 4))
    if n > _MAX_HEADER:
        raise TensorfeedError("bad_request", "a frame header of %d bytes: not a tensorfeed server" % n)
    return json.loads(_recv(stream, n))


def _decode(raw, shape, affine):
    """A new float32 array of shape: float32(raw) * scale + offset, each rounded to float32."""
    out = raw.astype(np.float32).reshape(shape)
    out *= np.float32(affine[0])
    out += np.float32(affine[1])
    return out


class Feed:
    """One client of a `tensorfeed serve` feed.

    address: "unix:/path/to.sock", "host:port" or (host, port).
    feed: the feed's name ("mnist-train").
    world, rank: this process's share, when several trainers read the feed;
        each rank gets an exact, disjoint part of every epoch.
    torch: yield torch tensors (torch.from_numpy: no copy) instead of arrays.
    decode: receive the tensors the server declares as bytes with a scale and
        offset as those bytes and decode them here (a quarter of the bytes
        on the socket); False asks the server for float32 (the same values).
    retries, retry_delay: how often, and after how long a first pause (doubled
        each time, up to 2 s), a broken connection is re-established before
        TensorfeedError("unreachable") is raised.
    busy_wait: seconds to wait for a rank still held by a client that just
        died (the server notices within milliseconds) before "rank_busy".
    """

    def __init__(self, address, feed, world=1, rank=0, torch=False, retries=8, retry_delay=0.05,
                 busy_wait=2.0, connect_timeout=10.0, decode=True):
        if world < 1 or not 0 <= rank < world:
            raise ValueError("rank %d of world %d: need world >= 1 and 0 <= rank < world" % (rank, world))
        self.address, self.feed, self.world, self.rank = address, feed, world, rank
        self.retries, self.retry_delay, self.busy_wait = retries, retry_delay, busy_wait
        self.connect_timeout = connect_timeout
        self.decode = bool(decode)
        self._raw = np.empty(0, np.uint8)  # the bytes of the array being decoded, reused
        self._torch = None
        if torch:
            import torch as _t
            self._torch = _t
        self._state = None  # raw JSON bytes of the checkpoint after the last batch delivered
        self.padded = 0  # padding rows of the last batch (its last rows)
        self.reconnects = 0

    # --- state -------------------------------------------------------------

    def state_dict(self):
        """The checkpoint after the last batch the loop received, as a dict ({} before any)."""
        return json.loads(self._state) if self._state else {}

    def load_state_dict(self, state):
        """Continue from a state_dict(), in this process or another; {} starts over."""
        if state and not isinstance(state, dict):
            raise TypeError("a state is the dict state_dict() returned, not %r" % type(state))
        self._state = json.dumps(state).encode() if state else None

    @property
    def position(self):
        """(epoch, batches of it received) of the state."""
        st = self.state_dict()
        return st.get("epoch", 0), st.get("step", 0)

    # --- iteration -----------------------------------------------------------

    def __iter__(self):
        """Serve the rest of the current epoch."""
        end = self.position[0] + 1
        delivered = 0
        failures = 0
        busy_since = None
        last_err = None
        while True:
            try:
                sock, stream = self._hello(end)
            except TensorfeedError as e:
                if e.code != "rank_busy":
                    raise
                busy_since = busy_since or time.monotonic()
                if time.monotonic() - busy_since > self.busy_wait:
                    raise
                time.sleep(0.05)
                continue
            except (OSError, _Broken, ValueError) as e:
                sock, last_err = None, e
            if sock is not None:
                busy_since = None
                try:
                    for batch in self._batches(stream):
                        failures, delivered = 0, delivered + 1
                        yield batch
                    if delivered == 0 and self.position[0] == end:
                        # The state was the end of its epoch (a checkpoint taken
                        # after its last batch): this iteration is the next epoch.
                        end += 1
                        continue
                    return
                except (OSError, _Broken, ValueError) as e:
                    last_err = e
                finally:
                    stream.close()
                    sock.close()
            failures += 1
            if failures > self.retries:
                raise TensorfeedError(
                    "unreachable",
                    "tensorfeed serve at %s: %d tries failed (last: %s); the state of the last batch "
                    "delivered is kept: load it into a new Feed when the server is back"
                    % (self.address, failures, last_err))
            self.reconnects += 1
            time.sleep(min(self.retry_delay * 2 ** (failures - 1), 2.0))

    def _hello(self, end):
        sock = _connect(self.address, self.connect_timeout)
        try:
            hello = {"protocol": PROTOCOL, "feed": self.feed, "world": self.world, "rank": self.rank,
                     "end_epoch": end, "decode": self.decode, "state": None}
            body = json.dumps(hello).encode()
            if self._state:
                # the checkpoint goes back byte for byte, as the server sent it
                body = body[:-len(b"null}")] + self._state + b"}"
            sock.sendall(struct.pack("<I", len(body)) + body)
            stream = sock.makefile("rb", buffering=_READ_BUFFER)
            try:
                h = _frame(stream)
                if h["type"] == "error":
                    raise TensorfeedError(h.get("code", ""), h.get("error", ""))
                if h["type"] != "ready":
                    raise _Broken("the server answered %r to the hello" % h["type"])
                state = _recv(stream, h["state_bytes"])
            except BaseException:
                stream.close()
                raise
            if not self._state:
                self._state = state
            return sock, stream
        except BaseException:
            sock.close()
            raise

    def _batches(self, stream):
        to_torch = self._torch.from_numpy if self._torch is not None else None
        while True:
            h = _frame(stream)
            kind = h["type"]
            if kind == "batch":
                state = _recv(stream, h["state_bytes"])
                out = {}
                for a in h["arrays"]:
                    _recv(stream, a["npy"])  # the .npy header: the JSON header said it already
                    shape, dtype, affine = a["shape"], np.dtype(a["dtype"]), a.get("affine")
                    size = dtype.itemsize * math.prod(shape)
                    if a["nbytes"] != size or (affine is not None and dtype != np.uint8):
                        raise TensorfeedError("bad_request", "array %r: %d bytes for %s%s%s"
                                              % (a["name"], a["nbytes"], a["dtype"], shape,
                                                 " with an affine" if affine is not None else ""))
                    if affine is None:
                        arr = np.empty(shape, dtype=dtype)
                        _recv_into(stream, memoryview(arr.reshape(-1).view(np.uint8)))
                    else:
                        if len(self._raw) < size:
                            self._raw = np.empty(size, np.uint8)
                        raw = self._raw[:size]
                        _recv_into(stream, memoryview(raw))
                        arr = _decode(raw, shape, affine)
                    out[a["name"]] = to_torch(arr) if to_torch else arr
                # delivered: the state moves past this batch as the loop receives it
                self._state, self.padded = state, h.get("padded", 0)
                yield out
            elif kind == "epoch_end":
                self._state = _recv(stream, h["state_bytes"])
            elif kind == "end":
                return
            elif kind == "error":
                raise TensorfeedError(h.get("code", ""), h.get("error", ""))
            else:
                raise _Broken("unknown frame %r" % kind)


def _torch_feed():
    try:
        import torch.utils.data as tud
    except ImportError:  # torch is optional
        return None

    class TorchFeed(tud.IterableDataset):
        """A Feed as a torch IterableDataset of dicts of tensors: use it with
        DataLoader(TorchFeed(...), batch_size=None, num_workers=0) (the server batches and
        prefetches), or iterate it directly. Arguments are Feed's."""

        def __init__(self, *args, **kwargs):
            super().__init__()
            kwargs["torch"] = True
            self.feed = Feed(*args, **kwargs)

        def __iter__(self):
            if tud.get_worker_info() is not None:
                raise RuntimeError("TorchFeed in a DataLoader worker: use num_workers=0; the server "
                                   "assembles and prefetches the batches, and each worker would hold the same rank")
            return iter(self.feed)

        def state_dict(self):
            return self.feed.state_dict()

        def load_state_dict(self, state):
            self.feed.load_state_dict(state)

    return TorchFeed


TorchFeed = _torch_feed()
