#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-interop-tcp.sh BUILD_DIR [CASE] - the 'interop' suite over tcp: the
# kernel's own rds_tcp against librte_rds's tcp transport, in two VMs on
# one virtual wire (vm-pair.sh). VM A runs the kernel's RDS (rds, rds_tcp
# loaded; krds_peer -T tcp: SO_RDS_TRANSPORT = RDS_TRANS_TCP), VM B
# librte_rds (lrds_peer with INTEROP_LRDS_TRANS=tcp; rds_tcp not loaded,
# it would hold port 16385). CASE (default exchange):
#
# exchange  interop_proto.h's exchange, INTEROP_COUNT (500) messages each
#   way, 0 B..1 MiB, checked for size, content and order, SHA-256 digests
#   compared across the VMs. Round 1: the kernel has the lower address
#   (10.99.0.1) and connects, librte_rds accepts. Round 2: the addresses
#   swapped and librte_rds sends only after the kernel's first message
#   (-P): the kernel, the higher address, knocks, and librte_rds connects
#   back. Each round checks from librte_rds's counters that it took the
#   role it should.
# k2l  fan-in: three kernel sockets (three krds_peer -S processes, one
#   kernel connection) stream INTEROP_FANIN_COUNT (500) messages each, 0 B
#   ..1 MiB, at once into one librte_rds socket; SHA-256 per stream on
#   both ends, and librte_rds fails on any sequence skipped.
# reset  k2l with librte_rds's TCP connection reset (an RST, what was in
#   flight lost) every INTEROP_RESET_EVERY (300) messages received: the
#   kernel reconnects and sends again what TCP had not acknowledged, its
#   duplicates dropped: nothing lost, nothing twice, SHA-256 per stream.
#
# Knobs: INTEROP_COUNT, INTEROP_TIMEOUT (240 s a side), INTEROP_FANIN_COUNT,
# INTEROP_FANIN_TIMEOUT (300), INTEROP_RESET_EVERY, INTEROP_EAL_ARGS,
# RDS_VM_TIMEOUT. Exit: 0 pass, 1 fail, 77 skip (VMs cannot run here;
# under CI=true a skip is a failure).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [exchange|k2l|reset]" >&2; exit 2; }
build=$(readlink -f "$1")
case=${2:-exchange}
case $case in exchange|k2l|reset) ;; *) echo "usage: $0 BUILD_DIR [exchange|k2l|reset]" >&2; exit 2 ;; esac
krds='' lrds=''
for d in "$build" "$build/test/rxe"; do
	[ -x "$d/krds_peer" ] && [ -x "$d/lrds_peer" ] && { krds=$d/krds_peer; lrds=$d/lrds_peer; break; }
done
[ -n "$krds" ] || { echo "FAIL: krds_peer / lrds_peer not found under $build (build first)"; exit 1; }
n=${INTEROP_COUNT:-500}
tmo=${INTEROP_TIMEOUT:-240}
fn=${INTEROP_FANIN_COUNT:-500}
ftmo=${INTEROP_FANIN_TIMEOUT:-300}
vm_timeout=${RDS_VM_TIMEOUT:-600}

# One VM job at a time on this machine: wait (bounded) while another runs.
waited=0
while pgrep -f '^[^ ]*qemu-system' > /dev/null; do
	[ "$waited" = 0 ] && echo "interop-tcp: another QEMU is running; waiting for it to end"
	[ "$waited" -ge "${INTEROP_QEMU_WAIT:-900}" ] && break
	sleep 5; waited=$((waited + 5))
done

# shellcheck disable=SC2016 # expanded in the VM
wait_peer='ok=0; for i in $(seq 1 60); do
  if ping -c 1 -W 1 "$RDS_VM_PEER" > /dev/null 2>&1; then ok=1; break; fi
  sleep 0.5
