#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rds-perf over the eth transport against its floor (rds-perf --raw:
# the same PMD, sizes and pattern with plain frames, no RDS), two
# processes each pinned to its own core (-l 0, -l 1), over net_memif and
# over net_af_packet on a veth pair between two namespaces
# (bench/eth-netns.sh). The figures of doc/rds-perf.md, section "eth".
#
#   bench/eth-compare.sh [BUILD_DIR]        (default: build)
#
# Environment:
#   RUNS=5          runs of each case (the summary gives medians, min-max)
#   SECS=5          measured seconds of each run (after a 0.2 s warm-up)
#   PMDS="memif af_packet"
#   CASES="lat64 stream64 stream64k lat64_loss stream64_loss"
#   OUT=DIR         where results go (default /tmp/rds-eth-compare.PID)
#   QUIET_PCT=20    before each run, wait (up to QUIET_WAIT=60 s) until no
#                   other process took more than this much of a core over
#                   the last second; 0: never wait. What else ran (over
#                   the threshold, or 10 % with 0) is logged.
#   HIST=1          the lat cases also write their RTT CDF (rds-perf
#                   --histogram) to OUT/cdf.PMD.CASE.RAW.RUN.txt
#                   (bench/compare.sh draws them)
#
# Cases (RDS and --raw each, interleaved run by run so that the noise of
# a shared machine falls on both):
#   lat64          --mode lat --size 64: RTT p50, p99
#   stream64       --mode stream --size 64: msgs/s (raw: frames/s)
#   stream64k      --mode stream --size 65536: payload Gbps
#   lat64_loss     lat64 with --faults drop=10000 on both sides (1 % of
#                  the frames each process receives); RDS only (raw would
#                  lose 2 % of its round trips and wait for them)
#   stream64_loss  stream64 with the same faults; RDS only
#
# Output: OUT/results.jsonl (one line a run: pmd, case, raw, run, the
# client's JSON), OUT/noise.log, OUT/cmds.txt (every command line run),
# OUT/summary.md (the table, the commands, the noise), printed at the end.
# Needs root (namespaces, hugepages) and hugepages (--in-memory).

set -u

BUILD=${1:-build}
P=$(readlink -f "$BUILD/app/rds-perf/rds-perf")
HERE=$(dirname "$(readlink -f "$0")")
RUNS=${RUNS:-5}
SECS=${SECS:-5}
PMDS=${PMDS:-memif af_packet}
CASES=${CASES:-lat64 stream64 stream64k lat64_loss stream64_loss}
OUT=${OUT:-/tmp/rds-eth-compare.$$}
QUIET_PCT=${QUIET_PCT:-20}
QUIET_WAIT=${QUIET_WAIT:-60}
NS_A=rdsperfA
NS_B=rdsperfB

[ -x "$P" ] || { echo "no $P (build first)" >&2; exit 2; }
mkdir -p "$OUT"
: > "$OUT/results.jsonl"
: > "$OUT/noise.log"
: > "$OUT/cmds.txt"

cleanup() {
	[ -n "${SRV:-}" ] && kill "$SRV" 2>/dev/null
	if [[ " $PMDS " == *" af_packet "* ]]; then
		"$HERE/eth-netns.sh" down
	fi
}
trap cleanup EXIT

case_args() {	# case -> client arguments, server arguments
	case "$1" in
	lat64) echo "--mode lat --size 64|" ;;
	stream64) echo "--mode stream --size 64|" ;;
	stream64k) echo "--mode stream --size 65536|" ;;
	lat64_loss) echo "--mode lat --size 64 --faults drop=10000|--faults drop=10000" ;;
	stream64_loss) echo "--mode stream --size 64 --faults drop=10000|--faults drop=10000" ;;
	*) echo "unknown case $1" >&2; exit 2 ;;
	esac
}

# busy_now and quiet (bench/quiet.sh), the benchmark's own processes
# left out.
QUIET_SKIP="rds-perf eth-compare.sh python3 sleep timeout"
. "$HERE/quiet.sh"

