#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-ib.sh - round-trip benchmark of librte_rds's ib transport over rxe
# (soft-RoCE) in the test VM, against perftest's ib_send_lat and the
# kernel's own RDS. Not a meson test: run it by hand after a build.
#
# Usage: test/rxe/bench-ib.sh [options] BUILD_DIR
#   --secs S       measured seconds of each rds-perf run (default 5)
#   --runs N       rds-perf lat runs (default 3)
#   --iters N      ib_send_lat iterations (default 2000) and kernel RDS
#                  round trips (default 5000 = 2.5 x N)
#   --no-kernel    skip the second boot (kernel RDS over rxe)
#   --zc           instead of the above: one boot of --runs pairs of
#                  rds-perf ib stream 64 KiB, zerocopy=0 then zerocopy=1
#                  (both sides; $RDS_BENCH_IB_OPTS is added), and their
#                  median MB/s (payload received, one way)
#   -t SEC         hard limit for each VM boot (default 900)
#
# Boot 1 (rds_rdma, rds_tcp and rds not loaded, as run-in-vm.sh does, so
# that librte_rds can have RDMA-CM port 18634), 2048 MiB, 2 vCPUs, rxe0 on
# eth0 with 10.0.2.15 and a second address 10.0.2.16; one side on each;
# --runs times, back to back (pairs, so that a slower spell of the host
# shows in both members of a pair):
#   (a) ib_send_lat -s 64: server (10.0.2.16, taskset -c 0) and client
#       (10.0.2.15, taskset -c 1); it prints HALF the round trip, so its
#       RTT here is 2 x t_typical;
#   (b) rds-perf --transport ib --mode lat --size 64, server (EAL -l 0,
#       10.0.2.16) in the background, client (-l 1, 10.0.2.15);
#   (e) ib_send_bw -s 64 -D 3 (one-way SENDs, the same CPUs and GIDs): its
#       message rate (MsgRate column);
#   (f) rds-perf --transport ib --mode stream --size 64 (one-way messages,
#       counted by the receiver: msgs/s);
# then
#   (c) rds-perf --transport ib --mode bw --size 32, once;
#   (d) for reference, rds-perf --transport loop --mode lat --size 64 (one
#       process, no verbs: the library's own path under TCG), 2 s.
# The two rds-perf processes share the VM: each instance listens on its
# own ib address, not the wildcard.
# Boot 2 (modules loaded): the kernel's AF_RDS over rxe between the same
# two addresses, with krds_pingpong (SO_RDS_TRANSPORT = RDS_TRANS_IB),
# blocking and busy-polling receive; ib_send_lat again for reference.
#
# Ends with a summary: for each pair the ib_send_lat RTT and the rds-perf
# p50 RTT; their medians, the ratio of the medians over the pairs that
# have both (goal <= 1.3) and how many pairs meet it (the goal is every
# pair); the same for the tails: ib_send_lat's own 99% percentile (x 2,
# it prints half round trips) against rds-perf's p99 RTT (goal <= 2); for each pair ib_send_bw's message rate and rds-perf stream's;
# their medians, ratio and pairs meeting it (goal >= 0.5); the bw
# figures, the loop reference and the kernel RDS p50 RTT. An ib_send_lat
# run whose cycle clock fails under TCG (t_typical "inf") gives no
# figure: its pair shows n/a and is left out of the ratio.
#
# $RDS_BENCH_IB_OPTS: ib driver options for both rds-perf sides (rds-perf
# --ib-opts, e.g. "send_wr=512,srq_min=2048").
#
# rds-perf's EAL arguments are -l 0 (server) or -l 1 (client),
# --file-prefix, --no-pci and $RDS_BENCH_EAL (default "--no-huge -m 512";
# add e.g. --log-level=pmd.rds.ib:debug there). Other VMs on the host are
# waited for (up to 30 min) before each boot. Wall time: about 290 s for
# boot 1 with the defaults (measured on a busy 2-core host), plus about
# 20 s for boot 2.
#
# Exit status: 0 when every step ran (whatever the ratio), 1 on a failure,
# 77 when the VM cannot run here, 2 on a bad command line.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

