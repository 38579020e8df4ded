#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_perf: rds-perf --attach runs as a client of an
# rds-engined of this build (no EAL in rds-perf; EAL arguments given
# anyway are ignored), in lat, bw and stream modes: each run must exit 0
# with "attach":true, no errors and at least one round trip (stream: one
# message received) in its JSON line; and a size list with --tasks 2,
# --histogram and --rds-stress-columns. No timing is asserted.
#
#   mp_perf.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
PERF=$BUILD/app/rds-perf/rds-perf
TMP=$(mktemp -d /tmp/rds-mp-perf.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_perf
. "$(dirname "$0")/mp_lib.sh"
IPA=10.248.0.1
IPB=10.248.0.2
fail=0
epid=

cleanup() {
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$PERF"

mp_start_engine "$ENGINED" "mpf$$" $IPA $IPB

# One run: its JSON line must say attach, no errors and count > 0.
run() {
	local name=$1 key=$2
	shift 2
	echo "--- $name: rds-perf $*"
	timeout 120 "$PERF" "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	local json
	json=$(tail -1 "$TMP/out")
	echo "$json"
	local n
	n=$(printf '%s\n' "$json" | sed -n "s/.*\"$key\":\([0-9]*\).*/\1/p")
	if [ $rc -ne 0 ] || [ -z "$n" ] || [ "$n" -eq 0 ] ||
	   ! printf '%s\n' "$json" | grep -q '"attach":true' ||
	   ! printf '%s\n' "$json" | grep -q '"errors":0[,}]'; then
		echo "--- $name: FAIL (status $rc, $key '${n}')"
		cat "$TMP/out" "$TMP/err"
		fail=1
		return
	fi
	echo "--- $name: ok ($key $n)"
}

run lat msgs --attach "$SOCK" --local $IPA --peer $IPB --secs 1 --json
run bw msgs --attach "$SOCK" --local $IPA --peer $IPB --mode bw \
	--depth 8 --secs 0.5 --json
run stream msgs --attach "$SOCK" --local $IPA --peer $IPB --mode stream \
	--size 32 --secs 0.5 --json
# EAL arguments before "--" are ignored; $RTE_RDS_ENGINE with --attach "".
RTE_RDS_ENGINE=$SOCK run "lat, EAL args, \$RTE_RDS_ENGINE" msgs \
	-l 0 --no-pci -- --attach= --local=$IPA --peer=$IPB --secs 0.3 --json

# A size list with --tasks 2, --histogram and --rds-stress-columns, as in
# process: a JSON line per size, in order, each attached, with tasks 2,
# no errors and round trips; a CDF block per size in the histogram file;
# rds-stress's header.
echo "--- sweep: rds-perf --attach ... --mode bw --size 64,4k,64k --tasks 2"
timeout 180 "$PERF" --attach "$SOCK" --local $IPA --peer $IPB --mode bw \
	--size 64,4k,64k --tasks 2 --secs 0.3 --histogram "$TMP/hist" \
	--rds-stress-columns --json > "$TMP/out" 2> "$TMP/err"
rc=$?
sizes=$(grep '^{' "$TMP/out" | grep '"attach":true' | grep '"errors":0[,}]' |
	grep '"tasks":2' | grep -v '"msgs":0[,}]' |
	sed -n 's/.*"size":\([0-9]*\).*/\1/p' | tr '\n' ' ')
blocks=$(grep -c '^# size ' "$TMP/hist" 2>/dev/null)
if [ $rc -ne 0 ] || [ "$sizes" != "64 4096 65536 " ] ||
   ! grep -q 'tx+rx K/s' "$TMP/out" || [ "${blocks:-0}" -lt 3 ]; then
	echo "--- sweep: FAIL (status $rc, sizes '$sizes', histogram blocks '${blocks}')"
	cat "$TMP/out" "$TMP/err"
	fail=1
else
	echo "--- sweep: ok (sizes $sizes; $blocks histogram blocks)"
fi

# RDMA from an attached process: the operations go with their sends
# through the request ring; rds-perf checks every op's sequence number and
# the whole payload now and then (a WRITE's data is taken at the send, as
# in process: its one local buffer is stamped again at once).
run rdma-write msgs --attach "$SOCK" --local $IPA --peer $IPB \
	--mode rdma-write --size 64k --depth 4 --secs 0.5 --json
run rdma-read msgs --attach "$SOCK" --local $IPA --peer $IPB \
	--mode rdma-read --size 4k --depth 4 --secs 0.5 --json

# What an attached run cannot do is refused as a usage error.
"$PERF" --attach "$SOCK" --local $IPA --peer $IPB --engine lcore \
	--size 64 > "$TMP/out" 2>&1
rc=$?
if [ $rc -ne 2 ]; then
	echo "mp_perf: FAIL: --attach --engine lcore exited $rc, not 2"
	cat "$TMP/out"
	fail=1
fi

kill -TERM $epid
wait $epid
erc=$?
epid=
if [ $erc -ne 0 ]; then
	echo "mp_perf: FAIL: rds-engined exited $erc"
	cat "$TMP/engine.log"
	fail=1
fi
[ $fail -eq 0 ] && echo "mp_perf: PASS"
exit $fail
