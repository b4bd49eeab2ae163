#!/usr/bin/python3
"""Served MNIST batches into torch tensors against torch's DataLoader over the same data and transform.

    /usr/bin/python3 python/compare.py            # starts its own `tensorfeed serve --mnist data/mnist`

Both sides deliver one epoch of the 60,000 training digits to a loop, shuffled,
in batches of 128 torch tensors: "image" float32[128, 784] normalised as
(x/255 - 0.1307)/0.3081 and "label" int64[128]. The DataLoader reads a map-style
Dataset over the same IDX files held in memory as uint8 (what torchvision's MNIST
does), with the transform torchvision's ToTensor + Normalize would apply, per
sample, in torch; it runs with num_workers 0 and 2 (fresh workers each epoch, the
default). Each is timed for --epochs epochs, alternating, in this one run; the best
epoch of each counts, and the last line is `x torch DataLoader: R`, the best
DataLoader's epoch time over the served feed's.

The served pixels cross the socket as bytes with the normalisation's scale and
offset, and the client decodes them into a new float32 array per batch, in this
process and inside the timed loop: the float32 tensors the loop receives are
bit for bit those the server sends a client that asks for float32 (decode=False).
"""

import argparse
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tensorfeed_client import Feed  # noqa: E402
from tensorfeed_client.local import serve_locally  # noqa: E402

MEAN, STD = 0.1307, 0.3081


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = np.frombuffer(data, dtype=">u4", count=ndim, offset=4)
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims).copy()


class MNIST(tud.Dataset):
    """The training set in memory; each item transformed as ToTensor + Normalize + flatten."""

    def __init__(self, folder):
        self.images = read_idx(os.path.join(folder, "train-images-idx3-ubyte.gz"))
        self.labels = read_idx(os.path.join(folder, "train-labels-idx1-ubyte.gz")).astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i]).to(torch.float32).div_(255)  # ToTensor
        x = x.sub_(MEAN).div_(STD)  # Normalize
        return x.reshape(-1), int(self.labels[i])


def epoch_time(batches):
    """Seconds to receive one epoch, and its samples."""
    start = time.perf_counter()
    n = 0
    for b in batches:
        x, y = (b["image"], b["label"]) if isinstance(b, dict) else b
        assert x.dtype == torch.float32 and x.shape[1] == 784 and y.dtype == torch.int64
        n += len(y)
    return time.perf_counter() - start, n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--address", help="a running server (serving --mnist with --batch 128); else one is started")
    p.add_argument("--data", default="data/mnist")
    p.add_argument("--epochs", type=int, default=3, help="epochs timed for each way")
    p.add_argument("--workers", default="0,2", help="the DataLoader's num_workers to try")
    args = p.parse_args()
    torch.set_num_threads(1)
    ds = MNIST(args.data)
    workers = [int(w) for w in args.workers.split(",")]

    def run(address):
        feed = Feed(address, "mnist-train", torch=True)
        best = {}
        for _ in range(args.epochs):
            t, n = epoch_time(feed)
            assert n == 60000, n
            best["served"] = min(best.get("served", t), t)
            for w in workers:
                loader = tud.DataLoader(ds, batch_size=128, shuffle=True, num_workers=w)
                t, n = epoch_time(loader)
                assert n == 60000, n
                best[w] = min(best.get(w, t), t)
        return best

    if args.address:
        best = run(args.address)
    else:
        with serve_locally(["--mnist", args.data, "--batch", "128"]) as address:
            best = run(address)
    served = best.pop("served")
    print("tensorfeed serve: %.3fs per epoch, %.0f samples/s" % (served, 60000 / served))
    for w, t in sorted(best.items()):
        print("torch DataLoader num_workers=%d: %.3fs per epoch, %.0f samples/s" % (w, t, 60000 / t))
    print("x torch DataLoader: %.1f" % (min(best.values()) / served))


if __name__ == "__main__":
    main()