SRV_IP=10.0.2.16
CLI_IP=10.0.2.15
RDS_PORT=18000
KRDS_PORT=18001

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

# (a) perftest: server on CPU 0 / SRV_IP's GID, client on CPU 1.
vm_ib_send_lat() {
	local tag=$1 n=$2 ok=0 spid src typ
	local lat=(ib_send_lat -d rxe0 -s 64 -n "$n")
	taskset -c 0 timeout 120 "${lat[@]}" -x "$GID_SRV" \
		> "/tmp/bench-lat-srv-$tag.txt" 2>&1 &
	spid=$!
	for _ in $(seq 1 20); do
		sleep 1	# let the server listen
		if taskset -c 1 timeout 120 "${lat[@]}" -x "$GID_CLI" "$SRV_IP" \
			> "/tmp/bench-lat-cli-$tag.txt" 2>&1; then
			ok=1
			break
		fi
		kill -0 "$spid" 2>/dev/null || break
	done
	wait "$spid"
	src=$?
	if [ "$ok" != 1 ] || [ "$src" != 0 ]; then
		cat "/tmp/bench-lat-cli-$tag.txt" "/tmp/bench-lat-srv-$tag.txt"
		note "FAIL: ib_send_lat (client ok=$ok, server status $src)"
		return 1
	fi
	grep -A1 '#bytes' "/tmp/bench-lat-cli-$tag.txt"
	typ=$(awk '/t_typical/ { getline; print $5; exit }' "/tmp/bench-lat-cli-$tag.txt")
	[ -n "$typ" ] || { note "FAIL: no t_typical in the ib_send_lat output"; return 1; }
	# perftest's cycle clock sometimes fails under TCG ("inf", "-nan"):
	# no figure for this pair (shown as n/a), not a failure of the run.
	if ! [[ $typ =~ ^[0-9]+(\.[0-9]+)?$ ]] || [ "$typ" = 0.00 ]; then
		note "ib_send_lat $tag gave no figure (t_typical '$typ'): pair left out"
		return 0
	fi
	say "ib_send_lat_t_typical_us $tag $typ"
	# Its own tail, the same way (half round trips): t_avg and the 99%
	# percentile columns. Without these a tail of rds-perf's has nothing
	# to be compared with (doc/ib.md, "The tail").
	awk '/t_typical/ { getline; if ($8 ~ /^[0-9.]+$/) print "BENCH ib_send_lat_p99_us '"$tag"' " $8; if ($6 ~ /^[0-9.]+$/) print "BENCH ib_send_lat_t_avg_us '"$tag"' " $6; exit }' "/tmp/bench-lat-cli-$tag.txt"
}

# (e) perftest one-way: ib_send_bw, duration mode, server on CPU 0.
vm_ib_send_bw() {
	local tag=$1 secs=$2 ok=0 spid src rate
	local bw=(ib_send_bw -d rxe0 -s 64 -D "$secs")
	taskset -c 0 timeout 120 "${bw[@]}" -x "$GID_SRV" \
		> "/tmp/bench-bw-srv-$tag.txt" 2>&1 &
	spid=$!
	for _ in $(seq 1 20); do
		sleep 1	# let the server listen
		if taskset -c 1 timeout 120 "${bw[@]}" -x "$GID_CLI" "$SRV_IP" \
			> "/tmp/bench-bw-cli-$tag.txt" 2>&1; then
			ok=1
			break
		fi
		kill -0 "$spid" 2>/dev/null || break
	done
	wait "$spid"
	src=$?
	if [ "$ok" != 1 ] || [ "$src" != 0 ]; then
		cat "/tmp/bench-bw-cli-$tag.txt" "/tmp/bench-bw-srv-$tag.txt"
		note "FAIL: ib_send_bw (client ok=$ok, server status $src)"
		return 1
	fi
	grep -A1 '#bytes' "/tmp/bench-bw-cli-$tag.txt"
	# MsgRate[Mpps], the last column of the line after the header.
	rate=$(awk '/#bytes/ { getline; print $NF * 1000000; exit }' "/tmp/bench-bw-cli-$tag.txt")
	[ -n "$rate" ] || { note "FAIL: no MsgRate in the ib_send_bw output"; return 1; }
	say "ib_send_bw_msgs_per_s $tag $rate"
}

