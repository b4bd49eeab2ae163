"""Tests of tensorfeed_client against a real `tensorfeed serve`, built once.

Run from the repository root:  /usr/bin/python3 -m unittest discover -s python/tests
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tensorfeed_client import Feed, TensorfeedError, TorchFeed  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

TMP = None
BIN = None


def setUpModule():
    global TMP, BIN
    TMP = tempfile.mkdtemp(prefix="tensorfeed-serve-test-")
    BIN = os.environ.get("TENSORFEED_TEST_BIN")  # a binary built already; else built from this tree
    if not BIN:
        BIN = os.path.join(TMP, "tensorfeed")
        subprocess.run(["go", "build", "-o", BIN, "./cmd/tensorfeed"], cwd=ROOT, check=True, timeout=300)


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


class Server:
    """A `tensorfeed serve` process on a Unix socket of its own."""

    count = 0

    def __init__(self, *args, sock=None):
        Server.count += 1
        self.sock = sock or os.path.join(TMP, "s%d.sock" % Server.count)
        self.args = ["--listen", "unix:" + self.sock, "--mnist", os.path.join(ROOT, "data/mnist"), "--index"] + list(args)
        self.start()

    @property
    def address(self):
        return "unix:" + self.sock

    def start(self):
        self.proc = subprocess.Popen([BIN, "serve"] + self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()  # "serving ... on ..." once it listens
        if not line.startswith("serving"):
            self.proc.kill()
            raise RuntimeError("tensorfeed serve did not start: %r %s" % (line, self.proc.stderr.read()))

    def kill(self):
        self.proc.kill()
        self.proc.wait(10)
        self.proc.stdout.close()
        self.proc.stderr.close()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()


def indices(batches):
    return [int(i) for b in batches for i in b["index"]]


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--batch", "1000", "--seed", "7")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def feed(self, name="mnist-train", **kw):
        return Feed(self.server.address, name, **kw)

    def test_dict_of_arrays(self):
        batches = list(self.feed("mnist-test"))
        self.assertEqual(len(batches), 10)
        b = batches[0]
        self.assertEqual(sorted(b), ["image", "index", "label"])
        self.assertEqual((b["image"].dtype, b["image"].shape), (np.float32, (1000, 784)))
        self.assertEqual((b["label"].dtype, b["label"].shape), (np.int64, (1000,)))
        self.assertTrue(b["image"].flags["C_CONTIGUOUS"] and b["image"].flags["WRITEABLE"])
        # the test set in order, normalised as examples/mnist does
        self.assertEqual(indices(batches), list(range(10000)))
        self.assertAlmostEqual(float(b["image"].min()), (0 - 0.1307) / 0.3081, places=5)
        self.assertTrue(set(np.unique(b["label"])) <= set(range(10)))

    def test_epochs_and_state(self):
        f = self.feed()
        self.assertEqual(f.state_dict(), {})
        first = indices(f)
        self.assertEqual(sorted(first), list(range(60000)))
        self.assertEqual(f.position, (1, 0))  # after a whole epoch: the start of the next
        second = indices(f)
        self.assertEqual(sorted(second), list(range(60000)))
        self.assertNotEqual(first, second)  # a new shuffle every epoch

    def test_two_ranks_split_the_epoch(self):
        results = {}

        def read(rank):
            results[rank] = indices(self.feed(world=2, rank=rank))

        threads = [threading.Thread(target=read, args=(r,)) for r in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        a, b = results[0], results[1]
        self.assertEqual(len(a), 30000)
        self.assertEqual(len(b), 30000)
        self.assertFalse(set(a) & set(b))
        self.assertEqual(sorted(a + b), list(range(60000)))
        # the same split as one reader's order, rank r taking positions r, r+2, ...
        whole = indices(self.feed())
        self.assertEqual(sorted(a), sorted(whole[0::2]))

    def test_killed_client_resumes_from_its_state(self):
        straight = indices(self.feed())
        state_file = os.path.join(TMP, "state.json")
        seen_file = os.path.join(TMP, "seen.json")
        child = r"""
