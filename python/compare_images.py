#!/usr/bin/python3
"""Served image records against torchvision's ImageFolder in a DataLoader, same photographs and augmentation.

    go run ./examples/photos -n 2000 out/photos && cd out
    ./tensorfeed im2rec list --recursive photos photos/ && ./tensorfeed im2rec pack photos photos/
    /usr/bin/python3 ../python/compare_images.py --rec photos.rec --folder photos

Both sides deliver one epoch of the JPEG photographs (112x112 RGB), shuffled, in batches
of 64: a random 96x96 crop, a random horizontal mirror, float32 CHW pixel values 0..255
and the class. The server (`tensorfeed serve --rec`; set TENSORFEED to a binary built with
`go build -tags turbojpeg` for libjpeg-turbo, as PIL uses) decodes with --threads goroutines;
the DataLoader decodes with PIL in num_workers 0 and 2. Each is timed for --epochs epochs, alternating, in one run; the
best epoch of each counts; the last line is `x torch DataLoader: R`.
"""

import argparse
import os
import sys
import time

import torch
import torch.utils.data as tud
import torchvision
from torchvision import transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tensorfeed_client import Feed  # noqa: E402
from tensorfeed_client.local import serve_locally  # noqa: E402


def epoch_time(batches, key_x, key_y):
    start = time.perf_counter()
    n = 0
    for b in batches:
        x, y = (b[key_x], b[key_y]) if isinstance(b, dict) else b
        assert x.dtype == torch.float32 and tuple(x.shape[1:]) == (3, 96, 96), (x.dtype, x.shape)
        n += len(y)
    return time.perf_counter() - start, n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rec", required=True, help="the image records (im2rec pack of --folder)")
    p.add_argument("--folder", required=True, help="the folder of class sub-folders of JPEG files")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--threads", type=int, default=2, help="the server's decoding goroutines")
    p.add_argument("--workers", default="0,2")
    args = p.parse_args()
    torch.set_num_threads(1)
    to_float = transforms.Lambda(lambda x: x.float())
    ds = torchvision.datasets.ImageFolder(args.folder, transform=transforms.Compose([
        transforms.RandomCrop(96), transforms.RandomHorizontalFlip(), transforms.PILToTensor(), to_float]))
    workers = [int(w) for w in args.workers.split(",")]
    rec = os.path.abspath(args.rec)
    with serve_locally(["--rec", rec, "--data-shape", "3,96,96", "--rand-crop", "--rand-mirror",
                        "--batch", "64", "--threads", str(args.threads)]) as address:
        feed = Feed(address, "rec", torch=True)
        best = {}
        for _ in range(args.epochs):
            t, n = epoch_time(feed, "data", "softmax_label")
            best["served"] = min(best.get("served", t), t)
            total = n
            for w in workers:
                loader = tud.DataLoader(ds, batch_size=64, shuffle=True, num_workers=w)
                t, n = epoch_time(loader, None, None)
                assert n == total, (n, total)
                best[w] = min(best.get(w, t), t)
    served = best.pop("served")
    print("tensorfeed serve: %.3fs per epoch, %.0f images/s" % (served, total / served))
    for w, t in sorted(best.items()):
        print("torch DataLoader (torchvision ImageFolder) num_workers=%d: %.3fs per epoch, %.0f images/s"
              % (w, t, total / t))
    print("x torch DataLoader: %.1f" % (min(best.values()) / served))


if __name__ == "__main__":
    main()
