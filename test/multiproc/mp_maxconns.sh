#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_maxconns: an attached program is told when the
# engine drops its message for want of a connection. rds-engined serves
# four loop addresses with --max-conns 8; a CPython AF_RDS program under
# the preload binds a socket on each and sends from each to each (16
# pairs of addresses, more connections than the engine holds). After
# each send it reads SO_ERROR: a dropped message shows there as ENOMEM
# (the kernel's errno when it cannot make a connection), once. Then it
# sends again to a peer that was dropped and, once the engine has
# dropped that one too, its next send fails with ENOMEM and sends
# nothing; SO_ERROR is 0 after. Without /usr/bin/python3's AF_RDS it
# says why and exits 77 (SKIP; a failure under CI=true).
#
#   mp_maxconns.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
PRELOAD=$BUILD/lib/preload/librte_rds_preload.so
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/rds-mp-maxconns.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_maxconns
. "$HERE/mp_lib.sh"
epid=

cleanup() {
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$PRELOAD"
if ! "$PY" -c 'import socket; socket.AF_RDS' 2>/dev/null; then
	echo "$NAME: SKIP: $PY has no socket.AF_RDS"
	[ "${CI:-}" = true ] && { echo "$NAME: FAIL under CI=true"; exit 1; }
	exit 77
fi

MP_ENGINE_ARGS="--max-conns 8" mp_start_engine "$ENGINED" "mpmc$$" \
	10.249.6.1 10.249.6.2 10.249.6.3 10.249.6.4
export RTE_RDS_ENGINE=$SOCK
ASAN_RT=$(ldd "$PRELOAD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
if [ -n "$ASAN_RT" ]; then
	PRELOAD="$ASAN_RT $PRELOAD"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi

fail=0
env LD_PRELOAD="$PRELOAD" timeout 60 "$PY" - <<'PYEOF' || fail=1
import errno, socket, sys, time

ips = ["10.249.6.%d" % i for i in range(1, 5)]
socks = []
for ip in ips:
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind((ip, 4000))
    socks.append(s)

def so_error(s, wait=2.0):
    """The pending error, waiting up to wait s for the engine."""
    end = time.monotonic() + wait
    while True:
        e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if e != 0 or time.monotonic() >= end:
            return e
        time.sleep(0.01)

seen, dropped = 0, None
for s in socks:
    for ip in ips:
        s.sendto(b"x", (ip, 4000))
        e = so_error(s, 0.2)
        if e not in (0, errno.ENOMEM):
            print("SO_ERROR %d after a send" % e)
            sys.exit(1)
        if e == errno.ENOMEM:
            seen += 1
            dropped = (s, ip)
print("16 pairs of addresses, 8 connections at most: %d dropped "
      "message(s) reported through SO_ERROR" % seen)
if seen == 0 or dropped is None:
    print("FAIL: no dropped message was reported")
    sys.exit(1)
s, ip = dropped
s.sendto(b"y", (ip, 4000))      # dropped again by the engine
time.sleep(0.5)
try:
    s.sendto(b"z", (ip, 4000))
    print("FAIL: the send after a dropped one succeeded")
    sys.exit(1)
except OSError as ex:
    if ex.errno != errno.ENOMEM:
        print("FAIL: the send after a dropped one: %s" % ex)
        sys.exit(1)
print("the send after a dropped one: ENOMEM, nothing sent")
if so_error(s, 0.3) != 0:
    print("FAIL: SO_ERROR not 0 once the send took the error")
    sys.exit(1)
for x in socks:
    x.close()
PYEOF

kill -TERM "$epid"
wait "$epid"
erc=$?
epid=
[ $erc -eq 0 ] || { echo "$NAME: FAIL: rds-engined exit status $erc"; fail=1; }
if ! grep -q "no connection for a message" "$TMP/engine.log" 2>/dev/null; then
	echo "$NAME: FAIL: the engine did not log the dropped message"
	cat "$TMP/engine.log"
	fail=1
fi
[ $fail -eq 0 ] && echo "$NAME: PASS" || echo "$NAME: FAIL"
exit $fail
