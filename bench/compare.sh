#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every path on the machine at hand, in one run, against its floor and
# against kernel sockets (doc/perf.md, "Comparison"):
#
#   bench/compare.sh BUILD_DIR [--vm] [--runs N] [--secs S] [--out DIR]
#                    [--write-doc] [--paths "P..."] [--no-scale]
#
# Paths (each 64 B RTT p50/p99 with --mode lat, 64 B one-way msgs/s and
# 64 KiB one-way MB/s with --mode stream, counted by the receiver):
#   loop       rds-perf --transport loop, engine on lcore 1 (-l 0-1); its
#              floor from the same runs: --raw-ring-pp (the RTT floor of
#              lat --engine lcore) and --raw-ring (one thread, bursts of
#              32: the in-process rate floor)
#   ring       eth over a net_ring pair in one process (rds-bench-eth,
#              bench/eth_loop.c: one thread sends, polls, receives; no
#              RTT), and its floor (--raw: plain frames)
#   memif      rds-perf --transport eth over net_memif, two processes on
#              cores 0 and 1, and --raw (bench/eth-compare.sh, RUNS=1 a
#              call)
#   af_packet  the same over net_af_packet on a veth pair between two
#              namespaces (bench/eth-netns.sh)
#   klo        kernel UDP and TCP over loopback, blocking and busy-poll
#              (rds-bench-sockpp, bench/sockpp.c; server on core 1, client
#              on core 0); UDP's "64 KiB" is 65,507 B, its largest datagram
#   kveth      the same over the veth pair (eth-netns.sh with KADDR=1:
#              10.9.1.1 and 10.9.1.2)
# Each of the N runs goes through every path, in the opposite order on
# every other run, so that a slow spell of the machine falls on all of
# them; the table gives medians of the N runs.
#
# Scale (unless --no-scale): bench/core.sh PARTS="cg time" with CASES
# "0 100 1000 10000 60000 p4 p16 p64": instructions per message
# (callgrind) and ns per message of the inline loop over loop with 0 to
# 60,000 more (idle) bound sockets, and with the messages spread over
# 4, 16, 64 peers (addresses, one connection each).
#
# Instructions per message (callgrind, deterministic; needs valgrind):
# the loop path's from scale's case 0 (or bench/core.sh PARTS=cg CASES=0
# with --no-scale), net_ring's from rds-bench-eth under callgrind, 64 B
# one at a time and in bursts of 32 with the retransmit timers out
# (rto 10 s: valgrind's slowness would fire them), as doc/perf.md counts
# them; memif and af_packet run the same driver code as net_ring.
#
# --vm: test/rxe/bench-ib.sh (ib over rxe in a QEMU VM against
# ib_send_lat/ib_send_bw and the kernel's RDS; ~5 min), its summary
# folded into the report.
#
# Output in OUT (default /tmp/rds-compare.PID): results.jsonl (a line a
# measurement: path, case, run, the program's JSON), cdf.* (RTT CDFs),
# noise.log (bench/quiet.sh: load and waits before each measurement),
# cmds.txt (every command), eth.*/ (eth-compare.sh's own), scale/
# (core.sh's), summary.md (the tables), img/compare-*.png. With
# --write-doc the PNGs go to doc/img/ and the section between
# "<!-- compare:begin -->" and "<!-- compare:end -->" of doc/perf.md is
# replaced. Environment: QUIET_PCT (20), QUIET_WAIT (20 s) as in
# eth-compare.sh, before each measurement; QUIET_START (60 s): the wait
# before the first. Needs root (namespaces, hugepages for --in-memory),
# python3, and gnuplot for the plots (said when missing). About
# RUNS x (40 x (SECS + 2)) s plus 3-5 min of scale on 2 cores.

set -u -o pipefail

