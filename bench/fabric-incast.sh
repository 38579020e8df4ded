#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The incast of test/fabric (incast.sh: 6 sender hosts, each a network
# namespace with its own rds-engined, into one receiver host through a
# bridge port shaped by tbf, 100 Mbit/s, a 60 KB queue), three ways in
# one run, over the same hosts, veths and bottleneck, the same bytes:
#
#   cc   eth with its congestion window (the default)
#   off  eth with cwnd_init=0 (the fixed window of 128 frames)
#   delay eth with its congestion window and the delay signal
#        (delay_us=INCAST_DELAY_US, default 100)
#   tcp  kernel TCP, one connection per sender host (incast_peer.py)
#
# Each run prints its lines (goodput as a fraction of the bottleneck,
# the tbf's drops, Jain's fairness over the senders, the 64 B ping-pong
# through the bottleneck from a 7th host, unloaded and during the
# incast); at the end the medians of
# RUNS runs per way and size, side by side, against the targets
# (goodput >= 0.9, drops <= 2x TCP's, Jain >= 0.9, ping-pong during the
# incast <= 3x unloaded).
#
#   sudo bench/fabric-incast.sh BUILD_ROOT [RUNS]   (RUNS: 3)
#
# Environment: as test/fabric/incast.sh (INCAST_BYTES, INCAST_SIZES,
# INCAST_SENDERS, INCAST_RATE, INCAST_LIMIT, INCAST_IDLE), and
# INCAST_WAYS ("cc off tcp"; "delay" too), INCAST_DELAY_US (100).

set -u
B=$(cd "${1:?usage: fabric-incast.sh BUILD_ROOT [RUNS]}" && pwd)
RUNS=${2:-3}
NAME=fabric-incast
WAYS=${INCAST_WAYS:-cc off tcp}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d /tmp/rds-incast.XXXXXX)
PRELOAD=$B/lib/preload/librte_rds_preload.so

fatal() {
	echo "$NAME: FAIL: $*"
	exit 1
}

[ "$(id -u)" = 0 ] || fatal "needs root (network namespaces, tc)"
for f in "$B/app/rds-engined/rds-engined" "$PRELOAD" \
	 "$B/test/multiproc/krds_stress"; do
	[ -e "$f" ] || fatal "$f is missing (build it first)"
done
ASAN_RT=$(ldd "$PRELOAD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
PRE=$PRELOAD
[ -n "$ASAN_RT" ] && PRE="$ASAN_RT $PRELOAD"

. "$HERE/../test/fabric/incast.sh"

cleanup() {
	ic_engines_stop
	ic_net_down
	rm -rf "$TMP"
}
trap cleanup EXIT

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

ic_net_up
echo "$NAME: $IC_N senders -> 1 receiver, tbf $IC_RATE Mbit/s limit" \
     "$IC_LIMIT B, $IC_BYTES B per sender per size, sizes $IC_SIZES," \
     "engines idle $IC_IDLE, $RUNS runs"
fail=0
for r in $(seq "$RUNS"); do
	echo "--- run $r"
	for w in $WAYS; do
		case $w in
		cc) ic_rds_case "" cc || fail=1 ;;
		off) ic_rds_case ",cwnd_init=0" off || fail=1 ;;
		delay) ic_rds_case ",delay_us=${INCAST_DELAY_US:-100}" \
			delay || fail=1 ;;
		tcp) ic_tcp_case tcp || fail=1 ;;
		esac
		echo "  $w: unloaded ping-pong ${ic_rtt_idle:-?} us"
		eval "idle_${w}_$r=${ic_rtt_idle:-0}"
		for s in $IC_SIZES; do
			eval "res_${w}_${s}_$r=\"\${ic_res_${w}_$s:-0 0 0 0}\""
		done
	done
done

# Medians per way and size: field 1 goodput per mille, 2 drops, 3 Jain,
# 4 ping-pong during the incast (us); and the unloaded ping-pong.
echo "--- medians of $RUNS runs (goodput: fraction of $IC_RATE Mbit/s)"
printf '%-6s %7s | %8s %7s %6s %10s %9s\n' way size goodput drops Jain \
	"pp load us" "pp idle"
for s in $IC_SIZES; do
	for w in $WAYS; do
		g=() d=() j=() p=() i=()
		for r in $(seq "$RUNS"); do
			eval "v=\$res_${w}_${s}_$r"
			set -- $v
			g+=("$1"); d+=("$2"); j+=("$3"); p+=("$4")
			eval "i+=(\$idle_${w}_$r)"
		done
		printf '%-6s %7s | %8s %7s %6s %10s %9s\n' "$w" "$s" \
			"$(printf '%s\n' "${g[@]}" | median | awk '{ printf "%.3f", $1 / 1000 }')" \
			"$(printf '%s\n' "${d[@]}" | median)" \
			"$(printf '%s\n' "${j[@]}" | median)" \
			"$(printf '%s\n' "${p[@]}" | median)" \
			"$(printf '%s\n' "${i[@]}" | median)"
	done
done
[ $fail -eq 0 ] || fatal "a run failed (above)"
echo "$NAME: done"
