#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_python: CPython's own socket.AF_RDS under
# librte_rds_preload.so, with the distribution's python3 (/usr/bin/python3,
# not one of a Python version manager), against an rds-engined of this
# build:
#   mp_python.py  0 B to 1 MiB, settimeout, select/poll/epoll/selectors and
#                 asyncio on RDS and TCP sockets, os.fork, multiprocessing
#                 (fork, spawn, a socket handed to a spawn child),
#                 subprocess;
#   test_socket   CPython's own RDS cases (test.test_socket BasicRDSTest
#                 and RDSTest, from Debian's libpython3.11-testsuite,
#                 which config/setup.sh installs; they bind "localhost",
#                 so the engine serves 127.0.0.1 too).
# Without /usr/bin/python3 or its test package it says why and exits 77
# (SKIP); under CI=true that is a failure.
#
#   mp_python.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
PRELOAD=$BUILD/lib/preload/librte_rds_preload.so
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
TMP=$(mktemp -d /tmp/rds-mp-python.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_python
. "$HERE/mp_lib.sh"
IPA=10.249.2.1
IPB=10.249.2.2
fail=0
epid=

cleanup() {
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$PRELOAD"

cannot() {
	echo "$NAME: SKIP: $*"
	if [ "${CI:-}" = true ]; then
		echo "$NAME: FAIL: under CI=true this must run"
		exit 1
	fi
	exit 77
}

[ -x "$PY" ] || cannot "no $PY (Debian's python3: apt-get install python3)"
"$PY" -c 'import socket; socket.AF_RDS' 2>/dev/null ||
	cannot "$PY has no socket.AF_RDS"
have_testsuite=1
"$PY" -c 'import test.test_socket' > /dev/null 2>&1 || have_testsuite=0

mp_start_engine "$ENGINED" "mpy$$" $IPA $IPB 127.0.0.1
export RTE_RDS_ENGINE=$SOCK
# A sanitizer build's preload needs its runtime first (mp_preload.sh);
# CPython itself frees not all it has at exit, which is not ours to
# report.
ASAN_RT=$(ldd "$PRELOAD" 2>/dev/null | awk '/libasan/ { print $3; exit }')
if [ -n "$ASAN_RT" ]; then
	PRELOAD="$ASAN_RT $PRELOAD"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi

echo "--- mp_python.py ($("$PY" --version))"
if ! env LD_PRELOAD="$PRELOAD" timeout 120 "$PY" "$HERE/mp_python.py" \
	$IPA $IPB; then
	echo "--- mp_python.py: FAIL"
	fail=1
fi

if [ $have_testsuite -eq 1 ]; then
	echo "--- CPython's test_socket, its RDS cases"
	env LD_PRELOAD="$PRELOAD" timeout 120 "$PY" -m unittest -v \
		test.test_socket.BasicRDSTest test.test_socket.RDSTest \
		> "$TMP/ts.log" 2>&1
	rc=$?
	cat "$TMP/ts.log"
	# Every case ran and passed: none skipped (HAVE_SOCKET_RDS false, or
	# "unable to bind RDS socket").
	if [ $rc -ne 0 ] || grep -q "skipped" "$TMP/ts.log" ||
	   ! grep -q "^Ran 8 tests" "$TMP/ts.log"; then
		echo "--- test_socket: FAIL (status $rc)"
		fail=1
	fi
fi

kill -TERM "$epid"
wait "$epid"
erc=$?
epid=
[ $erc -eq 0 ] || { echo "$NAME: FAIL: rds-engined exit status $erc"; fail=1; }
if [ $have_testsuite -eq 0 ]; then
	[ $fail -eq 0 ] && cannot "mp_python.py passed, but CPython's test" \
		"package is missing (apt-get install libpython3.11-testsuite;" \
		"config/setup.sh does): its RDS cases did not run"
fi
[ $fail -eq 0 ] && echo "$NAME: PASS" || echo "$NAME: FAIL"
exit $fail