# What rxe and the guest's kernel did around a run: rxe0's non-zero
# counters (RNR NAKs, retries, completer work deferred to a tasklet:
# ack_deferred), the tasklet softirqs and the CPU time of ksoftirqd, so
# that a slow run shows whether rxe's deferred work was waiting for a CPU.
vm_kstat() {
	local f
	for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
		printf '%s=%s ' "${f##*/}" "$(cat "$f")"
	done
	awk '/TASKLET/ { printf "TASKLET=%s/%s ", $2, $3 }' /proc/softirqs
	for f in $(pgrep ksoftirqd); do
		awk '{ printf "ksoftirqd_%s_ticks=%d ", $2, $14 + $15 }' "/proc/$f/stat"
	done
	echo
}

# (b), (c) rds-perf: server (-l 0, SRV_IP) in the background, client
# (-l 1, CLI_IP) in the foreground; the server exits when the client is
# done. Prints the client's output and the server's summary.
vm_rds_perf() {
	local tag=$1 mode=$2 size=$3 secs=$4
	local perf="$BUILD/app/rds-perf/rds-perf"
	local eal_mem="--no-pci ${RDS_BENCH_EAL:---no-huge -m 512}"
	local lim=$((secs + 90)) spid src crc p50
	local slog=/tmp/bench-perf-srv-$tag.txt clog=/tmp/bench-perf-cli-$tag.txt
	local ibo=() opts=${RDS_BENCH_IB_OPTS:-}
	[ -z "${5:-}" ] || opts=${opts:+$opts,}$5
	[ -z "$opts" ] || ibo=(--ib-opts "$opts")

	echo "kstat before $tag: $(vm_kstat)"
	# shellcheck disable=SC2086 # eal_mem is a list of arguments
	timeout -k 5 "$lim" \
		"$perf" -l 0 $eal_mem --file-prefix=bench-srv-$tag -- \
		--transport ib --role server --local "$SRV_IP" --peer "$CLI_IP" \
		--port "$RDS_PORT" --wait 60 --verbose "${ibo[@]}" > "$slog" 2>&1 &
	spid=$!
	# shellcheck disable=SC2086
	timeout -k 5 "$lim" \
		"$perf" -l 1 $eal_mem --file-prefix=bench-cli-$tag -- \
		--transport ib --role client --local "$CLI_IP" --peer "$SRV_IP" \
		--port "$RDS_PORT" --wait 60 --mode "$mode" --size "$size" \
		--secs "$secs" --json --verbose "${ibo[@]}" > "$clog" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	note "rds-perf $tag: client status $crc, server status $src"
	echo "kstat after $tag: $(vm_kstat)"
	grep -v '^EAL: \|^TELEMETRY: ' "$clog"
	echo "--- server ($tag):"
	grep -v '^EAL: \|^TELEMETRY: ' "$slog" | grep -v '^  [a-z_]* *0$'
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		note "FAIL: rds-perf $tag (client status $crc, server status $src; 124 = timeout)"
		return 1
	fi
	p50=$(awk '/^rtt p50:/ { print $3; exit }' "$clog")
	say "rdsperf_${mode}_p50_ns $tag $p50"
	say "rdsperf_${mode}_msgs_per_s $tag $(awk '/^msgs\/s:/ { print $2; exit }' "$clog")"
	say "rdsperf_${mode}_p99_ns $tag $(awk '/^rtt p99:/ { print $3; exit }' "$clog")"
	say "rdsperf_${mode}_mb_per_s $tag $(awk '/^MB\/s:/ { print $2; exit }' "$clog")"
}

