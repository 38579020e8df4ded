#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The engine's instructions per message of an attached client (doc/perf.md,
# "Multi-process"): rds-engined (inline engine, -l 0, --idle sleep) under
# valgrind --tool=callgrind, and rds-bench-attach count (bench/mp_attach.c)
# sending messages of SIZE bytes between two sockets of one attached
# process (a loop connection of the engine), received as they come. One
# engine per count: a warm-up of N/10 then N messages, and the same with
# 2N; the engine stops with SIGTERM (callgrind writes its totals at the
# exit), so that its start, the attach, the sockets, the detach and the
# exit cancel: (Ir(2N) - Ir(N)) / N, in all and per function (self). The
# engine sleeps when idle, so that its idle passes cost little: under
# valgrind it is the slow side and rarely idle.
#
#   bench/mp-cg.sh [BUILD_DIR]        (default: build)
#
# Environment: N=10000 (a tenth of it for sizes over 4 KiB),
# SIZES="64 65536", TOP=15 (functions listed), OUT=DIR (default
# /tmp/rds-mp-cg.PID).

set -u
BUILD=$(readlink -f "${1:-build}")
ENG=$BUILD/app/rds-engined/rds-engined
BA=$BUILD/bench/rds-bench-attach
N=${N:-10000}
SIZES=${SIZES:-64 65536}
TOP=${TOP:-15}
OUT=${OUT:-/tmp/rds-mp-cg.$$}
IPA=10.9.0.1
IPB=10.9.0.2

command -v valgrind > /dev/null && command -v callgrind_annotate > /dev/null ||
	{ echo "mp-cg: no valgrind here: skipped"; exit 0; }
for f in "$ENG" "$BA"; do
	[ -x "$f" ] || { echo "no $f (build first)" >&2; exit 2; }
done
mkdir -p "$OUT"
: > "$OUT/cmds.txt"

# one NAME NMSGS SIZE: an engine under callgrind, NMSGS / 10 then NMSGS
# messages through it, the engine stopped; its profile in $OUT/cg.NAME.
one() {
	local sock=$OUT/$1.sock epid
	local cmd="valgrind --tool=callgrind --callgrind-out-file=$OUT/cg.$1 $ENG -l 0 --no-pci --no-huge -m 1024 --file-prefix mpcg$$ --log-level=lib.eal:error -- --addr $IPA=loop --addr $IPB=loop --listen $sock --idle sleep"
	rm -f "$sock"
	echo "engine: $cmd" >> "$OUT/cmds.txt"
	$cmd > "$OUT/engine-$1.log" 2>&1 &
	epid=$!
	for _ in $(seq 600); do
		[ -S "$sock" ] && break
		sleep 0.1
	done
	[ -S "$sock" ] || { cat "$OUT/engine-$1.log"; echo "mp-cg: no engine" >&2; kill $epid; exit 1; }
	echo "client: $BA count $sock $IPA $IPB $(($2 / 10)) $3; then $2" >> "$OUT/cmds.txt"
	timeout 900 "$BA" count "$sock" $IPA $IPB $(($2 / 10)) "$3" > /dev/null
	timeout 900 "$BA" count "$sock" $IPA $IPB "$2" "$3"
	kill -TERM $epid
	wait $epid
}

for sz in $SIZES; do
	n=$N
	[ "$sz" -gt 4096 ] && n=$((N / 10))
	one "n$sz" "$n" "$sz"
	one "2n$sz" $((2 * n)) "$sz"
	python3 - "$OUT/cg.n$sz" "$OUT/cg.2n$sz" "$n" "$sz" "$TOP" <<'PY' | tee -a "$OUT/summary.txt"
import re, subprocess, sys
f1, f2, n, sz, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
def load(f):
    tot = 0
    for l in open(f):
        if l.startswith("summary:") or l.startswith("totals:"):
            tot = int(l.split()[1])
    out = subprocess.run(["callgrind_annotate", "--inclusive=no",
                          "--threshold=100", f], capture_output=True,
                         text=True).stdout
    d = {}
    for l in out.splitlines():
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+(\S+?):(\S+)\s+\[', l)
        if m and "below main" not in l and "libc_start" not in m.group(3):
            fn = m.group(3)
            d[fn] = d.get(fn, 0) + int(m.group(1).replace(",", ""))
    return d, tot
a, ta = load(f1)
b, tb = load(f2)
print("== %s B: engine instructions per message, (Ir(2N) - Ir(N)) / N, N = %d: %.1f" % (sz, n, (tb - ta) / n))
rows = sorted(((b.get(k, 0) - a.get(k, 0)) / n, k) for k in set(a) | set(b))
rows.reverse()
for v, k in rows[:top]:
    if abs(v) >= 0.5:
        print("%10.1f  %s" % (v, k))
PY
done
echo "commands: $OUT/cmds.txt"