HERE=$(dirname "$(readlink -f "$0")")
ROOT=$(dirname "$HERE")
BUILD=
RUNS=3
SECS=2
OUT=
VM=0
WRITE_DOC=0
SCALE=1
PATHS="loop ring memif af_packet klo kveth"
ARGS="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--vm) VM=1 ;;
	--runs) RUNS=$2; shift ;;
	--secs) SECS=$2; shift ;;
	--out) OUT=$2; shift ;;
	--write-doc) WRITE_DOC=1 ;;
	--paths) PATHS=$2; shift ;;
	--no-scale) SCALE=0 ;;
	-h | --help) sed -n '3,50p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1 ;;
	esac
	shift
done
[ -n "$BUILD" ] || { echo "usage: $0 BUILD_DIR [--vm] [--runs N] [--secs S] [--out DIR] [--write-doc]" >&2; exit 2; }
BUILD=$(readlink -f "$BUILD")
OUT=${OUT:-/tmp/rds-compare.$$}
P=$BUILD/app/rds-perf/rds-perf
B=$BUILD/bench/rds-bench-eth
S=$BUILD/bench/rds-bench-sockpp
for x in "$P" "$B" "$S" "$BUILD/bench/rds-bench-core"; do
	[ -x "$x" ] || { echo "no $x (build first: ninja -C $BUILD)" >&2; exit 2; }
done
command -v python3 > /dev/null || { echo "needs python3" >&2; exit 2; }
mkdir -p "$OUT"
: > "$OUT/results.jsonl"
: > "$OUT/noise.log"
: > "$OUT/cmds.txt"
export QUIET_PCT=${QUIET_PCT:-20} QUIET_WAIT=${QUIET_WAIT:-20}
QUIET_SKIP="rds-perf rds-bench-eth rds-bench-sockpp eth-compare.sh compare.sh python3 sleep timeout"
. "$HERE/quiet.sh"
PFX=cmp$$
E1="-l 0 --no-pci --no-huge -m 1024 --file-prefix=$PFX --log-level=lib.eal:error"
E2="-l 0-1 --no-pci --no-huge -m 1024 --file-prefix=$PFX --log-level=lib.eal:error"
SRV=

cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2> /dev/null
	"$HERE/eth-netns.sh" down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# record PATH CASE RUN JSON
record() {
	local j=$4
	[ "${j:0:1}" = "{" ] || j='{"failed":true}'
	echo "{\"path\":\"$1\",\"case\":\"$2\",\"run\":$3,\"r\":$j}" >> "$OUT/results.jsonl"
	printf '%-22s %-10s run %s: %s\n' "$1" "$2" "$3" "$j"
}

# logged CMD...: run it under a timeout, logged, output in $OUT/last.log
logged() {
	echo "$*" >> "$OUT/cmds.txt"
	timeout $((SECS * 3 + 60)) "$@" > "$OUT/last.log" 2>&1
}

size_of() {	# case -> mode size
	case $1 in
	lat64) echo "lat 64" ;;
	stream64) echo "stream 64" ;;
	stream64k) echo "stream 65536" ;;
	esac
}

path_loop() {	# run
	local cs ms hist
	for cs in lat64 stream64 stream64k; do
		set -- $(size_of $cs)
		hist=
		if [ "$1" = lat ]; then
			hist="--raw-ring-pp --histogram $OUT/cdf.loop.$cs.$RUN.txt"
		else
			hist="--raw-ring"
		fi
		quiet "loop $cs"
		logged "$P" $E2 -- --transport loop --mode "$1" --size "$2" \
			--secs "$SECS" --engine lcore $hist --json
		record loop "$cs" "$RUN" "$(grep '^{' "$OUT/last.log" | tail -1)"
		# the raw ring's rate, from its text line (Mops/s)
		ms=$(sed -n 's/^raw ring floor.*: \([0-9.]*\) Mops\/s.*/\1/p' "$OUT/last.log")
		[ -n "$ms" ] && record loop_floor "$cs" "$RUN" \
			"{\"raw_ring_mops\":$ms,\"size\":$2}"
	done
}

