#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The engine's instructions per message of an attached client (doc/perf.md,
# "Multi-process"): rds-engined (inline engine, -l 0) under valgrind
# --tool=callgrind, and rds-bench-attach count (bench/mp_attach.c) sending
# N then 2N messages of SIZE bytes between two sockets of one attached
# process (a loop connection of the engine), received as they come. The
# counters are zeroed before each count and dumped after it
# (callgrind_control), so that the attach, the sockets and the detach
# cancel: (Ir(2N) - Ir(N)) / N, in all and per function (self). The
# engine polls between the client's requests, so the idle passes of the
# two windows do not quite cancel: read the totals with the per-function
# table beside them (the client runs at full speed, the engine under
# valgrind is the slow side, so it is rarely idle).
#
#   bench/mp-cg.sh [BUILD_DIR]        (default: build)
#
# Environment: N=20000 (messages of the first count; 2N the second; a
# tenth of it for sizes over 4 KiB), SIZES="64 65536", TOP=25 (functions
# listed), OUT=DIR (default /tmp/rds-mp-cg.PID).

set -u
BUILD=$(readlink -f "${1:-build}")
ENG=$BUILD/app/rds-engined/rds-engined
BA=$BUILD/bench/rds-bench-attach
N=${N:-20000}
SIZES=${SIZES:-64 65536}
TOP=${TOP:-25}
OUT=${OUT:-/tmp/rds-mp-cg.$$}
IPA=10.9.0.1
IPB=10.9.0.2

command -v valgrind > /dev/null && command -v callgrind_control > /dev/null ||
	{ echo "mp-cg: no valgrind here: skipped"; exit 0; }
for f in "$ENG" "$BA"; do
	[ -x "$f" ] || { echo "no $f (build first)" >&2; exit 2; }
done
mkdir -p "$OUT"
SOCK=$OUT/engine.sock
rm -f "$SOCK"
cmd="valgrind --tool=callgrind --callgrind-out-file=$OUT/cg.%p $ENG -l 0 --no-pci --no-huge -m 1024 --file-prefix mpcg$$ --log-level=lib.eal:error -- --addr $IPA=loop --addr $IPB=loop --listen $SOCK --idle busy"
echo "engine: $cmd" | tee "$OUT/cmds.txt"
$cmd > "$OUT/engine.log" 2>&1 &
epid=$!
trap 'kill $epid 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 600); do
	[ -S "$SOCK" ] && break
	sleep 0.1
done
[ -S "$SOCK" ] || { cat "$OUT/engine.log"; echo "mp-cg: no engine" >&2; exit 1; }

count() {	# count NMSGS SIZE
	echo "client: $BA count $SOCK $IPA $IPB $1 $2" >> "$OUT/cmds.txt"
	timeout 900 "$BA" count "$SOCK" $IPA $IPB "$1" "$2"
}

dump=0
for sz in $SIZES; do
	n=$N
	[ "$sz" -gt 4096 ] && n=$((N / 10))
	count $((n / 10)) "$sz" > /dev/null	# warm-up
	callgrind_control -z $epid > /dev/null
	count "$n" "$sz"
	callgrind_control -d "n$sz" $epid > /dev/null
	callgrind_control -z $epid > /dev/null
	count $((2 * n)) "$sz"
	callgrind_control -d "2n$sz" $epid > /dev/null
	dump=$((dump + 2))
	python3 - "$OUT/cg.$epid.$((dump - 1))" "$OUT/cg.$epid.$dump" "$n" \
		"$sz" "$TOP" <<'PY' | tee -a "$OUT/summary.txt"
import re, subprocess, sys
f1, f2, n, sz, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
def load(f):
    out = subprocess.run(["callgrind_annotate", "--inclusive=no",
                          "--threshold=100", f], capture_output=True,
                         text=True).stdout
    d, tot = {}, 0
    for l in out.splitlines():
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+PROGRAM TOTALS', l)
        if m:
            tot = int(m.group(1).replace(",", ""))
            continue
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
    if abs(v) >= 0.05:
        print("%10.1f  %s" % (v, k))
PY
done
echo "commands: $OUT/cmds.txt"