# One run: pmd case raw run -> a line of results.jsonl
one() {
	local pmd=$1 cs=$2 raw=$3 run=$4 args cargs sargs sock vs vc ns_s ns_c
	args=$(case_args "$cs")
	cargs=${args%%|*}
	sargs=${args#*|}
	[ "$raw" = 1 ] && { cargs="$cargs --raw"; sargs="$sargs --raw"; }
	[ "${HIST:-0}" = 1 ] && [ "$cs" = lat64 ] &&
		cargs="$cargs --histogram $OUT/cdf.$pmd.$cs.$raw.$run.txt"
	case $pmd in
	memif)
		sock=/tmp/rds-eth-compare.$$.sock
		vs="--vdev=net_memif0,role=server,socket=$sock"
		vc="--vdev=net_memif0,role=client,socket=$sock"
		ns_s=""; ns_c="" ;;
	af_packet)
		vs="--vdev=net_af_packet0,iface=rpvB,qpairs=1"
		vc="--vdev=net_af_packet0,iface=rpvA,qpairs=1"
		ns_s="ip netns exec $NS_B"; ns_c="ip netns exec $NS_A" ;;
	esac
	local scmd="$ns_s $P -l 1 --no-pci --in-memory --file-prefix ecs$$ $vs -- --transport eth --role server --local 10.9.0.2 --peer 10.9.0.1 --secs 20 $sargs"
	local ccmd="$ns_c $P -l 0 --no-pci --in-memory --file-prefix ecc$$ $vc -- --transport eth --role client --local 10.9.0.1 --peer 10.9.0.2 $cargs --secs $SECS --json"
	echo "$pmd $cs raw=$raw run=$run" >> "$OUT/cmds.txt"
	echo "  server: $scmd" >> "$OUT/cmds.txt"
	echo "  client: $ccmd" >> "$OUT/cmds.txt"
	quiet
	$scmd > "$OUT/srv.log" 2>&1 &
	SRV=$!
	sleep 0.3
	timeout $((SECS + 60)) $ccmd > "$OUT/cli.log" 2>&1
	local rc=$?
	wait "$SRV"
	local src=$?
	SRV=
	local j
	j=$(tail -1 "$OUT/cli.log")
	if [ $rc -ne 0 ] || [ $src -ne 0 ] || [ "${j:0:1}" != "{" ]; then
		echo "FAILED: $pmd $cs raw=$raw run=$run (client $rc, server $src); logs in $OUT/fail.$pmd.$cs.$raw.$run.*" >&2
		cp "$OUT/cli.log" "$OUT/fail.$pmd.$cs.$raw.$run.cli"
		cp "$OUT/srv.log" "$OUT/fail.$pmd.$cs.$raw.$run.srv"
		j='{"failed":true}'
	fi
	echo "{\"pmd_name\":\"$pmd\",\"case\":\"$cs\",\"is_raw\":$raw,\"run\":$run,\"r\":$j}" >> "$OUT/results.jsonl"
	printf '%s %s raw=%s run %s: %s\n' "$pmd" "$cs" "$raw" "$run" "$j"
}

for pmd in $PMDS; do
	[ "$pmd" = af_packet ] && "$HERE/eth-netns.sh" up
	for run in $(seq 1 "$RUNS"); do
		for cs in $CASES; do
			one "$pmd" "$cs" 0 "$run"
			case $cs in *_loss) continue ;; esac
			one "$pmd" "$cs" 1 "$run"
		done
	done
	[ "$pmd" = af_packet ] && "$HERE/eth-netns.sh" down
done

python3 - "$OUT" "$SECS" "$RUNS" <<'EOF' | tee "$OUT/summary.md"
import json, statistics, sys
out, secs, runs = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(out + "/results.jsonl")]
def vals(pmd, cs, raw, key):
    v = [r["r"][key] for r in rows if r["pmd_name"] == pmd and r["case"] == cs
         and r["is_raw"] == raw and not r["r"].get("failed") and key in r["r"]]
    return v
def fmt(v, scale=1.0, unit="", prec=0):
    if not v:
        return "-", None
    m = statistics.median(v) * scale
    return ("%.*f%s (%.*f-%.*f)" % (prec, m, unit, prec, min(v) * scale,
                                   prec, max(v) * scale)), m
pmds = []
for r in rows:
    if r["pmd_name"] not in pmds:
        pmds.append(r["pmd_name"])
print("rds-perf over eth against --raw: medians of %s runs (min-max), %s s each\n" % (runs, secs))
print("RDS / raw: the ratio of the medians; paired: the median of the ratios of"
      " run i of RDS and run i of raw (run one after the other); best: the best"
      " run of each (the lowest latency, the highest rate: the least disturbed)\n")
