#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite api, the attached runs (api_*_attached): one api binary as a
# client of an rds-engined of this build started for the run, with the
# loop addresses the in-process runs declare (10.255.0.1 to 10.255.0.4,
# api_common.h, and api_ipv6's fd00::1, fd00::2 and fe80::1), lcore 0, --no-pci --no-huge -m 512, a file prefix and a
# socket of its own. The binary finds the engine by RDS_API_ENGINE
# (api_common.c) and skips, with the reason printed, what a client is
# documented not to have. The engine must still be there at the end: a
# client that took it down is a failure too.
#
#   api_attached.sh BUILD_DIR BINARY
set -u
BUILD=${1:?build directory}
BIN=${2:?api binary}
ENGINED=$BUILD/app/rds-engined/rds-engined
NAME=$(basename "$BIN")_attached
TMP=$(mktemp -d "/tmp/rds-$NAME.XXXXXX")
SOCK=$TMP/engine.sock
. "$(dirname "$0")/../multiproc/mp_lib.sh"
epid=

cleanup() {
	if [ -n "$epid" ]; then
		kill -TERM "$epid" 2>/dev/null
		wait "$epid" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$BIN"
mp_start_engine "$ENGINED" "api_att_$$" 10.255.0.1 10.255.0.2 10.255.0.3 \
	10.255.0.4 '[fd00::1]' '[fd00::2]' '[fe80::1]'
RDS_API_ENGINE=$SOCK "$BIN"
rc=$?
if ! kill -0 "$epid" 2>/dev/null; then
	wait "$epid"
	echo "$NAME: FAIL: rds-engined exited ($?) during the run:"
	epid=
	rc=1
fi
if [ "$rc" -ne 0 ]; then
	echo "--- rds-engined's log:"
	cat "$TMP/engine.log"
fi
exit "$rc"