path_ring() {
	local cs raw
	for cs in stream64 stream64k; do
		set -- $(size_of $cs)
		for raw in "" --raw; do
			quiet "ring $cs $raw"
			logged "$B" $E1 -- --msgs $([ "$2" = 64 ] && echo 200000 || echo 4000) \
				--size "$2" --burst 1 --runs 3 $raw
			record "ring${raw:+_floor}" "$cs" "$RUN" "$(grep '^{' "$OUT/last.log" | tail -1)"
		done
	done
}

path_eth() {	# pmd: bench/eth-compare.sh, one run of each case
	local d=$OUT/eth.$1.$RUN
	echo "RUNS=1 SECS=$SECS PMDS=$1 HIST=1 OUT=$d bash $HERE/eth-compare.sh $BUILD" >> "$OUT/cmds.txt"
	RUNS=1 SECS=$SECS PMDS=$1 CASES="lat64 stream64 stream64k" HIST=1 OUT=$d \
		bash "$HERE/eth-compare.sh" "$BUILD" > "$d.log" 2>&1 ||
		echo "eth-compare.sh $1 failed: $d.log" >&2
	python3 - "$d" "$1" "$RUN" "$OUT" <<'PY' | tee -a "$OUT/results.jsonl"
import json, os, shutil, sys
d, pmd, run, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
for l in open(d + "/results.jsonl"):
    r = json.loads(l)
    path = pmd + ("_floor" if r["is_raw"] else "")
    print(json.dumps({"path": path, "case": r["case"], "run": run, "r": r["r"]}))
    c = "%s/cdf.%s.%s.%d.1.txt" % (d, pmd, r["case"], r["is_raw"])
    if os.path.exists(c):
        shutil.copy(c, "%s/cdf.%s.%s.%d.txt" % (out, path, r["case"], run))
PY
	cat "$d/cmds.txt" >> "$OUT/cmds.txt"
}

path_kernel() {	# lo|veth
	local net=$1 proto busy cs ns_s= ns_c= sl=127.0.0.1 cl=127.0.0.1 name size
	if [ "$net" = veth ]; then
		KADDR=1 "$HERE/eth-netns.sh" up
		ns_s="ip netns exec rdsperfB"; ns_c="ip netns exec rdsperfA"
		sl=10.9.1.2; cl=10.9.1.1
	fi
	for proto in udp tcp; do
		for busy in "" --busy; do
			name=k${net}_${proto}_$([ -n "$busy" ] && echo busy || echo block)
			for cs in lat64 stream64 stream64k; do
				set -- $(size_of $cs)
				size=$2
				[ "$proto" = udp ] && [ "$size" = 65536 ] && size=65507
				quiet "$name $cs"
				echo "  server: $ns_s $S --role server --local $sl --cpu 1" >> "$OUT/cmds.txt"
				$ns_s "$S" --role server --local $sl --cpu 1 > "$OUT/srv.log" 2>&1 &
				SRV=$!
				logged $ns_c "$S" --role client --local $cl --peer $sl --cpu 0 \
					--proto $proto --mode "$1" --size $size --secs "$SECS" $busy --json \
					$([ "$1" = lat ] && echo "--histogram $OUT/cdf.$name.$cs.$RUN.txt")
				wait "$SRV" 2> /dev/null
				SRV=
				record "$name" "$cs" "$RUN" "$(grep '^{' "$OUT/last.log" | tail -1)"
			done
		done
	done
	[ "$net" = veth ] && "$HERE/eth-netns.sh" down
}

one_path() {
	case $1 in
	loop) path_loop ;;
	ring) path_ring ;;
	memif | af_packet) path_eth "$1" ;;
	klo) path_kernel lo ;;
	kveth) path_kernel veth ;;
	*) echo "unknown path $1" >&2; exit 2 ;;
	esac
}