# rds-perf over the loop transport in the VM: what the library's own path
# costs under TCG, without verbs.
vm_loop() {
	local eal_mem="--no-pci ${RDS_BENCH_EAL:---no-huge -m 512}" crc
	local clog=/tmp/bench-perf-loop.txt
	# shellcheck disable=SC2086 # eal_mem is a list of arguments
	timeout -k 5 60 "$BUILD/app/rds-perf/rds-perf" -l 1 $eal_mem \
		--file-prefix=bench-loop -- --transport loop --mode lat \
		--size 64 --secs 2 > "$clog" 2>&1
	crc=$?
	grep -v '^EAL: \|^TELEMETRY: ' "$clog"
	[ "$crc" = 0 ] || { note "FAIL: rds-perf loop (status $crc)"; return 1; }
	say "rdsperf_loop_p50_ns loop $(awk '/^rtt p50:/ { print $3; exit }' "$clog")"
}

# Kernel RDS: krds_pingpong server on CPU 0, client on CPU 1.
vm_krds() {
	local tag=$1 iters=$2 spid src crc
	local busy=()
	[ "$3" = busy ] && busy=(--busy)
	local kp="$BUILD/test/rxe/krds_pingpong"
	local slog=/tmp/bench-krds-srv-$tag.txt clog=/tmp/bench-krds-cli-$tag.txt
	taskset -c 0 timeout -k 5 300 "$kp" server "$SRV_IP" \
		--port "$KRDS_PORT" --wait 60 "${busy[@]}" > "$slog" 2>&1 &
	spid=$!
	sleep 0.5
	taskset -c 1 timeout -k 5 300 "$kp" client "$CLI_IP" "$SRV_IP" \
		--port "$KRDS_PORT" --size 64 --iters "$iters" --warmup 200 \
		--wait 60 "${busy[@]}" > "$clog" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	note "krds_pingpong $tag: client status $crc, server status $src"
	cat "$clog"
	echo "--- server ($tag):"
	cat "$slog"
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		note "FAIL: krds_pingpong $tag"
		return 1
	fi
	say "krds_p50_ns $tag $(awk '/^rtt p50:/ { print $3; exit }' "$clog")"
	say "krds_p99_ns $tag $(awk '/^rtt p99:/ { print $3; exit }' "$clog")"
}