print("| PMD | figure | RDS over eth | raw frames | RDS / raw | paired | best | target |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
spec = [
    ("lat64", "rtt_ns_p50", "64 B RTT p50 (ns)", 1.0, "", 0, "<= 1.3x", lambda q: q <= 1.3, min),
    ("lat64", "rtt_ns_p99", "64 B RTT p99 (ns)", 1.0, "", 0, "", None, min),
    ("stream64", "msgs_per_s", "64 B one way, msgs/s (raw: frames/s)", 1.0, "", 0, ">= 0.7x", lambda q: q >= 0.7, max),
    ("stream64k", "mb_per_s", "64 KiB one way, payload Gbps", 8e-3, "", 2, ">= 0.8x", lambda q: q >= 0.8, max),
]
def paired(pmd, cs, key):
    a = {r["run"]: r["r"][key] for r in rows if r["pmd_name"] == pmd and r["case"] == cs
         and r["is_raw"] == 0 and key in r["r"]}
    b = {r["run"]: r["r"][key] for r in rows if r["pmd_name"] == pmd and r["case"] == cs
         and r["is_raw"] == 1 and key in r["r"]}
    q = [a[i] / b[i] for i in a if i in b and b[i]]
    return statistics.median(q) if q else None
for pmd in pmds:
    for cs, key, label, sc, unit, prec, target, ok, best in spec:
        va, vb = vals(pmd, cs, 0, key), vals(pmd, cs, 1, key)
        a, am = fmt(va, sc, unit, prec)
        b, bm = fmt(vb, sc, unit, prec)
        if am is None and bm is None:
            continue
        q = "%.2fx" % (am / bm) if am and bm else "-"
        pq = paired(pmd, cs, key)
        pq = "%.2fx" % pq if pq else "-"
        bq = "%.2fx" % (best(va) / best(vb)) if va and vb and best(vb) else "-"
        t = target
        if ok and am and bm:
            verdict = [("medians", am / bm), ("paired", paired(pmd, cs, key)),
                       ("best", best(va) / best(vb) if best(vb) else None)]
            t += ": " + ", ".join("%s %s" % (n, "met" if ok(x) else "missed")
                                  for n, x in verdict if x)
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (pmd, label, a, b, q, pq, bq, t))
    for cs, key, label, sc, prec in [
        ("lat64_loss", "rtt_ns_p50", "64 B RTT p50, 1 % loss each way (ns)", 1.0, 0),
        ("lat64_loss", "rtt_ns_p99", "64 B RTT p99, 1 % loss each way (ns)", 1.0, 0),
        ("lat64_loss", "msgs_per_s", "64 B round trips/s, 1 % loss each way", 1.0, 0),
        ("lat64", "msgs_per_s", "64 B round trips/s, no loss", 1.0, 0),
        ("stream64_loss", "msgs_per_s", "64 B one way msgs/s, 1 % loss", 1.0, 0),
    ]:
        a, am = fmt(vals(pmd, cs, 0, key), sc, "", prec)
        if am is None:
            continue
        print("| %s | %s | %s | | | | | |" % (pmd, label, a))
fails = [r for r in rows if r["r"].get("failed")]
print("\nfailed runs: %d%s" % (len(fails), "".join(
    "\n  %s %s raw=%s run %s" % (r["pmd_name"], r["case"], r["is_raw"], r["run"]) for r in fails)))
import re
loads, waits, busy = [], [], {}
for l in open(out + "/noise.log"):
    m = re.search(r"load (\S+) \S+ \S+ waited (\d+) s; busy: (.*)", l)
    if not m:
        continue
    loads.append(float(m.group(1)))
    waits.append(int(m.group(2)))
    for name, pct in re.findall(r"(\S+)\(([\d.]+)%\)", m.group(3)):
        busy[name] = max(busy.get(name, 0.0), float(pct))
if loads:
    print("\nmachine noise: 1-min load average %.2f-%.2f (median %.2f) at the runs' starts; "
          "waited for quiet %d s in all; other processes over the threshold at a start: %s" % (
          min(loads), max(loads), statistics.median(loads), sum(waits),
          ", ".join("%s (up to %.0f%%)" % kv for kv in
                    sorted(busy.items(), key=lambda kv: -kv[1])) or "none"))
print("\ncommands: %s/cmds.txt; machine noise at each run: %s/noise.log" % (out, out))
EOF
