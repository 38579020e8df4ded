#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The core's figures over the loop transport (the table of doc/perf.md,
# section "Core (loop transport)"). Each figure is
# printed with the command that produced it. Benchmarks, not tests: no
# figure fails the script; the targets are printed beside what is reached.
#
#   bench/core.sh [BUILD_DIR]        (default: build)
#
# 1. Instructions per 64 B message, one way, one socket pair, one inline
#    engine (rds-bench-core, bench/core_loop.c): valgrind --tool=callgrind
#    --toggle-collect=bench_loop, run for N and 2N messages, so that the
#    set-up and the warm-up cancel: (Ir(2N) - Ir(N)) / N. With 0, 1,000,
#    10,000, 60,000 idle bound sockets and with 64 idle connections (8 x 8
#    loop addresses); the ratio to the case with none (target <= 1.2x;
#    target <= 600 instructions with none). Then the functions that take
#    the instructions, per message (the same difference, per function),
#    and with several cases the functions that differ most between them.
#    Beside it, when valgrind's headers were there at build time,
#    rds-bench-probe (bench/core_probe.c): the public API as an
#    application calls it (blocking sendmsg/recvmsg with msghdrs and
#    addresses), N messages counted between callgrind client requests
#    after a warm-up, total / N with nothing subtracted.
#    Without valgrind this part is skipped and says so (nothing is
#    installed).
# 2. Time per message of the same loop: RUNS rounds, each running every
#    case once (one process a case and round, so that the noise of a
#    shared machine falls on all cases alike); each process also times
#    the floor (floor_loop(): the payload copied into a message, through
#    an SP/SC rte_ring and back, copied out; no RDS) for as long as the
#    measured run took, right after it. Medians over the rounds, and the
#    ratio to the case with none: the ratio of the medians and the median
#    of the ratios of one round.
# 3. Memory per idle bound socket: heap growth (libc mallinfo2 + DPDK
#    heap) over 10,000 (and 60,000) idle bound sockets, read by
#    rds-bench-core around their creation (cold: the socket table chunks
#    they need are counted); and, when the build has the tests, the scale
#    suite's idle_cost case (the same sockets bound a second time, the
#    table already there). Target <= 2 KiB.
# 4. rds-perf loop one-way stream, 32 B, lcore engine: msgs/s counted at
#    the receiver (target >= 10 M/s), beside the raw ring floor of the
#    same run (--raw-ring: one thread, bursts of 32; not a cross-core
#    figure). RUNS runs, medians; interleaved with as many runs with the
#    inline engine (one thread), for comparison.
# 5. rds-perf loop --mode lat --size 64, lcore engine: RTT p50 against
#    its floor from the same run (--raw-ring-pp: raw ring ping-pong RTT
#    between the two lcores x 4 crossings / 2). Target <= 2x. RUNS runs;
#    the median of the p50s, of the floors, and of the per-run ratios.
#    4. and 5. also print how much of its two cores the process held
#    (CPU time / (wall x 2), from GNU time): on a shared machine the two
#    busy-polling lcores often hold them only part of the time.
# 6. Where the time of 4. goes: perf record -e cpu-clock (works in a VM
#    without hardware counters), self time per thread and function.
#    Skipped, and said so, without perf.
#
# Environment:
#   RUNS=5        rounds of 2., runs of 4. and 5.
#   MSGS=200000   messages of each timed run (2.)
#   CG_N=20000    N of the callgrind runs (1.)
#   CASES="0 1000 10000 60000 conns"   idle sockets of 1. and 2.
#                 (a number: that many idle bound sockets; conns: 64 idle
#                 connections; pN: N peers, the messages sent to N
#                 addresses in turn, N busy connections: --peers N)
#   SECS=2        measured seconds of each rds-perf run (4., 5.)
#   PARTS="cg time mem stream lat prof"   which parts to run
#   TOP=12        functions listed in 1.
#   EAL_MEM="--no-huge -m 1024"        EAL memory arguments
#   OUT=DIR       results (default /tmp/rds-core-bench.PID): cmds.txt,
#                 *.json, cg.* (callgrind files), summary.txt
# About 4-5 minutes on the 2-core development machine with the defaults.

