#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-rdma.sh - RDMA benchmark of librte_rds: rds-perf's rdma-read and
# rdma-write modes over the ib transport (rxe, soft-RoCE, in the test VM)
# next to perftest's ib_read_lat and ib_write_lat in the same boot, and
# over the loop transport on the host. Not a meson test: run it by hand
# after a build.
#
# Usage: test/rxe/bench-rdma.sh [options] BUILD_DIR
#   --secs S       measured seconds of each rds-perf ib run (default 5)
#   --iters N      perftest iterations at 64 B (default 2000; a quarter of
#                  that at 64 KiB)
#   --loop-secs S  measured seconds of each rds-perf loop run (default 2)
#   --loop-runs N  rds-perf loop runs per case, medians taken (default 3)
#   --no-vm        skip the VM boot (loop on the host only)
#   --no-host      skip the loop runs on the host
#   -t SEC         hard limit for the VM boot (default 900)
#
# One VM boot (rds_rdma, rds_tcp and rds not loaded, so that librte_rds
# can have RDMA-CM port 18634), 2048 MiB, 2 vCPUs, rxe0 on eth0 with
# 10.0.2.15 and a second address 10.0.2.16; server on 10.0.2.16 (CPU 0 /
# EAL -l 0), client on 10.0.2.15 (CPU 1 / EAL -l 1):
#   (a) ib_read_lat and ib_write_lat, -s 64 and -s 65536, server and client
#       pinned with taskset. perftest's latency figures: ib_write_lat (a
#       ping-pong of WRITEs, like ib_send_lat) prints HALF its round trip,
#       so its RTT here is 2 x t_typical; ib_read_lat prints the whole READ
#       round trip (perftest divides by 2 for send/write only: its
#       rtt_factor is 1 for READ and atomics), so its RTT is t_typical. The
#       output header says neither ("t_typical[usec]" in both).
#   (b) rds-perf --transport ib --mode rdma-read / rdma-write: 64 B depth 1
#       (lat), 64 KiB depth 1, 64 KiB depth 4 (bw); --secs each.
# On the host, before or after the boot (never while a VM runs, so that
# TCG does not share the cores):
#   (c) rds-perf --transport loop --mode rdma-read / rdma-write, the same
#       three cases, --loop-runs times each; medians.
#
# An rds-perf round trip is request SEND -> the server's RDMA (a READ is
# fenced before the reply, as the library always does) -> the reply SEND
# (the "RDMA ACK"): compare it with the perftest RTT of the same verb and
# size, which has no SEND around it.
#
# Ends with a summary table. rds-perf's EAL arguments are -l 0 (server) or
# -l 1 (client), --file-prefix, --no-pci and $RDS_BENCH_EAL (default
# "--no-huge -m 512"; add e.g. --log-level=pmd.rds.ib:debug
# --log-level=lib.rds:debug there). Other VMs on the host are waited for
# (up to 30 min) before the boot and before the host runs. Wall time:
# about 2.5 min with the defaults.
#
# Exit status: 0 when every step ran and rds-perf reported no error, 1 on a
# failure, 77 when the VM cannot run here, 2 on a bad command line.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

SRV_IP=10.0.2.16
CLI_IP=10.0.2.15
RDS_PORT=18000
# rds-perf cases: mode size depth
CASES="64:1 65536:1 65536:4"

# ======================================================================
# Inside the VM
# ======================================================================
say() { echo "BENCH $*"; }
note() { echo "bench: $*"; }

# The second address, and its RoCE v2 GID (it takes a moment to appear).
vm_addrs() {
	ip addr add "$SRV_IP/24" dev eth0 || return 1
	local i
	for i in $(seq 1 50); do
		GID_SRV=$("$HERE/gid-index.sh" rxe0 "$SRV_IP" 2>/dev/null) && break
		sleep 0.2
	done
	GID_CLI=${RDS_VM_GID_INDEX:-}
	if [ -z "${GID_SRV:-}" ] || [ -z "$GID_CLI" ]; then
		note "FAIL: no RoCE v2 GID for $SRV_IP or $CLI_IP on rxe0"
		return 1
	fi
	note "rxe0: $CLI_IP = GID $GID_CLI, $SRV_IP = GID $GID_SRV; $(nproc) vCPUs"
}

