#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-interop.sh BUILD_DIR - the 'interop' suite: the kernel's own RDS
# against librte_rds, over rxe, in two VMs on one virtual wire
# (vm-pair.sh):
#   VM A 10.99.0.1: modules rds + rds_rdma loaded, krds_peer (AF_RDS,
#                   SO_RDS_TRANSPORT = RDS_TRANS_IB);
#   VM B 10.99.0.2: rds, rds_tcp, rds_rdma NOT loaded (rds_rdma would hold
#                   RDMA-CM port 18634), lrds_peer (librte_rds, ib).
# Each waits until the other answers ping, then both run the exchange of
# interop_proto.h: INTEROP_COUNT (500) messages each way, sizes 0..64 KiB
# and two of 1 MiB, checked for size, content and order, with running
# SHA-256 digests that this script also compares across the two sides.
# Two rounds, each a fresh VM pair: in round 1 both sides send at once
# (librte_rds, up last, usually opens the connection); in round 2
# librte_rds sends only after the kernel's first message (lrds_peer -P),
# so the kernel connects and librte_rds accepts (checked in the kernel's
# log: "RDS/IB: Active conn connected"). A's kernel log (RDS/rxe lines)
# is streamed; on failure, dmesg | tail on both sides.
#
# BUILD_DIR is the meson build directory (or the one holding the two
# programs). Knobs: INTEROP_COUNT, INTEROP_TIMEOUT (seconds per side, 240),
# INTEROP_EAL_ARGS (extra EAL words for lrds_peer), RDS_VM_TIMEOUT (hard
# limit per VM, 600).
# Exit: 0 pass, 1 fail, 77 skip (VMs cannot run here; under CI=true a
# skip is a failure, 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(readlink -f "$1")
krds='' lrds=''
for d in "$build" "$build/test/rxe"; do
	[ -x "$d/krds_peer" ] && [ -x "$d/lrds_peer" ] && { krds=$d/krds_peer; lrds=$d/lrds_peer; break; }
done
if [ -z "$krds" ]; then
	echo "FAIL: krds_peer / lrds_peer not found under $build (build first)"
	exit 1
fi
n=${INTEROP_COUNT:-500}
tmo=${INTEROP_TIMEOUT:-240}
vm_timeout=${RDS_VM_TIMEOUT:-600}

# One VM job at a time on this machine: wait (bounded) while another runs.
waited=0
while pgrep -f '^[^ ]*qemu-system' > /dev/null; do
	[ "$waited" = 0 ] && echo "interop: another QEMU is running; waiting for it to end"
	if [ "$waited" -ge "${INTEROP_QEMU_WAIT:-900}" ]; then
		echo "interop: still another QEMU after ${waited}s; going on anyway"
		break
	fi
	sleep 5; waited=$((waited + 5))
done

# shellcheck disable=SC2016 # expanded in the VM
wait_peer='ok=0; for i in $(seq 1 60); do
  if ping -c 1 -W 1 "$RDS_VM_PEER" > /dev/null 2>&1; then ok=1; break; fi
  sleep 0.5
done
if [ $ok = 0 ]; then echo "interop: FAIL: $RDS_VM_PEER does not answer ping"; exit 1; fi
echo "interop: $RDS_VM_PEER answers ping (after $i tries)"'

# VM A: the kernel's RDS over rxe.
cmd_a="$wait_peer
lsmod | grep -E '^(rds|rds_rdma|rdma_rxe) ' | sed 's/^/interop: module /'
(dmesg -w | grep --line-buffered -iE 'rds|rxe' | sed -u 's/^/kernel: /') &
dpid=\$!
$(printf %q "$krds") -n $n -t $tmo \"\$RDS_VM_ADDR\" \"\$RDS_VM_PEER\"
rc=\$?
sleep 0.5; kill \$dpid 2>/dev/null
if [ \$rc != 0 ]; then echo 'interop: kernel log (dmesg | tail -n 40):'; dmesg | tail -n 40; fi
exit \$rc"

# VM B: librte_rds over rxe, without the kernel's RDS. $1: lrds_peer flags.
cmd_b() {
	echo "if lsmod | grep -qE '^rds_rdma '; then echo 'interop: FAIL: rds_rdma is loaded in B'; exit 1; fi
$wait_peer
INTEROP_EAL_ARGS=$(printf %q "${INTEROP_EAL_ARGS:-}") $(printf %q "$lrds") $1 -n $n -t $tmo \"\$RDS_VM_ADDR\" \"\$RDS_VM_PEER\"
rc=\$?
if [ \$rc != 0 ]; then echo 'interop: kernel log (dmesg | tail -n 20):'; dmesg | tail -n 20; fi
exit \$rc"
}

log=$(mktemp "${TMPDIR:-/tmp}/interop.XXXXXX.log")
trap 'rm -f "$log"' EXIT

# Cross-check the digests in $log: what A sent is what B received, and back.
digest() { sed -n "s/^\[$1\] $2: $3 sha256 \([0-9a-f]\{64\}\).*/\1/p" "$log" | tail -n 1; }
check_digests() {
	local a_tx a_rx b_tx b_rx
	a_tx=$(digest A krds tx) a_rx=$(digest A krds rx)
	b_tx=$(digest B lrds tx) b_rx=$(digest B lrds rx)
	if [ -z "$a_tx" ] || [ "$a_tx" != "$b_rx" ] || [ -z "$b_tx" ] || [ "$b_tx" != "$a_rx" ]; then
		echo "interop: FAIL: digests differ: A tx $a_tx / B rx $b_rx; B tx $b_tx / A rx $a_rx"
		return 1
	fi
	echo "interop: kernel -> librte_rds sha256 $a_tx (both ends agree)"
	echo "interop: librte_rds -> kernel sha256 $b_tx (both ends agree)"
}

# Round 1: both send at once; librte_rds, up last, usually connects first.
# Round 2: librte_rds waits for the kernel's first message (-P), so the
# kernel connects and librte_rds accepts: both CM roles are covered.
total_start=$(date +%s)
result=0
for round in 1 2; do
	if [ $round = 1 ]; then flags='' what='both sides send at once'
	else flags='-P' what='the kernel connects, librte_rds accepts'; fi
	echo "interop: round $round: $what"
	start=$(date +%s)
	"$here/vm-pair.sh" -t "$vm_timeout" --mem 1536 --grace 20 \
		--kargs-b "rdsvm_nomod=rds_rdma,rds_tcp,rds" -- "$cmd_a" "$(cmd_b "$flags")" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	wall=$(( $(date +%s) - start ))
	if [ "$rc" -eq 77 ]; then
		if [ "${CI:-}" = "true" ]; then
			echo "FAIL: the rxe VMs could not run under CI=true (a skip is a failure here)"
			exit 1
		fi
		exit 77
	fi
	if [ "$rc" -eq 0 ]; then check_digests || rc=1; fi
	if [ "$rc" -eq 0 ] && [ $round = 2 ] &&
	   ! grep -q '^\[A\] kernel: .*RDS/IB: Active conn connected' "$log"; then
		echo "interop: FAIL: round 2: the kernel log shows no active connection of the kernel's"
		rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		echo "interop: round $round PASS ($n messages each way, ${wall}s wall)"
	else
		echo "interop: round $round FAIL (status $rc, ${wall}s wall)"
		result=1
	fi
done
echo "interop: $([ $result = 0 ] && echo PASS || echo FAIL) ($(( $(date +%s) - total_start ))s wall)"
exit $result