set -u -o pipefail

BUILD=${1:-build}
C=$(readlink -f "$BUILD/bench/rds-bench-core")
P=$(readlink -f "$BUILD/app/rds-perf/rds-perf")
S=$(readlink -f "$BUILD/test/scale/scale_many" 2>/dev/null)
PROBE=$(readlink -f "$BUILD/bench/rds-bench-probe" 2>/dev/null)
RUNS=${RUNS:-5}
MSGS=${MSGS:-200000}
CG_N=${CG_N:-20000}
CASES=${CASES:-0 1000 10000 60000 conns}
SECS=${SECS:-2}
PARTS=${PARTS:-cg time mem stream lat prof}
TOP=${TOP:-12}
EAL_MEM=${EAL_MEM:---no-huge -m 1024}
OUT=${OUT:-/tmp/rds-core-bench.$$}
PFX=core$$
E1="-l 0 --no-pci $EAL_MEM --file-prefix=$PFX --log-level=lib.eal:error"
E2="-l 0-1 --no-pci $EAL_MEM --file-prefix=$PFX --log-level=lib.eal:error"

[ -x "$C" ] || { echo "no $BUILD/bench/rds-bench-core (build first)" >&2; exit 2; }
[ -x "$P" ] || { echo "no $BUILD/app/rds-perf/rds-perf (build first)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "needs python3" >&2; exit 2; }
mkdir -p "$OUT"
: > "$OUT/cmds.txt"
exec > >(tee "$OUT/summary.txt") 2>&1

has() { [[ " $PARTS " == *" $1 "* ]]; }

# rds-perf with two busy-polling lcores: how much of the two cores the
# process got (CPU time / (wall x 2)), written by GNU time when present.
TIME=
[ -x /usr/bin/time ] && TIME="/usr/bin/time -f %e_%U_%S"
cpu_share() {	# files... -> "median share %"
	python3 - "$@" <<'PY'
import statistics, sys
v = []
for p in sys.argv[1:]:
    try:
        w, u, s = (float(x) for x in open(p).read().split()[-1].split("_"))
        v.append(100 * (u + s) / (2 * w))
    except Exception:
        pass
print("%.0f %% median (runs: %s)" % (statistics.median(v), " ".join("%.0f" % x for x in v))
      if v else "not measured (no /usr/bin/time)")
PY
}

# The share of the machine's CPU time (all cores) not idle over 1 s.
busy() {
	python3 - <<'PY'
import time
def s():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(f), f[3] + f[4]
a = s(); time.sleep(1); b = s()
print("%.0f" % (100.0 * (1 - (b[1] - a[1]) / max(1, b[0] - a[0]))))
PY
}

case_args() {	# case -> rds-bench-core arguments
	case "$1" in
	conns) echo "--idle-conns" ;;
	p[1-9]*) echo "--peers ${1#p}" ;;
	*[!0-9]* | '') echo "bad case $1" >&2; exit 2 ;;
	0) echo "" ;;
	*) echo "--idle-socks $1" ;;
	esac
}

case_name() {
	case "$1" in
	conns) echo "64 idle connections" ;;
	p[1-9]*) echo "${1#p} peers" ;;
	*) echo "$1 idle sockets" ;;
	esac
}

# Run a command, logged in cmds.txt, under a timeout.
run() {
	local t=$1
	shift
	echo "$*" >> "$OUT/cmds.txt"
	timeout "$t" "$@"
}

echo "== machine"
echo "date:      $(date -u '+%F %T UTC')"
echo "commit:    $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "cpus:      $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'))"
echo "build:     $BUILD ($(meson introspect --buildoptions "$BUILD" 2>/dev/null |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo '?'))"
echo "busy:      $(busy) % of all cores not idle over 1 s before the runs (others' load)"
echo "settings:  RUNS=$RUNS MSGS=$MSGS CG_N=$CG_N SECS=$SECS CASES=\"$CASES\""
echo "results:   $OUT"
echo

