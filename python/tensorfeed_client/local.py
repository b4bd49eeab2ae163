"""Start a `tensorfeed serve` for the length of a `with` block (examples, scripts, tests).

    with serve_locally(["--mnist", "data/mnist"]) as address:
        feed = Feed(address, "mnist-train")

The binary is `binary`, else $TENSORFEED, else `tensorfeed` on PATH, else built
with `go build` from the repository this package sits in.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_binary(tmp):
    """The tensorfeed command to run, built into tmp if need be."""
    found = os.environ.get("TENSORFEED") or shutil.which("tensorfeed")
    if found:
        return found
    out = os.path.join(tmp, "tensorfeed")
    subprocess.run(["go", "build", "-o", out, "./cmd/tensorfeed"], cwd=REPO, check=True)
    return out


@contextlib.contextmanager
def serve_locally(args, binary=None):
    """Run `tensorfeed serve ARGS` on a Unix socket in a temporary folder; yield its address."""
    tmp = tempfile.mkdtemp(prefix="tensorfeed-serve-")
    try:
        binary = binary or find_binary(tmp)
        address = "unix:" + os.path.join(tmp, "serve.sock")
        proc = subprocess.Popen([binary, "serve", "--listen", address] + list(args), cwd=REPO,
                                stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()  # "serving ... on ..." once it listens
            if not line.startswith("serving"):
                raise RuntimeError("tensorfeed serve did not start (exit status %s)" % proc.wait(10))
            yield address
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