done
if [ $ok = 0 ]; then echo "interop: FAIL: $RDS_VM_PEER does not answer ping"; exit 1; fi'
krds_q=$(printf %q "$krds") lrds_q=$(printf %q "$lrds")
eal_q=$(printf %q "${INTEROP_EAL_ARGS:-}")
dmesg_watch='(dmesg -w | grep --line-buffered -iE "rds|tcp" | sed -u "s/^/kernel: /") &
dpid=$!'
# shellcheck disable=SC2016 # expanded in the VM
a_pre="lsmod | grep -E '^(rds|rds_tcp) ' | sed 's/^/interop: module /'
lsmod | grep -qE '^rds_tcp ' || { echo 'interop: FAIL: rds_tcp is not loaded in A'; exit 1; }
$wait_peer
$dmesg_watch"
a_end='sleep 0.5; kill $dpid 2>/dev/null
if [ $rc != 0 ]; then echo "interop: kernel log (dmesg | tail -n 30):"; dmesg | tail -n 30; fi
exit $rc'
b_pre="if lsmod | grep -qE '^rds_tcp '; then echo 'interop: FAIL: rds_tcp is loaded in B'; exit 1; fi
$wait_peer"
b_env="INTEROP_LRDS_TRANS=tcp INTEROP_EAL_ARGS=$eal_q"
# Round 2: the kernel (higher address) knocks at its first send and, once
# refused, never tries again by itself (the kernel's rds_queue_reconnect
# leaves reconnects to the lower address), and librte_rds, which waits for
# the kernel's first message, would never connect: the kernel starts only
# once librte_rds listens (B tells A at meeting point 18900, busybox nc
# waiting in A, bash /dev/tcp in B).
# shellcheck disable=SC2016 # expanded in the VM
a_await='msg=$(timeout 300 busybox nc -l -p 18900 < /dev/null)
[ "$msg" = ok ] || { echo "interop: FAIL: librte_rds never said it listens (got ${msg})"; exit 1; }'
# shellcheck disable=SC2016 # expanded in the VM
b_tell='for i in $(seq 1 600); do ss -Hltn "sport = :16385" | grep -q . && break; sleep 0.2; done
for i in $(seq 1 600); do
  timeout 3 bash -c "echo ok > /dev/tcp/$RDS_VM_PEER/18900" 2>/dev/null && break
  sleep 0.2
done'

log=$(mktemp "${TMPDIR:-/tmp}/interop-tcp.XXXXXX.log")
trap 'rm -f "$log"' EXIT
digest() { sed -n "s/^\[$1\] $2: $3 sha256 \([0-9a-f]\{64\}\).*/\1/p" "$log" | tail -n 1; }
skip_or() {
	if [ "$1" -eq 77 ]; then
		[ "${CI:-}" = "true" ] && { echo "FAIL: the VMs could not run under CI=true"; exit 1; }
		exit 77
	fi
}
run_pair() {	# CMD_A CMD_B [vm-pair options]
	local a=$1 b=$2
	shift 2
	"$here/vm-pair.sh" -t "$vm_timeout" --grace 20 \
		--kargs-a "rdsvm_nomod=rds_rdma" \
		--kargs-b "rdsvm_nomod=rds_rdma,rds_tcp,rds" "$@" -- "$a" "$b" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}
# librte_rds's tcp counter NAME, from its last report.
lcount() { sed -n "s/^\[B\] lrds: tcp: .*[ ;]$1 \([0-9]*\).*/\1/p" "$log" | tail -n 1; }

total_start=$(date +%s)
result=0
if [ "$case" = exchange ]; then
	for round in 1 2; do
		if [ $round = 1 ]; then
			what='the kernel (lower address) connects, librte_rds accepts'
			ips=(--ip-a 10.99.0.1 --ip-b 10.99.0.2) flags='' role=accepts
		else
			what='the kernel (higher address) knocks, librte_rds connects'
			ips=(--ip-a 10.99.0.2 --ip-b 10.99.0.1) flags='-P' role=connects
		fi
		echo "interop-tcp: round $round: $what"
		sync_a='' sync_b=''
		if [ $round = 2 ]; then
			sync_a=$a_await
			sync_b="( $b_tell ) &"
		fi
		a="$a_pre