# ---------------------------------------------------------------- 1.
if has cg; then
	echo "== 1. instructions per 64 B message (callgrind, (Ir(2N) - Ir(N)) / N, N = $CG_N)"
	if ! command -v valgrind > /dev/null; then
		echo "valgrind is not installed: instruction counts skipped (this script installs nothing; apt-get install valgrind)"
	else
		declare -A IPM
		for c in $CASES; do
			for n in "$CG_N" $((2 * CG_N)); do
				run 900 valgrind --tool=callgrind --toggle-collect='bench_loop*' \
					--callgrind-out-file="$OUT/cg.$c.$n" \
					"$C" $E1 -- --msgs "$n" --runs 1 $(case_args "$c") \
					> "$OUT/cg.$c.$n.log" 2>&1 ||
					echo "  (callgrind run $c $n failed: $OUT/cg.$c.$n.log)"
			done
			a=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/cg.$c.$CG_N.log")
			b=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/cg.$c.$((2 * CG_N)).log")
			if [ -n "$a" ] && [ -n "$b" ]; then
				IPM[$c]=$(python3 -c "print('%.1f' % (($b - $a) / $CG_N))")
			else
				IPM[$c]=
			fi
		done
		c0=${CASES%% *}
		for c in $CASES; do
			ratio=
			[ -n "${IPM[$c]}" ] && [ -n "${IPM[$c0]}" ] &&
				ratio=$(python3 -c "print('%.2f' % (${IPM[$c]} / ${IPM[$c0]}))")
			printf '%-22s %8s instructions/message  %5sx the %s case\n' \
				"$(case_name "$c")" "${IPM[$c]:-?}" "${ratio:-?}" "$(case_name "$c0")"
		done
		echo "command: valgrind --tool=callgrind --toggle-collect='bench_loop*' $C $E1 -- --msgs N --runs 1 [--idle-socks K | --idle-conns | --peers P], N = $CG_N and $((2 * CG_N))"
		echo "targets: <= 600 instructions with none; <= 1.2x with idle sockets or connections"
		if [ -x "$PROBE" ]; then
			run 900 valgrind --tool=callgrind --collect-atstart=no \
				--callgrind-out-file="$OUT/cg.probe" "$PROBE" $E1 -- "$CG_N" \
				> "$OUT/cg.probe.log" 2>&1 ||
				echo "  (callgrind run of the probe failed: $OUT/cg.probe.log)"
			pr=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/cg.probe.log")
			[ -n "$pr" ] && pr=$(python3 -c "print('%.1f' % ($pr / $CG_N))")
			printf '%-22s %8s instructions/message  (public API only: blocking sendmsg/recvmsg with addresses; total / N)\n' \
				"probe" "${pr:-?}"
			echo "command: valgrind --tool=callgrind --collect-atstart=no $PROBE $E1 -- $CG_N"
		fi
		echo
		echo "-- where the instructions go ($(case_name "$c0"); self instructions per message, inlined parts summed per function)"
		if command -v callgrind_annotate > /dev/null; then
			for n in "$CG_N" $((2 * CG_N)); do
				callgrind_annotate --inclusive=no --threshold=100 \
					"$OUT/cg.$c0.$n" > "$OUT/cg.$c0.$n.txt" 2>/dev/null
			done
			python3 - "$OUT/cg.$c0.$CG_N.txt" "$OUT/cg.$c0.$((2 * CG_N)).txt" "$CG_N" "$TOP" <<'PY'
import re, sys
def load(p):
    d = {}
    for line in open(p):
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(\S+)", line)
        if not m or m.group(2) == "PROGRAM":
            continue
        fn = m.group(3)
        d[fn] = d.get(fn, 0) + int(m.group(1).replace(",", ""))
    return d
a, b, n, top = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
diff = {f: (b.get(f, 0) - a.get(f, 0)) / n for f in set(a) | set(b)}
tot = sum(diff.values())
for f, v in sorted(diff.items(), key=lambda x: -x[1])[:top]:
    print("  %7.1f  %5.1f %%  %s" % (v, 100 * v / tot, f))
