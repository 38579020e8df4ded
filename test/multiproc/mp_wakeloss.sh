#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_wakeloss: no wake-up of a blocking attached caller
# is lost. rds-engined with its engine on a core of its own (-l 0-1
# --idle busy, lcore 1) and mp_wakeloss on core 0, which arms its
# socket's armed word at every point of the engine's delivery and counts
# the sleeps that end by their timeout with the message there and the
# word still armed (mp_wakeloss.c says why that is a lost wake-up). Two
# busy loops on core 0 and core 1 beside it, as the loaded machine on
# which the preload's ping-pong stalled. Runs about SECS (default 40) s.
#
#   mp_wakeloss.sh BUILD_DIR [SECS]
set -u
BUILD=${1:?build directory}
SECS=${2:-40}
ENGINED=$BUILD/app/rds-engined/rds-engined
WL=$BUILD/test/multiproc/mp_wakeloss
TMP=$(mktemp -d /tmp/rds-mp-wakeloss.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_wakeloss
. "$(dirname "$0")/mp_lib.sh"
epid=
hogs=()

cleanup() {
	local p
	for p in "${hogs[@]}"; do
		kill "$p" 2>/dev/null
	done
	[ -n "$epid" ] && kill "$epid" 2>/dev/null && wait "$epid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$WL"
if ! taskset -c 1 true 2>/dev/null; then
	echo "$NAME: NOT RUN: this test needs cores 0 and 1 (the engine on a core of its own)"
	exit 77
fi
"$ENGINED" -l 0-1 --no-pci --no-huge -m 512 --file-prefix "mpw$$" \
	--log-level=lib.eal:error -- --addr 10.250.0.1=loop \
	--addr 10.250.0.2=loop --listen "$SOCK" --idle busy \
	> "$TMP/engine.log" 2>&1 &
epid=$!
mp_wait_socket

# Half the time quiet, half with a busy loop on each core.
fail=0
half=$((SECS / 2))
echo "--- quiet, $half s"
if ! timeout $((half + 60)) taskset -c 0 "$WL" "$SOCK" "$half"; then
	echo "$NAME: FAIL: a wake-up was lost (quiet)"
	fail=1
fi
taskset -c 0 sh -c 'while :; do :; done' & hogs+=($!)
taskset -c 1 sh -c 'while :; do :; done' & hogs+=($!)
echo "--- a busy loop on each core, $half s"
if ! timeout $((half + 60)) taskset -c 0 "$WL" "$SOCK" "$half"; then
	echo "$NAME: FAIL: a wake-up was lost (loaded)"
	fail=1
fi
if ! kill -0 "$epid" 2>/dev/null; then
	echo "$NAME: FAIL: the engine went"
	cat "$TMP/engine.log"
	fail=1
fi
[ $fail = 0 ] && echo "$NAME: PASS"
exit $fail