in_vm() {
	local part=$1 rc=0 i
	BUILD=$2 SECS=$3 RUNS=$4 ITERS=$5 KITERS=$6
	vm_addrs || return 1
	case $part in
	librte)
		if lsmod 2>/dev/null | grep -q '^rds_rdma'; then
			note "FAIL: rds_rdma is loaded: it holds RDMA-CM port 18634"
			return 1
		fi
		for i in $(seq 1 "$RUNS"); do
			echo "== (a) ib_send_lat -s 64 -n $ITERS over rxe0 ($CLI_IP -> $SRV_IP), run $i of $RUNS"
			vm_ib_send_lat "lat$i" "$ITERS" || rc=1
			echo "== (b) rds-perf ib lat 64 B, run $i of $RUNS"
			vm_rds_perf "lat$i" lat 64 "$SECS" || rc=1
			echo "== (e) ib_send_bw -s 64 -D 3 over rxe0, run $i of $RUNS"
			vm_ib_send_bw "bw$i" 3 || rc=1
			echo "== (f) rds-perf ib stream 64 B, run $i of $RUNS"
			vm_rds_perf "stream$i" stream 64 "$SECS" || rc=1
		done
		echo "== (c) rds-perf ib bw 32 B"
		vm_rds_perf bw1 bw 32 "$SECS" || rc=1
		echo "== (d) rds-perf loop lat 64 B (reference: no verbs, one process)"
		vm_loop || rc=1
		;;
	zc)
		for i in $(seq 1 "$RUNS"); do
			echo "== (z) rds-perf ib stream 64 KiB, zerocopy=0, run $i of $RUNS"
			vm_rds_perf "copy$i" stream 65536 "$SECS" zerocopy=0 || rc=1
			echo "== (z) rds-perf ib stream 64 KiB, zerocopy=1, run $i of $RUNS"
			vm_rds_perf "zc$i" stream 65536 "$SECS" zerocopy=1 || rc=1
		done
		;;
	kernel)
		lsmod 2>/dev/null | grep -E '^(rds|rds_rdma) ' || true
		echo "== ib_send_lat -s 64 -n $ITERS (reference, this boot)"
		vm_ib_send_lat boot2 "$ITERS" || rc=1
		echo "== kernel AF_RDS over rxe (RDS_TRANS_IB), blocking receive"
		vm_krds block "$KITERS" block || rc=1
		echo "== kernel AF_RDS over rxe (RDS_TRANS_IB), busy-poll receive"
		vm_krds busy "$KITERS" busy || rc=1
		;;
	esac
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
SECS=5 RUNS=3 ITERS=2000 KITERS='' KERNEL=1 VMTIMEOUT=900 PART=librte
while [ $# -gt 0 ]; do
	case $1 in
	--secs) SECS=${2:?}; shift ;;
	--runs) RUNS=${2:?}; shift ;;
	--iters) ITERS=${2:?}; shift ;;
	--no-kernel) KERNEL=0 ;;
	--zc) PART=zc KERNEL=0 ;;
	-t) VMTIMEOUT=${2:?}; shift ;;
	-h|--help) usage 0 ;;
	-*) echo "bench-ib: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || usage
BUILD=$(cd "$1" && pwd) || exit 2
[[ $SECS =~ ^[0-9]+$ && $RUNS =~ ^[0-9]+$ && $ITERS =~ ^[0-9]+$ ]] ||
	{ echo "bench-ib: --secs, --runs, --iters take whole numbers" >&2; exit 2; }
KITERS=${KITERS:-$((ITERS * 5 / 2))}
for f in app/rds-perf/rds-perf test/rxe/krds_pingpong; do
	[ -e "$BUILD/$f" ] || { echo "bench-ib: $BUILD/$f missing: build first (ninja -C $BUILD)" >&2; exit 2; }
done

# One VM at a time on this host: wait for any other to end (up to 30 min).
wait_no_vm() {
	local i
	for i in $(seq 1 360); do
		pgrep -f qemu-system >/dev/null || return 0
		[ "$i" = 1 ] && echo "bench-ib: another VM is running; waiting for it to end"
		sleep 5
	done
	echo "bench-ib: FAIL: another VM is still running after 30 min" >&2
	exit 1
}

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
me=$(printf '%q' "$HERE/bench-ib.sh")
args="$(printf '%q' "$BUILD") $SECS $RUNS $ITERS $KITERS"
envs=()
[ -z "${RDS_BENCH_EAL:-}" ] || envs=(--env "RDS_BENCH_EAL=$RDS_BENCH_EAL")
[ -z "${RDS_BENCH_IB_OPTS:-}" ] || envs+=(--env "RDS_BENCH_IB_OPTS=$RDS_BENCH_IB_OPTS")
status=0

wait_no_vm
echo "bench-ib: boot 1 (librte_rds; rds, rds_tcp, rds_rdma not loaded)"
"$HERE/vm-run.sh" -t "$VMTIMEOUT" --mem 2048 "${envs[@]}" \
	--kargs "rdsvm_nomod=rds_rdma,rds_tcp,rds" -- \
	"$me --in-vm $PART $args" | tee -a "$LOG"
rc=${PIPESTATUS[0]}
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "bench-ib: boot 1 failed (status $rc)"; status=1; }

