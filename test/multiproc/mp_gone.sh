#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_gone: an AF_RDS program under librte_rds_preload.so
# whose rds-engined goes away under it, killed (SIGKILL) or stopped
# (SIGTERM):
#   krds_gone wait   blocked in recv, recv with SO_RCVTIMEO, poll, epoll,
#                    select, or poll on a non-blocking socket (CPython's
#                    settimeout), the program returns within a second
#                    with the socket in error (ECONNRESET, POLLERR |
#                    POLLHUP), for each mode and signal;
#   krds_gone restart  the engine stopped, then started again on the same
#                    path: the old socket stays dead (ECONNRESET, never a
#                    socket of the new engine's), the next socket()
#                    attaches to the new engine and works end to end.
#
#   mp_gone.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
PRELOAD=$BUILD/lib/preload/librte_rds_preload.so
GONE=$BUILD/test/multiproc/krds_gone
TMP=$(mktemp -d /tmp/rds-mp-gone.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_gone
. "$(dirname "$0")/mp_lib.sh"
IP=10.249.1.1
fail=0
epid=
cpid=

cleanup() {
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	[ -n "$cpid" ] && kill -9 "$cpid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$PRELOAD" "$GONE"
# A sanitizer build's preload needs its runtime first (mp_preload.sh).
ASAN_RT=$(ldd "$PRELOAD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
[ -n "$ASAN_RT" ] && PRELOAD="$ASAN_RT $PRELOAD"
export RTE_RDS_ENGINE=$SOCK

# A new engine on $SOCK (a killed one leaves its socket file behind).
engine() {
	rm -f "$SOCK"
	mp_start_engine "$ENGINED" "mpg$$" $IP
}

# The engine is gone for good (reaped), its exit status is as the signal
# says (SIGTERM: a clean stop, 0).
engine_reaped() {
	local sig=$1 rc
	wait "$epid"
	rc=$?
	epid=
	if [ "$sig" = TERM ] && [ $rc -ne 0 ]; then
		echo "$NAME: FAIL: rds-engined exited $rc on SIGTERM"
		cat "$TMP/engine.log"
		return 1
	fi
	return 0
}

for sig in KILL TERM; do
	for mode in recv rcvtimeo poll epoll select settimeout; do
		engine
		echo "--- wait $mode, SIG$sig"
		if env LD_PRELOAD="$PRELOAD" timeout 30 "$GONE" wait $mode \
			"$(kill -l $sig)" "$epid" $IP 4000 > "$TMP/out" 2>&1; then
			grep -E 'returned' "$TMP/out"
		else
			cat "$TMP/out"
			echo "--- wait $mode, SIG$sig: FAIL"
			fail=1
		fi
		engine_reaped $sig || fail=1
	done
done

for sig in KILL TERM; do
	echo "--- restart, SIG$sig"
	engine
	rm -f "$TMP/in" "$TMP/out"
	mkfifo "$TMP/in"
	env LD_PRELOAD="$PRELOAD" timeout 60 "$GONE" restart $IP 4100 \
		< "$TMP/in" > "$TMP/out" 2>&1 &
	cpid=$!
	exec 3> "$TMP/in"
	step_ok=1
	for want in READY CHECKED; do
		for i in $(seq 300); do
			grep -q "^$want\$" "$TMP/out" && break
			kill -0 $cpid 2>/dev/null || break
			sleep 0.05
		done
		if ! grep -q "^$want\$" "$TMP/out"; then
			step_ok=0
			break
		fi
		if [ $want = READY ]; then
			kill -$sig "$epid"
			engine_reaped $sig || fail=1
			echo GONE >&3
		else
			engine
			echo BACK >&3
		fi
	done
	exec 3>&-
	wait $cpid
	rc=$?
	cpid=
	cat "$TMP/out"
	if [ $step_ok -ne 1 ] || [ $rc -ne 0 ]; then
		echo "--- restart, SIG$sig: FAIL (status $rc)"
		fail=1
	fi
	if [ -n "$epid" ]; then
		kill -TERM "$epid"
		engine_reaped TERM || fail=1
	fi
done

[ $fail -eq 0 ] && echo "$NAME: PASS" || echo "$NAME: FAIL"
exit $fail