print("  %7.1f  total" % tot)
PY
			echo "command: callgrind_annotate --inclusive=no --threshold=100 on both files, per function (2N - N) / N"
			if [ "$c0" != "${CASES##* }" ]; then
				echo
				echo "-- the same per case: the $TOP functions that differ most from the $(case_name "$c0") case"
				for c in $CASES; do
					for n in "$CG_N" $((2 * CG_N)); do
						[ -f "$OUT/cg.$c.$n.txt" ] ||
							callgrind_annotate --inclusive=no --threshold=100 \
								"$OUT/cg.$c.$n" > "$OUT/cg.$c.$n.txt" 2>/dev/null
					done
				done
				python3 - "$OUT" "$CG_N" "$TOP" $CASES <<'PY'
import re, sys
out, n, top, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def load(p):
    d = {}
    try:
        f = open(p)
    except OSError:
        return d
    for line in f:
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(\S+)", line)
        if not m or m.group(2) == "PROGRAM":
            continue
        d[m.group(3)] = d.get(m.group(3), 0) + int(m.group(1).replace(",", ""))
    return d
per = {}
for c in cases:
    a, b = load("%s/cg.%s.%d.txt" % (out, c, n)), load("%s/cg.%s.%d.txt" % (out, c, 2 * n))
    per[c] = {f: (b.get(f, 0) - a.get(f, 0)) / n for f in set(a) | set(b)}
fs = sorted(set().union(*per.values()),
            key=lambda f: -max(abs(per[c].get(f, 0) - per[cases[0]].get(f, 0)) for c in cases))
print("  %-30s" % "function" + "".join("%10s" % c for c in cases))
diff = lambda f: max(abs(per[c].get(f, 0) - per[cases[0]].get(f, 0)) for c in cases)
for f in [f for f in fs if diff(f) >= 0.5][:top]:
    print("  %-30s" % f[:30] + "".join("%10.1f" % per[c].get(f, 0) for c in cases))
print("  %-30s" % "total" + "".join("%10.1f" % sum(per[c].values()) for c in cases))
PY
			fi
		else
			echo "callgrind_annotate not found: function list skipped"
		fi
	fi
	echo
fi

# ---------------------------------------------------------------- 2. + 3.
declare -A TJ
if has time || has mem; then
	for r in $(seq 1 "$RUNS"); do
		for c in $CASES; do
			run 300 "$C" $E1 -- --msgs "$MSGS" --runs 1 $(case_args "$c") \
				2> "$OUT/time.$c.$r.err" | tail -1 > "$OUT/time.$c.$r.json" ||
				echo "  (run $c $r failed: $OUT/time.$c.$r.err)"
		done
	done
fi
if has time; then
	echo "== 2. time per 64 B message (median of $RUNS runs, one process each, round-robin over the cases)"
	python3 - "$OUT" "$RUNS" $CASES <<'PY'
import json, statistics, sys
out, runs, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def name(c):
    if c.startswith("p"):
        return c[1:] + " peers"
    return "64 idle connections" if c == "conns" else c + " idle sockets"
res = {}
for c in cases:
    res[c] = []
    for r in range(1, runs + 1):
        try:
            res[c].append(json.loads(open("%s/time.%s.%d.json" % (out, c, r)).read()))
        except Exception:
            res[c].append(None)
c0 = cases[0]
def med(c, k):
    v = [x[k] for x in res[c] if x]
    return statistics.median(v) if v else float("nan")
for c in cases:
    t, f = med(c, "ns_per_msg_median"), med(c, "floor_ns_per_msg_median")
    pr = [x["ns_per_msg_median"] / y["ns_per_msg_median"]
          for x, y in zip(res[c], res[c0]) if x and y]
    print("%-22s %7.1f ns/msg (min %.1f)  floor %5.1f ns/msg  %5.2fx the floor"
          "  %5.2fx %s (paired: %.2fx)" %
          (name(c), t, min([x["ns_per_msg_min"] for x in res[c] if x] or [0]),
           f, t / f, t / med(c0, "ns_per_msg_median"), name(c0),
           statistics.median(pr) if pr else float("nan")))
PY
	echo "command: $C $E1 -- --msgs $MSGS --runs 1 [--idle-socks K | --idle-conns]  (x $RUNS rounds)"
	echo "target:  <= 1.2x the case with none"
	echo
fi

# ---------------------------------------------------------------- 3.
if has mem; then
	echo "== 3. memory per idle bound socket (heap growth, libc + DPDK)"
	python3 - "$OUT" "$RUNS" $CASES <<'PY'