# (a) perftest ib_<verb>_lat: server on CPU 0 / SRV_IP's GID, client on
# CPU 1. Prints its output; BENCH lines with t_typical and the 99th
# percentile (us, as printed).
vm_perftest() {
	local verb=$1 size=$2 n=$3 ok=0 spid src line
	local tag=${verb}_${size}
	local lat=("ib_${verb}_lat" -d rxe0 -s "$size" -n "$n")
	local slog=/tmp/bench-pt-srv-$tag.txt clog=/tmp/bench-pt-cli-$tag.txt
	taskset -c 0 timeout 180 "${lat[@]}" -x "$GID_SRV" > "$slog" 2>&1 &
	spid=$!
	for _ in $(seq 1 20); do
		sleep 1	# let the server listen
		if taskset -c 1 timeout 180 "${lat[@]}" -x "$GID_CLI" "$SRV_IP" \
			> "$clog" 2>&1; then
			ok=1
			break
		fi
		kill -0 "$spid" 2>/dev/null || break
	done
	wait "$spid"
	src=$?
	if [ "$ok" != 1 ] || [ "$src" != 0 ]; then
		cat "$clog" "$slog"
		note "FAIL: ib_${verb}_lat -s $size (client ok=$ok, server status $src)"
		return 1
	fi
	# The test's banner and the result lines (header as printed).
	grep -E 'Latency Test|Number of qps|Mtu|#bytes' "$clog"
	line=$(awk '/t_typical/ { getline; print; exit }' "$clog")
	echo "$line"
	set -- $line
	[ $# -ge 9 ] || { note "FAIL: no result line in the ib_${verb}_lat output"; return 1; }
	# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	say "pt ${verb} ${size} typ $5 p99 $8"
}

# (b) rds-perf: server (-l 0, SRV_IP) in the background, client (-l 1,
# CLI_IP) in the foreground; the server exits when the client is done.
vm_rds_perf() {
	local mode=$1 size=$2 depth=$3 secs=$4
	local tag=${mode}_${size}_${depth}
	local perf="$BUILD/app/rds-perf/rds-perf"
	local eal_mem="--no-pci ${RDS_BENCH_EAL:---no-huge -m 512}"
	local lim=$((secs + 90)) spid src crc
	local slog=/tmp/bench-perf-srv-$tag.txt clog=/tmp/bench-perf-cli-$tag.txt

	# shellcheck disable=SC2086 # eal_mem is a list of arguments
	timeout -k 5 "$lim" \
		"$perf" -l 0 $eal_mem --file-prefix=bench-srv-$tag -- \
		--transport ib --role server --local "$SRV_IP" --peer "$CLI_IP" \
		--port "$RDS_PORT" --wait 60 --json > "$slog" 2>&1 &
	spid=$!
	# shellcheck disable=SC2086
	timeout -k 5 "$lim" \
		"$perf" -l 1 $eal_mem --file-prefix=bench-cli-$tag -- \
		--transport ib --role client --local "$CLI_IP" --peer "$SRV_IP" \
		--port "$RDS_PORT" --wait 60 --mode "$mode" --size "$size" \
		--depth "$depth" --secs "$secs" --json > "$clog" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	note "rds-perf $tag: client status $crc, server status $src"
	grep -v '^EAL: \|^TELEMETRY: ' "$clog"
	echo "--- server ($tag):"
	grep -v '^EAL: \|^TELEMETRY: ' "$slog"
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		note "FAIL: rds-perf $tag (client status $crc, server status $src; 124 = timeout)"
		return 1
	fi
	say "rp ib $mode $size $depth p50 $(awk '/^rtt p50:/ { print $3; exit }' "$clog")" \
		"p99 $(awk '/^rtt p99:/ { print $3; exit }' "$clog")" \
		"mps $(awk '/^msgs\/s:/ { print $2; exit }' "$clog")" \
		"mbs $(awk '/^MB\/s:/ { print $2; exit }' "$clog")" \
		"notif $(awk '/^notifications:/ { print $2; exit }' "$slog")"
}

in_vm() {
	local rc=0 verb size c
	BUILD=$1 SECS=$2 ITERS=$3
	vm_addrs || return 1
	if lsmod 2>/dev/null | grep -q '^rds_rdma'; then
		note "FAIL: rds_rdma is loaded: it holds RDMA-CM port 18634"
		return 1
	fi
	for verb in read write; do
		for size in 64 65536; do
			echo "== (a) ib_${verb}_lat -s $size over rxe0 ($CLI_IP -> $SRV_IP)"
			vm_perftest "$verb" "$size" \
				"$([ "$size" = 64 ] && echo "$ITERS" || echo $((ITERS / 4)))" || rc=1
		done
	done
	for verb in read write; do
		for c in $CASES; do
			echo "== (b) rds-perf ib rdma-$verb ${c%%:*} B, depth ${c##*:}"
			vm_rds_perf "rdma-$verb" "${c%%:*}" "${c##*:}" "$SECS" || rc=1
		done
	done
	return "$rc"
}

if [ "${1:-}" = --in-vm ]; then
	shift
	in_vm "$@"
	exit $?
fi

# ======================================================================
# On the host
# ======================================================================
usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
SECS=5 ITERS=2000 LOOP_SECS=2 LOOP_RUNS=3 VM=1 HOST=1 VMTIMEOUT=900
while [ $# -gt 0 ]; do
	case $1 in
	--secs) SECS=${2:?}; shift ;;
	--iters) ITERS=${2:?}; shift ;;
	--loop-secs) LOOP_SECS=${2:?}; shift ;;
	--loop-runs) LOOP_RUNS=${2:?}; shift ;;
	--no-vm) VM=0 ;;
	--no-host) HOST=0 ;;
	-t) VMTIMEOUT=${2:?}; shift ;;
	-h|--help) usage 0 ;;
	-*) echo "bench-rdma: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || usage
