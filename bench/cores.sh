#!/usr/bin/env bash
# cores.sh measures how the image pipeline and the MNIST epoch scale with
# threads, each against its plain Go loop with as many goroutines, on a
# machine that has no Go toolchain: it runs a static build of the bench
# (with libjpeg-turbo) that sits in bench/out beside a copy of the photo
# set. Build them on a machine with Go, from the repository root:
#
#	CGO_ENABLED=1 go build -tags turbojpeg,netgo,osusergo \
#	    -ldflags '-s -w -linkmode external -extldflags "-static"' -o bench/out/bench ./bench
#	mkdir -p bench/out/data/imagerec/bench
#	cp ../shared/data/imagerec/bench/photos_1536.rec bench/out/data/imagerec/bench/
#
# then copy the repository (data/mnist included) with bench/out to the
# machine and run, from the repository root:
#
#	bash bench/cores.sh
#
# It writes the tables (Markdown), the rows (JSON) and a description of the
# machine under $OUT (default bench/out/result). The short runs come first
# (MNIST, then the imagerec rows with libjpeg-turbo: decode alone, the
# ceiling, and the whole pipeline); the long imagerec run (all 1536
# photos, more repetitions), then the long MNIST
# run, follow only when the time left of BUDGET_S allows, and are cut off
# at the end of it.
#
# Environment: THREADS (default 1,2,4,8,16), BUDGET_S (seconds for the
# whole script, default 400), BENCH (the binary), DATA (the -data directory).
set -u

OUT=${OUT:-bench/out/result}
THREADS=${THREADS:-1,2,4,8,16}
BUDGET_S=${BUDGET_S:-400}
BENCH=${BENCH:-bench/out/bench}
DATA=${DATA:-bench/out/data}
mkdir -p "$OUT"
start=$(date +%s)
cutoff="timeout --kill-after=10"
command -v timeout >/dev/null || cutoff=true_after # no coreutils timeout: runs are not cut off
true_after() { shift; "$@"; }
elapsed() { echo $(($(date +%s) - start)); }

{
	date -u
	uname -a
	echo "nproc: $(nproc)"
	echo "cgroup cpu.max: $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo none)"
	lscpu | head -20
	free -m
	ls -l "$BENCH" "$DATA/imagerec/bench/photos_1536.rec" data/mnist
} 2>&1 | tee "$OUT/system.txt"

# run NAME SECONDS ARGS... runs the bench with ARGS, cut off after SECONDS,
# writing NAME.md (the table), NAME.json and NAME.err, and prints the table
# without its notes (they are in NAME.md).
run() {
	local name=$1 secs=$2
	shift 2
	echo
	echo "== $name: $BENCH $* (at ${secs}s at most, $(elapsed)s elapsed)"
	local t0=$(date +%s)
	$cutoff "$secs" "$BENCH" "$@" -json "$OUT/$name.json" >"$OUT/$name.md" 2>"$OUT/$name.err"
	local rc=$?
	echo "== $name: exit status $rc after $(($(date +%s) - t0))s"
	[ $rc -eq 0 ] || tail -20 "$OUT/$name.err"
	sed -E 's/ [^|]*\|$//' "$OUT/$name.md"
}

run mnist "$((BUDGET_S - 60))" -only mnist-epoch -threads "$THREADS"
run imagerec "$((BUDGET_S - $(elapsed) - 10))" -only imagerec -data "$DATA" -threads "$THREADS" -decoder turbojpeg
left=$((BUDGET_S - $(elapsed) - 10))
if [ "$left" -ge 120 ]; then
	run imagerec-long "$left" -only imagerec -data "$DATA" -threads "$THREADS" -decoder turbojpeg -long
else
	echo "== imagerec-long: skipped, ${left}s left"
fi
left=$((BUDGET_S - $(elapsed) - 10))
if [ "$left" -ge 60 ]; then
	run mnist-long "$left" -only mnist-epoch -threads "$THREADS" -long
else
	echo "== mnist-long: skipped, ${left}s left"
fi
echo
echo "== done in $(elapsed)s; files in $OUT:"
ls -l "$OUT"
