#!/usr/bin/python3
"""Train examples/mnist's 784-128-10 perceptron with PyTorch on batches served by tensorfeed.

    /usr/bin/python3 python/train_mnist.py                 # starts its own `tensorfeed serve --mnist data/mnist`
    /usr/bin/python3 python/train_mnist.py --address unix:/tmp/tensorfeed.sock   # a server you started

The network, initialisation, optimizer and schedule are examples/mnist's
(examples/internal/nn): He-initialised Linear(784, 128), ReLU, Linear(128, 10),
softmax cross-entropy, Adam with lr 2e-3 times 0.4 after every epoch, batch 64,
3 epochs, the incomplete last batch dropped. The last line is `test accuracy: X`.
--checkpoint FILE saves the feed's state after every epoch with the model;
--resume FILE continues from it, the stream exactly where it was.
"""

import argparse
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tensorfeed_client import Feed  # noqa: E402
from tensorfeed_client.local import serve_locally  # noqa: E402


def model(hidden, seed):
    torch.manual_seed(seed)
    first, second = torch.nn.Linear(784, hidden), torch.nn.Linear(hidden, 10)
    with torch.no_grad():
        for layer, gain in ((first, math.sqrt(2)), (second, 1.0)):
            layer.weight.normal_(0, gain / math.sqrt(layer.in_features))
            layer.bias.zero_()
    return torch.nn.Sequential(first, torch.nn.ReLU(), second)


def train(address, args):
    net = model(args.hidden, args.seed)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=args.lr_decay)
    feed = Feed(address, "mnist-train", torch=True)
    if args.resume:
        ck = torch.load(args.resume)
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        sched.load_state_dict(ck["scheduler"])
        feed.load_state_dict(ck["feed"])
        print("resumed at epoch %d step %d" % feed.position)
    loss_fn = torch.nn.CrossEntropyLoss()
    while feed.position[0] < args.epochs:
        epoch = feed.position[0]
        start, total, n, samples = time.perf_counter(), 0.0, 0, 0
        net.train()
        for b in feed:
            x, y = b["image"], b["label"]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            total, n, samples = total + loss.item(), n + 1, samples + len(y)
        sched.step()
        dt = time.perf_counter() - start
        print("epoch %d/%d: loss %.4f, %d samples in %.2fs: %.0f samples/s"
              % (epoch + 1, args.epochs, total / max(n, 1), samples, dt, samples / dt), flush=True)
        if args.checkpoint:
            torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict(), "feed": feed.state_dict()}, args.checkpoint)
    net.eval()
    right = count = 0
    with torch.no_grad():
        for b in Feed(address, "mnist-test", torch=True):
            right += (net(b["image"]).argmax(1) == b["label"]).sum().item()
            count += len(b["label"])
    print("test accuracy: %.4f" % (right / count))
    return right / count


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--address", help="a running server's address (unix:PATH or HOST:PORT); else one is started")
    p.add_argument("--data", default="data/mnist", help="the MNIST folder, for the server this script starts")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch", type=int, default=64, help="for the server this script starts")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--lr-decay", type=float, default=0.4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: spinning OpenMP threads cost more than they give on a small, busy machine)")
    p.add_argument("--checkpoint", help="save model, optimizer and feed state here after every epoch")
    p.add_argument("--resume", help="continue from a --checkpoint file")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if args.address:
        train(args.address, args)
        return
    with serve_locally(["--mnist", args.data, "--batch", str(args.batch), "--last", "drop",
                        "--seed", str(args.seed)]) as address:
        train(address, args)


if __name__ == "__main__":
    main()
