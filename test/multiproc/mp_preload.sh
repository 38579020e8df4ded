#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_preload: unmodified AF_RDS programs of ours (built
# against the kernel's headers only, never linked with librte_rds) run
# under librte_rds_preload.so against an rds-engined of this build with
# two loop addresses:
#   krds_api      every descriptor call, poll/select/epoll on mixed sets
#                 (select above FD_SETSIZE too, edge-triggered and
#                 one-shot epoll), dup and close with the kernel's
#                 semantics, the library's own numbers hidden, races of
#                 close with calls, fcntl, fork and vfork, getpeername;
#                 and again as krds_api_plain, built without large-file
#                 names (fcntl, not fcntl64)
#   krds_pingpong blocking and busy-polling round trips
#   krds_peer     the interop exchange, both ways, SHA-256 per direction
#   krds_stress   a TCP control connection and one forked child per task
#                 on each side, SHA-256 per task and direction
# then SIGTERM: the engine must stop cleanly.
#
#   mp_preload.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
PRELOAD=$BUILD/lib/preload/librte_rds_preload.so
T=$BUILD/test
# In a sanitizer build the preload links libasan, whose runtime must come
# first in the process's library list: put it before the preload.
TMP=$(mktemp -d /tmp/rds-mp-preload.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_preload
. "$(dirname "$0")/mp_lib.sh"
IPA=10.249.0.1
IPB=10.249.0.2
fail=0
epid=

cleanup() {
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$PRELOAD" "$T/multiproc/krds_api" \
	 "$T/multiproc/krds_stress" "$T/rxe/krds_peer" "$T/rxe/krds_pingpong"

mp_start_engine "$ENGINED" "mpp$$" $IPA $IPB
export RTE_RDS_ENGINE=$SOCK
ASAN_RT=$(ldd "$PRELOAD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
[ -n "$ASAN_RT" ] && PRELOAD="$ASAN_RT $PRELOAD"

step() {
	local name=$1
	shift
	echo "--- $name: $*"
	if "$@"; then
		echo "--- $name: ok"
	else
		echo "--- $name: FAIL (status $?)"
		fail=1
	fi
}

step krds_api env LD_PRELOAD="$PRELOAD" timeout 120 \
	"$T/multiproc/krds_api" $IPA $IPB
# Built without _FILE_OFFSET_BITS=64: fcntl under its own name.
step krds_api_plain env LD_PRELOAD="$PRELOAD" timeout 120 \
	"$T/multiproc/krds_api_plain" $IPA $IPB 19600

pingpong() {
	local mode=$1
	env LD_PRELOAD="$PRELOAD" timeout 120 "$T/rxe/krds_pingpong" server \
		$IPB --no-pin $mode --wait 30 > "$TMP/pp-server.log" 2>&1 &
	local sp=$!
	env LD_PRELOAD="$PRELOAD" timeout 120 "$T/rxe/krds_pingpong" client \
		$IPA $IPB --no-pin $mode --iters 2000 --wait 30 \
		> "$TMP/pp-client.log" 2>&1
	local rc=$?
	wait $sp
	local src=$?
	grep -E 'rtt p50|msgs/s' "$TMP/pp-client.log"
	[ $rc -eq 0 ] && [ $src -eq 0 ] || {
		cat "$TMP/pp-client.log" "$TMP/pp-server.log"
		return 1
	}
}
step "krds_pingpong (blocking)" pingpong ""
step "krds_pingpong (busy)" pingpong --busy

peer() {
	# A message to a port not bound yet is dropped (as the kernel
	# does): B binds first and sends only once A's first message is in
	# (-P); A starts once B is bound, and sends at once.
	local i
	env LD_PRELOAD="$PRELOAD" timeout 240 "$T/rxe/krds_peer" -P -T none \
		-n 300 $IPB $IPA > "$TMP/peer-b.log" 2>&1 &
	local bp=$!
	for i in $(seq 300); do
		grep -q 'socket bound to' "$TMP/peer-b.log" && break
		kill -0 $bp 2>/dev/null || break
		sleep 0.1
	done
	env LD_PRELOAD="$PRELOAD" timeout 240 "$T/rxe/krds_peer" -T none \
		-n 300 $IPA $IPB > "$TMP/peer-a.log" 2>&1
	local rc=$?
	wait $bp
	local brc=$?
	grep -E 'PASS|FAIL|sha' "$TMP/peer-a.log" "$TMP/peer-b.log" | head -20
	[ $rc -eq 0 ] && [ $brc -eq 0 ] || {
		tail -n 20 "$TMP/peer-a.log" "$TMP/peer-b.log"
		return 1
	}
	# A's tx digest is B's rx digest and the other way.
	local atx arx btx brx
	atx=$(sed -n 's/.*tx sha256 \([0-9a-f]*\).*/\1/p' "$TMP/peer-a.log")
	arx=$(sed -n 's/.*rx sha256 \([0-9a-f]*\).*/\1/p' "$TMP/peer-a.log")
	btx=$(sed -n 's/.*tx sha256 \([0-9a-f]*\).*/\1/p' "$TMP/peer-b.log")
	brx=$(sed -n 's/.*rx sha256 \([0-9a-f]*\).*/\1/p' "$TMP/peer-b.log")
	if [ -z "$atx" ] || [ "$atx" != "$brx" ] || [ "$btx" != "$arx" ]; then
		echo "digests do not match: A tx $atx rx $arx, B tx $btx rx $brx"
		return 1
	fi
	echo "digests match both ways (A->B $atx)"
}
step "krds_peer (both ways)" peer

stress() {
	env LD_PRELOAD="$PRELOAD" timeout 240 "$T/multiproc/krds_stress" \
		-s $IPB -r $IPA -p 18997 -t 4 -n 2000 > "$TMP/stress-b.log" 2>&1 &
	local bp=$!
	env LD_PRELOAD="$PRELOAD" timeout 240 "$T/multiproc/krds_stress" \
		-s $IPA -c 127.0.0.1 -r $IPB -p 18997 -t 4 -n 2000 \
		> "$TMP/stress-a.log" 2>&1
	local rc=$?
	wait $bp
	local brc=$?
	cat "$TMP/stress-a.log" "$TMP/stress-b.log"
	[ $rc -eq 0 ] && [ $brc -eq 0 ]
}
step "krds_stress (4 tasks a side, fork per task, TCP control)" stress

kill -TERM "$epid"
for i in $(seq 100); do
	kill -0 "$epid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$epid" 2>/dev/null; then
	echo "mp_preload: FAIL: rds-engined did not stop on SIGTERM"
	fail=1
else
	wait "$epid"
	erc=$?
	epid=
	if [ $erc -ne 0 ] || [ -S "$SOCK" ]; then
		echo "mp_preload: FAIL: rds-engined exit status $erc" \
		     "(socket left: $([ -S "$SOCK" ] && echo yes || echo no))"
		fail=1
	fi
fi
grep -E 'attached|detached|violation' "$TMP/engine.log" | tail -3
[ $fail -eq 0 ] && echo "mp_preload: PASS" || echo "mp_preload: FAIL"
exit $fail