import json, os, signal, sys
sys.path.insert(0, %r)
from tensorfeed_client import Feed
f = Feed(%r, "mnist-train")
seen = []
for i, b in enumerate(f):
    seen += [int(x) for x in b["index"]]
    if i == 6:  # the trainer saves its checkpoint with the model, then dies
        json.dump(f.state_dict(), open(%r, "w"))
        json.dump(seen, open(%r, "w"))
        os.kill(os.getpid(), signal.SIGKILL)
""" % (os.path.join(ROOT, "python"), self.server.address, state_file, seen_file)
        p = subprocess.run([sys.executable, "-c", child], timeout=60)
        self.assertEqual(p.returncode, -signal.SIGKILL)
        with open(seen_file) as fh:
            seen = json.load(fh)
        f = self.feed()
        with open(state_file) as fh:
            f.load_state_dict(json.load(fh))
        self.assertEqual(f.position, (0, 7))
        rest = indices(f)
        self.assertEqual(seen + rest, straight)

    def test_state_at_the_end_of_an_epoch(self):
        f = self.feed("mnist-test")
        it = iter(f)
        for _ in range(10):
            next(it)
        it.close()  # the loop stopped after the last batch, before the end of the epoch was read
        self.assertEqual(f.position, (0, 10))
        g = self.feed("mnist-test")
        g.load_state_dict(f.state_dict())
        self.assertEqual(len(list(g)), 10)  # the next iteration is the next epoch, whole
        self.assertEqual(g.position, (2, 0))

    def test_unknown_feed(self):
        with self.assertRaises(TensorfeedError) as cm:
            list(self.feed("mnist-trian"))
        self.assertEqual(cm.exception.code, "unknown_feed")
        self.assertIn('"mnist-train"', str(cm.exception))

    def test_state_of_another_pipeline(self):
        test = self.feed("mnist-test")
        next(iter(test))
        f = self.feed()
        f.load_state_dict(test.state_dict())
        with self.assertRaises(TensorfeedError) as cm:
            next(iter(f))
        self.assertEqual(cm.exception.code, "bad_state")
        self.assertIn("another pipeline", str(cm.exception))

    def test_edited_state(self):
        f = self.feed()
        it = iter(f)
        next(it)
        it.close()
        st = f.state_dict()
        st["step"] = 5
        f.load_state_dict(st)
        with self.assertRaises(TensorfeedError) as cm:
            next(iter(f))
        self.assertEqual(cm.exception.code, "bad_state")
        self.assertIn("step", str(cm.exception))

    def test_same_rank_twice(self):
        a = iter(self.feed(world=2, rank=1))
        next(a)  # holds rank 1 while it reads
        try:
            with self.assertRaises(TensorfeedError) as cm:
                next(iter(self.feed(world=2, rank=1, busy_wait=0.3)))
            self.assertEqual(cm.exception.code, "rank_busy")
            self.assertIn("rank 1", str(cm.exception))
        finally:
            a.close()
        # once the first client is gone the rank is free again
        self.assertEqual(len(next(iter(self.feed(world=2, rank=1, busy_wait=2)))["index"]), 1000)

    def test_decoded_bytes_are_the_servers_float32(self):
        # The pixels cross as bytes with a scale and offset and are decoded
        # here: bit for bit the float32 the server sends a client that asks.
        dec, f32 = list(self.feed("mnist-test")), list(self.feed("mnist-test", decode=False))
        self.assertEqual(len(dec), 10)
        for a, b in zip(dec, f32):
            self.assertEqual((a["image"].dtype, a["image"].shape), (np.float32, (1000, 784)))
            self.assertTrue(np.array_equal(a["image"].view(np.uint32), b["image"].view(np.uint32)))
            self.assertTrue(np.array_equal(a["index"], b["index"]))
            self.assertTrue(a["image"].flags["C_CONTIGUOUS"] and a["image"].flags["WRITEABLE"])
        # each batch has memory of its own: a loop may keep batches
        self.assertFalse(np.shares_memory(dec[0]["image"], dec[1]["image"]))
        # within 1e-6 of (x/255 - 0.1307)/0.3081 of the pixel byte x
        img = dec[0]["image"].astype(np.float64)
        x = np.rint((img * 0.3081 + 0.1307) * 255)
        self.assertTrue(np.all((x >= 0) & (x <= 255)))
        self.assertLess(np.abs(img - (x / 255 - 0.1307) / 0.3081).max(), 1e-6)

    def test_resume_across_decoding(self):
        # A state saved by a client that decodes resumes exactly in one that does not, and back.
        straight = list(self.feed())
        f = self.feed()
        it = iter(f)
        for _ in range(7):
            next(it)
        it.close()
        g = self.feed(decode=False)
        g.load_state_dict(f.state_dict())
        rest = list(g)
        self.assertEqual(indices(rest), indices(straight[7:]))
        for a, b in zip(rest, straight[7:]):
            self.assertTrue(np.array_equal(a["image"].view(np.uint32), b["image"].view(np.uint32)))
        h = self.feed()
        h.load_state_dict(g.state_dict())
        self.assertEqual(h.position, (1, 0))

    def test_other_protocol_refused(self):
        import tensorfeed_client
        old, tensorfeed_client.PROTOCOL = tensorfeed_client.PROTOCOL, 1
        try:
            with self.assertRaises(TensorfeedError) as cm:
                list(self.feed("mnist-test"))
        finally:
            tensorfeed_client.PROTOCOL = old
        self.assertEqual(cm.exception.code, "bad_request")
        self.assertIn("protocol 1, this server 2", str(cm.exception))

    def test_bad_rank(self):
        with self.assertRaises(ValueError):
            self.feed(world=2, rank=2)

    @unittest.skipIf(torch is None, "torch is not installed")
    def test_torch(self):
        ds = TorchFeed(self.server.address, "mnist-test")
        loader = torch.utils.data.DataLoader(ds, batch_size=None)
        n = 0
        for b in loader:
            self.assertIsInstance(b["image"], torch.Tensor)
            self.assertEqual(b["image"].dtype, torch.float32)
            self.assertEqual(tuple(b["image"].shape), (1000, 784))
            self.assertEqual(b["label"].dtype, torch.int64)
            n += 1
        self.assertEqual(n, 10)
        self.assertEqual(ds.state_dict()["epoch"], 1)
        with self.assertRaisesRegex(RuntimeError, "num_workers=0"):
            list(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=1))


class RestartTest(unittest.TestCase):
    def test_server_restart_mid_epoch(self):
        server = Server("--batch", "500", "--seed", "3")
        try:
            straight = indices(Feed(server.address, "mnist-train"))
            f = Feed(server.address, "mnist-train", retry_delay=0.05, retries=20)
            it = iter(f)
            got = [next(it) for _ in range(10)]
            server.kill()
            server.start()  # the same socket path: the stale socket file is replaced
            got += list(it)
            self.assertGreaterEqual(f.reconnects, 1)
            self.assertEqual(indices(got), straight)
        finally:
            server.stop()

    def test_server_gone_for_good(self):
        server = Server("--batch", "500")
        f = Feed(server.address, "mnist-train", retries=2, retry_delay=0.05)
        it = iter(f)
        next(it)
        server.kill()
        t = time.monotonic()
        with self.assertRaises(TensorfeedError) as cm:
            list(it)
        self.assertEqual(cm.exception.code, "unreachable")
        self.assertIn("3 tries failed", str(cm.exception))
        self.assertLess(time.monotonic() - t, 10)
        self.assertGreater(f.position[1], 0)  # the state of the last batch delivered is kept


if __name__ == "__main__":
    unittest.main()