BUILD=$(cd "$1" && pwd) || exit 2
[[ $SECS =~ ^[0-9]+$ && $ITERS =~ ^[0-9]+$ && $LOOP_RUNS =~ ^[0-9]+$ &&
   $LOOP_SECS =~ ^[0-9.]+$ ]] ||
	{ echo "bench-rdma: --secs, --iters, --loop-runs take whole numbers" >&2; exit 2; }
[ -e "$BUILD/app/rds-perf/rds-perf" ] ||
	{ echo "bench-rdma: $BUILD/app/rds-perf/rds-perf missing: build first (ninja -C $BUILD)" >&2; exit 2; }

# One VM at a time on this host: wait for any other to end (up to 30 min).
wait_no_vm() {
	local i
	for i in $(seq 1 360); do
		pgrep -f qemu-system >/dev/null || return 0
		[ "$i" = 1 ] && echo "bench-rdma: another VM is running; waiting for it to end"
		sleep 5
	done
	echo "bench-rdma: FAIL: another VM is still running after 30 min" >&2
	exit 1
}

# (c) rds-perf over loop on the host, one process, inline engine.
host_loop() {
	local verb c mode size depth i out rc
	local eal="-l 0 --no-pci ${RDS_BENCH_EAL:---no-huge -m 512} --file-prefix=bench-rdma-$$"
	for verb in read write; do
		mode=rdma-$verb
		for c in $CASES; do
			size=${c%%:*} depth=${c##*:}
			for i in $(seq 1 "$LOOP_RUNS"); do
				echo "== (c) rds-perf loop $mode $size B, depth $depth, run $i of $LOOP_RUNS (host)"
				# shellcheck disable=SC2086 # eal is a list of arguments
				out=$(timeout -k 5 120 "$BUILD/app/rds-perf/rds-perf" $eal -- \
					--transport loop --mode "$mode" --size "$size" \
					--depth "$depth" --secs "$LOOP_SECS" --json 2>&1)
				rc=$?
				echo "$out" | grep -v '^EAL: \|^TELEMETRY: \|^{'
				if [ "$rc" != 0 ]; then
					echo "bench-rdma: FAIL: rds-perf loop $mode $size $depth (status $rc)"
					status=1
					continue
				fi
				echo "BENCH rp loop $mode $size $depth" \
					"p50 $(echo "$out" | awk '/^rtt p50:/ { print $3; exit }')" \
					"p99 $(echo "$out" | awk '/^rtt p99:/ { print $3; exit }')" \
					"mps $(echo "$out" | awk '/^msgs\/s:/ { print $2; exit }')" \
					"mbs $(echo "$out" | awk '/^MB\/s:/ { print $2; exit }')" \
					"notif $(echo "$out" | awk '/^notifications:/ { print $2; exit }')"
			done
		done
	done
}

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
me=$(printf '%q' "$HERE/bench-rdma.sh")
args="$(printf '%q' "$BUILD") $SECS $ITERS"
envs=()
[ -z "${RDS_BENCH_EAL:-}" ] || envs=(--env "RDS_BENCH_EAL=$RDS_BENCH_EAL")
status=0

if [ "$VM" = 1 ]; then
	wait_no_vm
	echo "bench-rdma: VM boot (librte_rds; rds, rds_tcp, rds_rdma not loaded)"
	"$HERE/vm-run.sh" -t "$VMTIMEOUT" --mem 2048 "${envs[@]}" \
		--kargs "rdsvm_nomod=rds_rdma,rds_tcp,rds" -- \
		"$me --in-vm $args" | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 77 ] && exit 77
	[ "$rc" = 0 ] || { echo "bench-rdma: VM run failed (status $rc)"; status=1; }