{
	echo "date=$(date -u '+%F %T UTC')"
	echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
	echo "cores=$(nproc)"
	echo "kernel=$(uname -r)"
	echo "mem=$(free -g | awk '/^Mem:/ {print $2}') GiB"
	echo "args=$ARGS"
	echo "runs=$RUNS"
	echo "secs=$SECS"
	echo "paths=$PATHS"
	echo "quiet=QUIET_PCT=$QUIET_PCT QUIET_WAIT=$QUIET_WAIT"
	echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

# once, before everything: a longer wait for a quiet machine
QUIET_WAIT=${QUIET_START:-60} quiet start
for RUN in $(seq 1 "$RUNS"); do
	order=$PATHS
	[ $((RUN % 2)) = 0 ] && order=$(echo $PATHS | tr ' ' '\n' | tac | tr '\n' ' ')
	echo "== run $RUN of $RUNS: $order"
	for p in $order; do
		one_path "$p"
	done
done

if [ "$SCALE" = 1 ]; then
	echo "== scale: bench/core.sh (callgrind and time, idle sockets and peers)"
	quiet scale
	echo "OUT=$OUT/scale RUNS=$RUNS PARTS=\"cg time\" CASES=\"0 100 1000 10000 60000 p4 p16 p64\" bash $HERE/core.sh $BUILD" >> "$OUT/cmds.txt"
	OUT=$OUT/scale RUNS=$RUNS PARTS="cg time" \
		CASES="0 100 1000 10000 60000 p4 p16 p64" \
		bash "$HERE/core.sh" "$BUILD" > "$OUT/scale.log" 2>&1 ||
		echo "core.sh failed: $OUT/scale.log" >&2
fi

echo "== instructions per message (callgrind)"
mkdir -p "$OUT/instr"
if ! command -v valgrind > /dev/null; then
	echo "valgrind not found: no instruction counts (config/setup.sh installs it)" |
		tee "$OUT/instr/none.txt"
else
	if [ "$SCALE" != 1 ]; then
		echo "OUT=$OUT/instr/core PARTS=cg CASES=0 bash $HERE/core.sh $BUILD" >> "$OUT/cmds.txt"
		OUT=$OUT/instr/core PARTS=cg CASES=0 bash "$HERE/core.sh" "$BUILD" \
			> "$OUT/instr/core.log" 2>&1 ||
			echo "core.sh failed: $OUT/instr/core.log" >&2
	fi
	for burst in 1 32; do
		n=$([ $burst = 1 ] && echo 20000 || echo 2000)
		c="valgrind --tool=callgrind --callgrind-out-file=$OUT/instr/eth.$burst.cg --toggle-collect=bench_eth_loop $B -l 0 --no-pci --no-huge -m 1024 --file-prefix ecg$$ --log-level=lib.eal:error -- --msgs $n --burst $burst --size 64 --runs 1 --eth-opts rto_min_us=10000000,rto_max_us=10000000"
		echo "$c" >> "$OUT/cmds.txt"
		$c > "$OUT/instr/eth.$burst.log" 2>&1 ||
			echo "rds-bench-eth under callgrind failed: $OUT/instr/eth.$burst.log" >&2
		echo "msgs=$n burst=$burst" >> "$OUT/instr/eth.$burst.log"
	done
fi

if [ "$VM" = 1 ]; then
	echo "== --vm: test/rxe/bench-ib.sh (QEMU VM, ib over rxe)"
	echo "$ROOT/test/rxe/bench-ib.sh --secs $SECS --runs $RUNS $BUILD" >> "$OUT/cmds.txt"
	"$ROOT/test/rxe/bench-ib.sh" --secs "$SECS" --runs "$RUNS" "$BUILD" > "$OUT/ib.log" 2>&1
	echo "bench-ib.sh: exit $?" >> "$OUT/ib.log"
fi
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"

python3 "$HERE/compare_report.py" "$OUT" "$ROOT" "$WRITE_DOC"