import json, sys
out, runs, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for c in cases:
    if c in ("0", "conns") or c.startswith("p"):
        continue
    v = []
    for r in range(1, runs + 1):
        try:
            v.append(json.loads(open("%s/time.%s.%d.json" % (out, c, r)).read()))
        except Exception:
            pass
    if v:
        b = sorted(y["idle_sock_bytes"] for y in v)
        x = v[0]
        print("%6s idle sockets, cold: %.0f bytes each, median of %d runs (min %.0f, max %.0f; run 1: libc %d, dpdk %d in all)" %
              (c, b[len(b) // 2], len(b), b[0], b[-1], x["idle_libc_bytes"], x["idle_dpdk_bytes"]))
PY
	echo "command: $C $E1 -- --msgs $MSGS --runs 1 --idle-socks K  (idle_sock_bytes)"
	if [ -n "$S" ] && [ -x "$S" ]; then
		echo "$S  (RDS_TEST_FILTER=idle_cost)" >> "$OUT/cmds.txt"
		RDS_TEST_FILTER=idle_cost RDS_TEST_EAL_MEM="$EAL_MEM" timeout 300 "$S" \
			> "$OUT/scale_idle_cost.log" 2>&1
		w=$(sed -n 's/.*idle bound sockets: \(.*\)$/\1/p' "$OUT/scale_idle_cost.log")
		echo " 10000 idle sockets, warm (table already grown): ${w:-? (see $OUT/scale_idle_cost.log)}"
		echo "command: RDS_TEST_FILTER=idle_cost $S"
	else
		echo "(no $BUILD/test/scale/scale_many: the warm figure of the scale suite skipped)"
	fi
	echo "target:  <= 2048 bytes each, over 10,000 sockets (with fewer, the socket table's"
	echo "         chunks of $(grep -m1 'define RDS_SLOT_CHUNK' "$(dirname "$0")/../lib/rds/rds_private.h" 2>/dev/null | awk '{print $3}') slots weigh more)"
	echo
fi

# ---------------------------------------------------------------- 4.
if has stream; then
	echo "== 4. rds-perf loop one-way stream, 32 B, lcore engine ($RUNS runs of $SECS s)"
	for r in $(seq 1 "$RUNS"); do
		run 120 $TIME -o "$OUT/stream.$r.cpu" "$P" $E2 -- --transport loop \
			--mode stream --size 32 --secs "$SECS" --engine lcore --raw-ring --json \
			> "$OUT/stream.$r.txt" 2>&1 || echo "  (run $r failed: $OUT/stream.$r.txt)"
		run 120 "$P" $E1 -- --transport loop --mode stream --size 32 \
			--secs "$SECS" --engine inline --json \
			> "$OUT/stream_inline.$r.txt" 2>&1 ||
			echo "  (run $r failed: $OUT/stream_inline.$r.txt)"
	done
	python3 - "$OUT" "$RUNS" <<'PY'
import json, re, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
rx, tx, raw = [], [], []
for r in range(1, runs + 1):
    t = open("%s/stream.%d.txt" % (out, r)).read()
    for line in t.splitlines():
        if line.startswith("{"):
            j = json.loads(line)
            if j.get("errors") == 0:
                rx.append(j["msgs_per_s"]); tx.append(j["sent_msgs_per_s"])
        m = re.search(r"raw ring floor.*: ([\d.]+) Mops/s", line)
        if m:
            raw.append(float(m.group(1)) * 1e6)
if rx:
    print("received %.2f M msgs/s median (min %.2f, max %.2f; sent %.2f M/s) over %d runs" %
          (statistics.median(rx) / 1e6, min(rx) / 1e6, max(rx) / 1e6,
           statistics.median(tx) / 1e6, len(rx)))
if raw:
    print("raw ring floor, same runs (one thread, bursts of 32): %.1f M msgs/s median" %
          (statistics.median(raw) / 1e6))
inl = []
for r in range(1, runs + 1):
    for line in open("%s/stream_inline.%d.txt" % (out, r)):
        if line.startswith("{"):
            j = json.loads(line)
            if j.get("errors") == 0:
                inl.append(j["msgs_per_s"])
if inl:
    print("for comparison, --engine inline (one thread, one core, runs interleaved): received %.2f M msgs/s median (min %.2f, max %.2f)" %
          (statistics.median(inl) / 1e6, min(inl) / 1e6, max(inl) / 1e6))
PY
	echo "command: $P $E2 -- --transport loop --mode stream --size 32 --secs $SECS --engine lcore --raw-ring --json"
	echo "         $P $E1 -- --transport loop --mode stream --size 32 --secs $SECS --engine inline --json"
	echo "cpu:     the process held $(cpu_share "$OUT"/stream.*.cpu) of its two cores (2 busy-polling lcores)"
	echo "target:  >= 10 M msgs/s"
	echo
fi

# ---------------------------------------------------------------- 5.
if has lat; then
	echo "== 5. rds-perf loop lat 64 B, lcore engine, against the raw ring ping-pong floor ($RUNS runs of $SECS s)"
	for r in $(seq 1 "$RUNS"); do
		run 180 $TIME -o "$OUT/lat.$r.cpu" "$P" $E2 -- --transport loop \
			--mode lat --size 64 --secs "$SECS" --engine lcore --raw-ring-pp --json \
			> "$OUT/lat.$r.txt" 2>&1 || echo "  (run $r failed: $OUT/lat.$r.txt)"
	done
	python3 - "$OUT" "$RUNS" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
p50, fl, raw, ratio = [], [], [], []
for r in range(1, runs + 1):
    for line in open("%s/lat.%d.txt" % (out, r)):
        if line.startswith("{"):
            j = json.loads(line)
            if j.get("errors") == 0 and "raw_ring_pp_floor_ns_p50" in j:
                p50.append(j["rtt_ns_p50"]); fl.append(j["raw_ring_pp_floor_ns_p50"])
                raw.append(j["raw_ring_pp_rtt_ns_p50"])
                ratio.append(j["rtt_ns_p50"] / j["raw_ring_pp_floor_ns_p50"])
if p50:
    print("RTT p50 %.0f ns median (runs: %s)" % (statistics.median(p50),
          " ".join(str(x) for x in p50)))
    print("floor p50 %.0f ns median (raw ping-pong RTT %.0f ns x 4/2; runs: %s)" %
          (statistics.median(fl), statistics.median(raw), " ".join(str(x) for x in fl)))
    print("ratio %.2fx median of the per-run ratios (runs: %s); ratio of the medians %.2fx" %
          (statistics.median(ratio), " ".join("%.2f" % x for x in ratio),
           statistics.median(p50) / statistics.median(fl)))
PY
	echo "command: $P $E2 -- --transport loop --mode lat --size 64 --secs $SECS --engine lcore --raw-ring-pp --json"
	echo "cpu:     the process held $(cpu_share "$OUT"/lat.*.cpu) of its two cores"
	echo "target:  <= 2x the floor"
	echo
fi
# ---------------------------------------------------------------- 6.
if has prof; then
	echo "== 6. where the time goes: rds-perf stream 32 B, lcore engine, one run of $SECS s (perf, cpu-clock samples, self)"
	if ! command -v perf > /dev/null; then
		echo "perf is not installed: profile skipped (this script installs nothing)"
	elif run 120 perf record -q -e cpu-clock -F 2000 -o "$OUT/perf.data" -- \
		"$P" $E2 -- --transport loop --mode stream --size 32 --secs "$SECS" \
		--engine lcore --json > "$OUT/perf.log" 2>&1; then
		perf report -i "$OUT/perf.data" --no-children --sort comm,sym \
			--stdio 2> /dev/null | grep -E '^ +[0-9.]+%' | head -"$TOP"
		echo "(comm rte-worker-1: the engine lcore; rds-perf: the application thread, both sides)"
		echo "command: perf record -e cpu-clock -F 2000 -- $P $E2 -- --transport loop --mode stream --size 32 --secs $SECS --engine lcore --json"
		echo "         perf report --no-children --sort comm,sym --stdio"
	else
		echo "perf record failed here (see $OUT/perf.log): profile skipped"
	fi
	echo
fi
echo "busy after: $(busy) % of all cores not idle over 1 s"