$sync_a
$krds_q -T tcp -n $n -t $tmo \"\$RDS_VM_ADDR\" \"\$RDS_VM_PEER\"
rc=\$?
$a_end"
		b="$b_pre
$sync_b
$b_env $lrds_q $flags -n $n -t $tmo \"\$RDS_VM_ADDR\" \"\$RDS_VM_PEER\""
		start=$(date +%s)
		run_pair "$a" "$b" --mem 1536 "${ips[@]}"
		rc=$?
		skip_or "$rc"
		if [ "$rc" -eq 0 ]; then
			a_tx=$(digest A krds tx) a_rx=$(digest A krds rx)
			b_tx=$(digest B lrds tx) b_rx=$(digest B lrds rx)
			if [ -z "$a_tx" ] || [ "$a_tx" != "$b_rx" ] || [ -z "$b_tx" ] || [ "$b_tx" != "$a_rx" ]; then
				echo "interop-tcp: FAIL: digests differ: A tx $a_tx / B rx $b_rx; B tx $b_tx / A rx $a_rx"
				rc=1
			else
				echo "interop-tcp: kernel -> librte_rds sha256 $a_tx (both ends agree)"
				echo "interop-tcp: librte_rds -> kernel sha256 $b_tx (both ends agree)"
			fi
		fi
		if [ "$rc" -eq 0 ] && [ "$(lcount "$role")" = 0 ]; then
			echo "interop-tcp: FAIL: round $round: librte_rds's $role counter is 0"
			rc=1
		fi
		wall=$(( $(date +%s) - start ))
		if [ "$rc" -eq 0 ]; then echo "interop-tcp: round $round PASS (${wall}s wall)"
		else echo "interop-tcp: round $round FAIL (status $rc, ${wall}s wall)"; result=1; fi
	done
else
	every=''
	[ "$case" = reset ] && every=${INTEROP_RESET_EVERY:-300}
	echo "interop-tcp: $case: three kernel sockets stream at once into one librte_rds socket ($fn messages each${every:+, a reset every $every})"
	senders=() ks=''
	for j in 0 1 2; do
		senders+=("-F \$RDS_VM_PEER:$((4243 + j))")
		ks+="$krds_q -T tcp -S $j -n $fn -t $ftmo \"\$RDS_VM_ADDR:$((4243 + j))\" \"\$RDS_VM_PEER:4242\" &
pids=\"\$pids \$!\"
"
	done
	a="$a_pre
pids=''
$ks
rc=0; for p in \$pids; do wait \"\$p\" || rc=1; done
$a_end"
	b="$b_pre
INTEROP_LRDS_QP_ERROR_EVERY=$every $b_env $lrds_q ${senders[*]} -n $fn -t $ftmo \"\$RDS_VM_ADDR:4242\""
	start=$(date +%s)
	run_pair "$a" "$b" --mem 1536
	rc=$?
	skip_or "$rc"
	if [ "$rc" -eq 0 ]; then
		for j in 0 1 2; do
			tx=$(digest A krds "stream $j tx") rx=$(digest B lrds "stream $j rx")
			if [ -z "$tx" ] || [ "$tx" != "$rx" ]; then
				echo "interop-tcp: FAIL: stream $j digests differ: sent $tx / received $rx"
				rc=1
			else
				echo "interop-tcp: stream $j sha256 $tx (both ends agree)"
			fi
		done
	fi
	if [ "$rc" -eq 0 ] && [ "$case" = reset ] && [ "$(lcount injected)" = 0 ]; then
		echo "interop-tcp: FAIL: no reset was injected"
		rc=1
	fi
	wall=$(( $(date +%s) - start ))
	[ "$rc" -eq 0 ] || result=1
	echo "interop-tcp: $case $([ "$rc" = 0 ] && echo PASS || echo FAIL) (${wall}s wall)"
fi
echo "interop-tcp: $([ $result = 0 ] && echo PASS || echo FAIL) ($(( $(date +%s) - total_start ))s wall)"
exit $result
