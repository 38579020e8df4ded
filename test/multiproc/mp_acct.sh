#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_acct: an attached socket's send buffer (krds_acct
# under librte_rds_preload.so, against an rds-engined of this build with
# two loop addresses): a send that returned is counted in SIOCOUTQ at
# once and exactly, a send waits (or says EAGAIN) once SO_SNDBUF is
# full, SIOCINQ is the next message's size, and what a close, or the
# death of the sending process, cancels is counted (send_cancelled) and
# no more than the send buffer held. krds_acct's header has each check.
# Then SIGTERM: the engine must stop cleanly.
#
#   mp_acct.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
PRELOAD=$BUILD/lib/preload/librte_rds_preload.so
PROG=$BUILD/test/multiproc/krds_acct
TMP=$(mktemp -d /tmp/rds-mp-acct.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_acct
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

mp_need "$ENGINED" "$PRELOAD" "$PROG"

mp_start_engine "$ENGINED" "mpa$$" $IPA $IPB
export RTE_RDS_ENGINE=$SOCK
# In a sanitizer build the preload links libasan, whose runtime must come
# first in the process's library list.
ASAN_RT=$(ldd "$PRELOAD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
[ -n "$ASAN_RT" ] && PRELOAD="$ASAN_RT $PRELOAD"

env LD_PRELOAD="$PRELOAD" timeout 400 "$PROG" $IPA $IPB
rc=$?
[ $rc -eq 0 ] || { echo "mp_acct: krds_acct exit status $rc"; fail=1; }

kill -TERM "$epid"
wait "$epid"
erc=$?
epid=
if [ $erc -ne 0 ]; then
	echo "mp_acct: rds-engined exit status $erc:"
	tail -n 30 "$TMP/engine.log"
	fail=1
fi
[ $fail -eq 0 ] && echo "mp_acct: PASS" || echo "mp_acct: FAIL"
exit $fail