fi
if [ "$HOST" = 1 ]; then
	wait_no_vm
	echo "bench-rdma: host ($(nproc) CPUs), loop transport"
	host_loop | tee -a "$LOG"
	grep -q '^bench-rdma: FAIL' "$LOG" && status=1
fi

# ---- summary -------------------------------------------------------------------
echo
echo "==== bench-rdma summary (RTT in us; rds-perf: p50 RTT, client side)"
grep '^BENCH ' "$LOG" | awk -v runs="$LOOP_RUNS" '
function median(a, n,    s, i, j, t) {
	for (i = 1; i <= n; i++) s[i] = a[i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] + 0 < s[i] + 0) { t = s[i]; s[i] = s[j]; s[j] = t }
	return (n % 2) ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
}
$2 == "pt" {
	# perftest: READ prints the whole round trip, WRITE half of it.
	k = $3 " " $4
	ptrtt[k] = ($3 == "read" ? 1 : 2) * $6
	ptraw[k] = $6
	ptp99[k] = ($3 == "read" ? 1 : 2) * $8
}
$2 == "rp" {
	k = $3 " " $4 " " $5 " " $6
	if (!(k in n)) order[++nk] = k
	i = ++n[k]
	p50[k, i] = $8; p99[k, i] = $10; mps[k, i] = $12; mbs[k, i] = $14; notif[k, i] = $16
}
END {
	printf "%-6s %-10s %6s %5s | %10s %10s %12s %10s | %s\n", "where", "mode", "size", "depth", "p50 RTT", "p99 RTT", "round trips/s", "MB/s", "perftest peer (same boot)"
	for (o = 1; o <= nk; o++) {
		k = order[o]
		split(k, f, " ")
		m = n[k]
		for (i = 1; i <= m; i++) { a50[i] = p50[k, i]; a99[i] = p99[k, i]; am[i] = mps[k, i]; ab[i] = mbs[k, i] }
		v50 = median(a50, m) / 1000; v99 = median(a99, m) / 1000
		verb = (f[2] == "rdma-read") ? "read" : "write"
		peer = ""
		if (f[1] == "ib" && f[4] == 1 && ((verb " " f[3]) in ptrtt)) {
			pk = verb " " f[3]
			peer = sprintf("ib_%s_lat RTT %.2f (%s t_typical %.2f), rds-perf/perftest %.2fx", verb, ptrtt[pk], (verb == "read" ? "=" : "= 2 x"), ptraw[pk], v50 / ptrtt[pk])
		}
		if (f[1] == "ib" && f[4] > 1 && ((verb " " f[3]) in ptrtt))
			peer = sprintf("(depth %d; ib_%s_lat RTT %.2f at depth 1)", f[4], verb, ptrtt[verb " " f[3]])
		printf "%-6s %-10s %6s %5s | %10.2f %10.2f %12.0f %10.3f | %s%s\n", f[1], f[2], f[3], f[4], v50, v99, median(am, m), median(ab, m), peer, (m > 1 ? sprintf(" [median of %d runs]", m) : "")
	}
	for (k in ptrtt) {
		split(k, f, " ")
		printf "perftest ib_%s_lat -s %s: t_typical %.2f us as printed -> RTT %.2f us (p99 RTT %.2f us)\n", f[1], f[2], ptraw[k], ptrtt[k], ptp99[k]
	}
}'
exit "$status"
