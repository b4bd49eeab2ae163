#!/usr/bin/env bash
# The test suite: the library with the race detector, the GoMLX module
# (gomlx/, a module of its own), and the Python client's tests against a
# real `tensorfeed serve` when /usr/bin/python3 has numpy (Debian's
# python3-numpy; .ci/run installs it, with python3-torch).
set -euo pipefail
cd "$(dirname "$0")"

echo "== go test -race ./... (the library, commands, examples and bench)"
go test -race -count=1 ./...
# The tests that internal/testkit/race.Enabled turns off under the race
# detector, again without it: the classifier's training (arithmetic in one
# goroutine, five times as long there), the 512 MiB records, and the
# allocation count that the detector's own allocations hide.
go test -count=1 -run '^(TestJudge|TestLargestRecord|TestReaderJoinedTooLarge|TestIterRecordBuffersReused)$' \
  ./examples/internal/judge ./dataset/recordio ./compat/mxnet

echo "== gomlx module: go test -race ./..."
(cd gomlx && go test -race -count=1 ./...)

echo "== python client: unittest"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  go build -o "$bin/tensorfeed" ./cmd/tensorfeed
  TENSORFEED_TEST_BIN="$bin/tensorfeed" /usr/bin/python3 -m unittest discover -s python/tests
else
  echo "skipped: /usr/bin/python3 cannot import numpy (apt-get install python3-numpy python3-torch)"
fi