if [ "$KERNEL" = 1 ]; then
	wait_no_vm
	echo "bench-ib: boot 2 (kernel RDS: rds, rds_rdma loaded)"
	"$HERE/vm-run.sh" -t "$VMTIMEOUT" --mem 2048 -- \
		"$me --in-vm kernel $args" | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || { echo "bench-ib: boot 2 failed (status $rc)"; status=1; }
fi

# ---- summary -------------------------------------------------------------------
echo
echo "==== bench-ib summary (RTT = round trip; 64-byte messages unless noted)"
grep '^BENCH ' "$LOG" | awk '
function ns(x) { return sprintf("%.1f us", x / 1000) }
function median(a, n,    s, i, j, t) {
	for (i = 1; i <= n; i++) s[i] = a[i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
	return (n % 2) ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
}
$2 == "ib_send_lat_t_typical_us" { lat[$3] = $4 }
$2 == "ib_send_lat_p99_us" { lat99[$3] = $4 }
$2 == "ib_send_lat_t_avg_us" { latavg[$3] = $4 }
$2 == "rdsperf_lat_p50_ns" { p50[++np] = $4; tag[np] = $3 }
$2 == "rdsperf_lat_p99_ns" { p99[$3] = $4 }
$2 == "rdsperf_lat_msgs_per_s" { lmps[$3] = $4 }
$2 == "rdsperf_stream_msgs_per_s" && $3 !~ /^(copy|zc)[0-9]/ { smps[++ns_] = $4; stag[ns_] = $3 }
$2 == "rdsperf_stream_mb_per_s" && $3 ~ /^copy[0-9]/ { cmb[++nc] = $4 }
$2 == "rdsperf_stream_mb_per_s" && $3 ~ /^zc[0-9]/ { zmb[++nz] = $4 }
$2 == "ib_send_bw_msgs_per_s" { ibbw[$3] = $4 }
$2 == "rdsperf_bw_p50_ns" { bwp50 = $4 }
$2 == "rdsperf_bw_msgs_per_s" { bwmps = $4 }
$2 == "rdsperf_loop_p50_ns" { loopp50 = $4 }
$2 == "krds_p50_ns" { kp50[$3] = $4 }
$2 == "krds_p99_ns" { kp99[$3] = $4 }
END {
	nl = 0
	for (i = 1; i <= np; i++) {
		t = tag[i]
		ref = (t in lat) ? 2000 * lat[t] : 0
		if (ref > 0) { rtt[++nl] = ref; pv[nl] = p50[i]; if (p50[i] / ref <= 1.3) lok++ }
		ref99 = (ref > 0 && (t in lat99)) ? 2000 * lat99[t] : 0
		if (ref99 > 0) { rtt99[++nl99] = ref99; pv99[nl99] = p99[t]; if (p99[t] / ref99 <= 2) lok99++ }
		printf "run %d: ib_send_lat RTT %s (2 x t_typical %s us), rds-perf p50 RTT %s (p99 %s, %.0f round trips/s), ratio %s\n", i, (ref > 0 ? ns(ref) : "n/a"), (ref > 0 ? lat[t] : "n/a"), ns(p50[i]), ns(p99[t]), lmps[t], (ref > 0 ? sprintf("%.2fx", p50[i] / ref) : "n/a")
		printf "run %d: p99 RTT: ib_send_lat %s (2 x its 99%% percentile; 2 x t_avg %s), rds-perf %s, ratio %s\n", i, (ref99 > 0 ? ns(ref99) : "n/a"), ((t in latavg) && ref > 0 ? ns(2000 * latavg[t]) : "n/a"), ns(p99[t]), (ref99 > 0 ? sprintf("%.2fx", p99[t] / ref99) : "n/a")
	}
	if (nl > 0) {
		mref = median(rtt, nl)
		printf "%-40s %s (of %d runs)\n", "ib_send_lat RTT, median", ns(mref), nl
		printf "%-40s %d of %d\n", "pairs with RTT <= 1.3x ib_send_lat", lok, nl
	}
	if (np > 0) {
		med = median(p50, np)
		printf "%-40s %s (of %d runs)\n", "rds-perf ib lat p50 RTT, median", ns(med), np
		if (nl > 0) {
			# Over the pairs that have an ib_send_lat figure.
			med = median(pv, nl)
			printf "%-40s %.2fx (goal <= 1.3x; %d pairs): %s\n", "median / ib_send_lat RTT median", med / mref, nl, (med / mref <= 1.3) ? "MET" : "NOT MET"
		}
	}
	if (nl99 > 0) {
		m99 = median(rtt99, nl99)
		r99 = median(pv99, nl99)
		printf "%-40s %s (of %d runs)\n", "ib_send_lat p99 RTT, median", ns(m99), nl99
		printf "%-40s %s (of %d runs)\n", "rds-perf ib lat p99 RTT, median", ns(r99), nl99
		printf "%-40s %d of %d\n", "pairs with p99 <= 2x ib_send_lat p99", lok99, nl99
		printf "%-40s %.2fx (goal <= 2x; %d pairs): %s\n", "p99 median / ib_send_lat p99 median", r99 / m99, nl99, (r99 / m99 <= 2) ? "MET" : "NOT MET"
	}
	nb = 0
	for (i = 1; i <= ns_; i++) {
		t = "bw" substr(stag[i], 7)
		ref = (t in ibbw) ? ibbw[t] : 0
		if (ref > 0) { bref[++nb] = ref; if (smps[i] / ref >= 0.5) bok++ }
		printf "run %d: ib_send_bw %.0f msgs/s, rds-perf stream %.0f msgs/s (64 B one way), ratio %s\n", i, ref, smps[i], (ref > 0 ? sprintf("%.2fx", smps[i] / ref) : "n/a")
	}
	if (nb > 0) {
		mb = median(bref, nb)
		printf "%-40s %.0f msgs/s (of %d runs)\n", "ib_send_bw 64 B msg rate, median", mb, nb
		printf "%-40s %d of %d\n", "pairs with msgs/s >= 0.5x ib_send_bw", bok, nb
	}
	if (ns_ > 0) {
		ms = median(smps, ns_)
		printf "%-40s %.0f msgs/s (of %d runs)\n", "rds-perf ib stream 64 B, median", ms, ns_
		if (nb > 0)
			printf "%-40s %.2fx (goal >= 0.5x): %s\n", "median / ib_send_bw median", ms / mb, (ms / mb >= 0.5) ? "MET" : "NOT MET"
	}
	for (i = 1; i <= nc && i <= nz; i++)
		printf "run %d: rds-perf ib stream 64 KiB: zerocopy=0 %.1f MB/s, zerocopy=1 %.1f MB/s, ratio %.2fx\n", i, cmb[i], zmb[i], (cmb[i] > 0 ? zmb[i] / cmb[i] : 0)
	if (nc > 0 && nz > 0)
		printf "%-40s zerocopy=0 %.1f MB/s, zerocopy=1 %.1f MB/s (medians of %d, %d runs), ratio %.2fx\n", "rds-perf ib stream 64 KiB", median(cmb, nc), median(zmb, nz), nc, nz, median(zmb, nz) / median(cmb, nc)
	if (bwmps != "")
		printf "%-40s %.0f msgs/s, p50 RTT %s (32 B, depth 32)\n", "rds-perf ib bw", bwmps, ns(bwp50)
	if (loopp50 != "")
		printf "%-40s %s (reference: no verbs, one process)\n", "rds-perf loop lat p50 RTT", ns(loopp50)
	if ("boot2" in lat)
		printf "%-40s %s (2 x t_typical %.2f us)\n", "ib_send_lat RTT (boot 2)", ns(2000 * lat["boot2"]), lat["boot2"]
	for (k in kp50)
		printf "%-40s %s (p99 %s)\n", "kernel AF_RDS ib p50 RTT, " k, ns(kp50[k]), ns(kp99[k])
}'
exit "$status"
