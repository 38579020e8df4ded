#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# smoke.sh - smoke test of the rxe test VM, usable as a meson test.
#
# Boots one VM (vm-run.sh) and checks in it that ibv_devices lists rxe0 and
# that ib_send_lat (perftest, RC send latency) runs server + client over rxe0;
# prints the t_typical figure (half round trip, usec).
#
# Usage: smoke.sh [vm-run.sh options]      e.g. smoke.sh --rxe lo
# Exit status: 0 pass, 1 fail, 77 skip (VM unavailable). With CI=true a skip
# is a failure (exit 1): CI machines must be able to install QEMU.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ---- part run inside the VM ---------------------------------------------------
in_vm() {
	fail() { echo "SMOKE FAIL: $*"; exit 1; }
	echo "== ibv_devices"
	ibv_devices | tee /tmp/smoke-devices.txt
	grep -qw rxe0 /tmp/smoke-devices.txt || fail "ibv_devices does not list rxe0"
	ibv_devinfo -d rxe0 | grep -E 'transport|state|active_mtu|link_layer'
	[ -n "${RDS_VM_GID_INDEX:-}" ] || fail "rxe0 has no RoCE v2 GID for ${RDS_VM_ADDR:-?}"

	echo "== ib_send_lat over rxe0 ($RDS_VM_RXE, $RDS_VM_ADDR, GID index $RDS_VM_GID_INDEX)"
	local lat=(ib_send_lat -d rxe0 -x "$RDS_VM_GID_INDEX" -n 1000)
	timeout 120 "${lat[@]}" > /tmp/smoke-server.txt 2>&1 &
	local spid=$! ok=0
	for _ in $(seq 1 20); do
		sleep 1     # let the server listen
		if timeout 120 "${lat[@]}" "$RDS_VM_ADDR" > /tmp/smoke-client.txt 2>&1; then
			ok=1; break
		fi
		kill -0 "$spid" 2>/dev/null || break
	done
	wait "$spid"; local src=$?
	[ "$ok" = 1 ] || { cat /tmp/smoke-client.txt; fail "ib_send_lat client failed"; }
	[ "$src" = 0 ] || { cat /tmp/smoke-server.txt; fail "ib_send_lat server exited with $src"; }
	grep -A1 '#bytes' /tmp/smoke-client.txt
	local typ
	typ=$(awk '/t_typical/ { getline; print $5; exit }' /tmp/smoke-client.txt)
	[ -n "$typ" ] || fail "no t_typical in the ib_send_lat output"
	echo "SMOKE t_typical: $typ usec (ib_send_lat, 2 bytes, rxe0 on $RDS_VM_RXE)"
	echo "SMOKE PASS"
}
if [ "${1:-}" = --in-vm ]; then
	in_vm
	exit $?
fi

# ---- host side --------------------------------------------------------------------
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
"$HERE/vm-run.sh" --timeout "${RDS_VM_TIMEOUT:-600}" "$@" -- \
	"$(printf '%q' "$HERE/smoke.sh") --in-vm" | tee "$LOG"
rc=${PIPESTATUS[0]}

case $rc in
0)
	grep -q '^SMOKE PASS' "$LOG" || { echo "smoke: FAIL: no SMOKE PASS line"; exit 1; }
	echo "smoke: PASS, $(grep -m1 '^SMOKE t_typical' "$LOG" | sed 's/^SMOKE //')"
	exit 0 ;;
77)
	if [ "${CI:-}" = true ]; then
		echo "smoke: FAIL: the VM could not run and CI=true (a skip is a failure under CI)"
		exit 1
	fi
	echo "smoke: SKIP"
	exit 77 ;;
*)
	echo "smoke: FAIL (status $rc)"
	exit 1 ;;
esac
