#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_pidns: rds-engined in a pid namespace of its own
# (unshare --pid), as in a container whose engine socket is shared with
# the host. A client outside that namespace has no pid the engine can
# see (SO_PEERCRED gives 0), so none of its memory may be reached: a
# region, an RDMA READ into a vector of its own and one whose vector
# points nowhere are all refused with EPERM (mp_attack unseen; when 0
# meant "this process", the first registered the engine's own memory
# and the last crashed the engine). Then a well-behaved client still
# binds, sends and receives (mp_client bind), and the engine stops
# cleanly on SIGTERM.
#
#   mp_pidns.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
ATTACK=$BUILD/test/multiproc/mp_attack
CLIENT=$BUILD/test/multiproc/mp_client
TMP=$(mktemp -d /tmp/rds-mp-pidns.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_pidns
. "$(dirname "$0")/mp_lib.sh"
epid=

cleanup() {
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$ATTACK" "$CLIENT"
if ! unshare --pid --fork --kill-child true 2>/dev/null; then
	echo "$NAME: NOT RUN: this host does not let us make a pid namespace" \
	     "(unshare --pid: $(unshare --pid --fork true 2>&1 | head -1))"
	exit 77
fi

unshare --pid --fork --kill-child "$ENGINED" -l 0 --no-pci --no-huge \
	-m 512 --file-prefix "mpn$$" --log-level=lib.eal:error -- \
	--addr 10.250.0.1=loop --addr 10.250.0.2=loop --listen "$SOCK" \
	> "$TMP/engine.log" 2>&1 &
epid=$!
mp_wait_socket

fail=0
echo "--- a client the engine cannot see: mp_attack unseen"
if ! timeout 60 "$ATTACK" "$SOCK" unseen 23; then
	echo "$NAME: FAIL: its memory was reached, or the engine went"
	fail=1
fi
echo "--- a well-behaved client: mp_client bind"
if ! timeout 60 "$CLIENT" bind "$SOCK" 3; then
	echo "$NAME: FAIL: the engine does not serve a client after it"
	fail=1
fi
# unshare waits for its child and passes no signal on: the engine is
# its child.
engine=$(pgrep -P "$epid" | head -1)
kill -TERM "${engine:-$epid}"
for i in $(seq 100); do
	kill -0 "$epid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$epid" 2>/dev/null; then
	echo "$NAME: FAIL: rds-engined did not stop on SIGTERM"
	fail=1
else
	wait "$epid" 2>/dev/null
	epid=
fi
grep -E "memory cannot be reached|out of reach" "$TMP/engine.log" | head -3
[ $fail -eq 0 ] && echo "$NAME: PASS"
exit $fail
