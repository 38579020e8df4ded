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
# kreset  the exchange (both rounds) with the kernel's side of the TCP
#   connection destroyed under it (`ss -K`, the kernel's SOCK_DESTROY, in A)
#   every INTEROP_KILL_EVERY (1) seconds while it runs: the kernel's
#   rds_tcp sees its socket fail, drops the connection and reconnects (or
#   knocks) as when its peer vanished, and resends what TCP had not
#   acknowledged, marked retransmitted; librte_rds does the same its way.
#   Nothing lost, nothing twice (SHA-256 both ways, in order); the case
#   fails if no socket was destroyed or librte_rds saw no reset.
# exchange6, k2l6, reset6  the same over IPv6: fd99::1/64 (A) and fd99::2/64
#   (B) added to eth0 in each VM (exchange6's round 2 swaps them), the
#   kernel's and librte_rds's sockets bound to them (the kernel's rds_tcp
#   listens on [::]:16385, librte_rds on its address).
# linklocal  the exchange over the link-local fe80::1 (A) and fe80::2 (B)
#   on eth0, scope eth0 on both ends (round 1 only: the kernel connects).
#
# A run in which the virtual wire itself stalled (a guest's virtio-net
# transmit watchdog fired: QEMU, not RDS) is said so and run once more.
#
# Knobs: INTEROP_COUNT, INTEROP_TIMEOUT (240 s a side), INTEROP_FANIN_COUNT,
# INTEROP_FANIN_TIMEOUT (300), INTEROP_RESET_EVERY, INTEROP_EAL_ARGS,
# RDS_VM_TIMEOUT. Exit: 0 pass, 1 fail, 77 skip (VMs cannot run here;
# under CI=true a skip is a failure).
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: $0 BUILD_DIR [exchange|k2l|reset|kreset|exchange6|k2l6|reset6|linklocal]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
build=$(readlink -f "$1")
case=${2:-exchange}
# fam: 4, 6 (fd99::/64) or ll (fe80::/64 on eth0)
fam=4
kill_every=''
case $case in
exchange|k2l|reset) ;;
kreset) case=exchange; kill_every=${INTEROP_KILL_EVERY:-1} ;;
exchange6|k2l6|reset6) fam=6; case=${case%6} ;;
linklocal) fam=ll; case=exchange ;;
*) echo "$usage" >&2; exit 2 ;;
esac
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
dmesg_watch='(dmesg -w | grep --line-buffered -iE "rds|tcp|watchdog" | sed -u "s/^/kernel: /") &
dpid=$!'
# shellcheck disable=SC2016 # expanded in the VM
a_pre="lsmod | grep -E '^(rds|rds_tcp) ' | sed 's/^/interop: module /'
lsmod | grep -qE '^rds_tcp ' || { echo 'interop: FAIL: rds_tcp is not loaded in A'; exit 1; }
$wait_peer
$dmesg_watch"
a_end='sleep 0.5; kill $dpid 2>/dev/null
if [ $rc != 0 ]; then echo "interop: kernel log (dmesg | tail -n 30):"; dmesg | tail -n 30; fi
exit $rc'
# kreset: A destroys the kernel's rds_tcp sockets (port 16385 at either
# end) every $kill_every s while its peer runs, and counts them (ss -K
# prints each socket it destroyed; inet_diag/tcp_diag are in the VM).
# shellcheck disable=SC2016 # expanded in the VM
a_killer='( k=0; while sleep '"${kill_every:-1}"'; do
  n=$(ss -K -tnH "( sport = :16385 or dport = :16385 )" 2>&1 | grep -c .)
  if [ "$n" != 0 ]; then k=$((k + n)); echo "interop: destroyed $n rds_tcp socket(s) (total $k)"; fi
done ) &
kpid=$!'
# shellcheck disable=SC2016 # expanded in the VM
a_killer_end='kill $kpid 2>/dev/null; wait $kpid 2>/dev/null'
b_pre="if lsmod | grep -qE '^rds_tcp '; then echo 'interop: FAIL: rds_tcp is loaded in B'; exit 1; fi
$wait_peer"
b_env="INTEROP_LRDS_TRANS=tcp INTEROP_EAL_ARGS=$eal_q"
# shellcheck disable=SC2016 # expanded in the VM
b_end='rc=$?
[ $rc != 0 ] && dmesg | grep -i "NETDEV WATCHDOG" | sed "s/^/kernel: /"
exit $rc'
# IPv6: the addresses of A and B on eth0 (no DAD: usable at once), and
# how a peer names them. v6_addrs A_ADDR B_ADDR: the set-up line of each
# VM ($RDS_VM_NAME says which it is).
v6pfx='' v6sfx='' v6len=64
case $fam in
6) v6pfx=fd99:: ;;
ll) v6pfx=fe80:: v6sfx=%eth0 ;;
esac
v6_setup() {	# the line adding A's (1) or B's (2) address, swapped if $1
	local me='$( [ "$RDS_VM_NAME" = A ] && echo 1 || echo 2)'
	[ "${1:-}" = swap ] && me='$( [ "$RDS_VM_NAME" = A ] && echo 2 || echo 1)'
	echo "ip -6 addr add $v6pfx$me/$v6len dev eth0 nodad || { echo 'interop: FAIL: cannot add an IPv6 address to eth0'; exit 1; }
ip -6 addr show dev eth0 | sed 's/^/interop: /'"
}
# v6 NAME: the address of A (1) or B (2) as the peers take it
v6() { echo "$v6pfx$1$v6sfx"; }
# v6 with a port: [addr%scope]:port
v6p() { echo "[$v6pfx$1$v6sfx]:$2"; }
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
# The virtual wire itself can stop under load: QEMU stops taking a
# guest's transmit queue and the guest's virtio-net watchdog reports it;
# from then on no frame crosses. That is the machine, not RDS: say so and
# run the pair once more (run-interop.sh does the same).
wire_stalled() {
	grep -q 'NETDEV WATCHDOG: .*transmit queue .* timed out' "$log"
}
run_pair() {	# CMD_A CMD_B [vm-pair options]
	local a=$1 b=$2 attempt rc
	shift 2
	for attempt in 1 2; do
		"$here/vm-pair.sh" -t "$vm_timeout" --grace 20 \
			--kargs-a "rdsvm_nomod=rds_rdma" \
			--kargs-b "rdsvm_nomod=rds_rdma,rds_tcp,rds" "$@" -- "$a" "$b" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		[ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ $attempt = 1 ] && wire_stalled || break
		echo "interop-tcp: the virtual wire stalled (virtio-net transmit watchdog above; QEMU, not RDS): once more"
	done
	return "$rc"
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
			ka=1 kb=2 swap=''
		else
			[ "$fam" = ll ] && break
			what='the kernel (higher address) knocks, librte_rds connects'
			ips=(--ip-a 10.99.0.2 --ip-b 10.99.0.1) flags='-P' role=connects
			ka=2 kb=1 swap=swap
		fi
		if [ "$fam" = 4 ]; then
			a_ips='"$RDS_VM_ADDR" "$RDS_VM_PEER"' b_ips=$a_ips a_set='' b_set=''
		else
			a_ips="$(v6 $ka) $(v6 $kb)" b_ips="$(v6 $kb) $(v6 $ka)"
			a_set=$(v6_setup $swap) b_set=$a_set
			what="$what (IPv6: kernel $(v6 $ka), librte_rds $(v6 $kb))"
		fi
		echo "interop-tcp: round $round: $what"
		sync_a='' sync_b=''
		if [ $round = 2 ]; then
			sync_a=$a_await
			sync_b="( $b_tell ) &"
		fi
		kill_a='' kill_a_end=''
		[ -n "$kill_every" ] && { kill_a=$a_killer; kill_a_end=$a_killer_end; }
		a="$a_pre
$a_set
$sync_a
$kill_a
$krds_q -T tcp -n $n -t $tmo $a_ips
rc=\$?
$kill_a_end
$a_end"
		b="$b_pre
$b_set
$sync_b
$b_env $lrds_q $flags -n $n -t $tmo $b_ips
$b_end"
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
		if [ "$rc" -eq 0 ] && [ -n "$kill_every" ]; then
			kills=$(sed -n 's/^\[A\] interop: destroyed .* (total \([0-9]*\))$/\1/p' "$log" | tail -n 1)
			resets=$(lcount resets)
			echo "interop-tcp: round $round: the kernel's sockets destroyed ${kills:-0} times, librte_rds counted ${resets:-0} resets"
			if [ "${kills:-0}" = 0 ] || [ "${resets:-0}" = 0 ]; then
				echo "interop-tcp: FAIL: round $round: no kernel-side reset happened (destroyed ${kills:-0}, resets ${resets:-0})"
				rc=1
			fi
		fi
		wall=$(( $(date +%s) - start ))
		if [ "$rc" -eq 0 ]; then echo "interop-tcp: round $round PASS (${wall}s wall)"
		else echo "interop-tcp: round $round FAIL (status $rc, ${wall}s wall)"; result=1; fi
	done
else
	every=''
	[ "$case" = reset ] && every=${INTEROP_RESET_EVERY:-300}
	echo "interop-tcp: $case: three kernel sockets stream at once into one librte_rds socket ($fn messages each${every:+, a reset every $every}${v6pfx:+, IPv6 ${v6pfx}1 -> ${v6pfx}2})"
	senders=() ks='' a_set='' b_set=''
	[ "$fam" = 4 ] || { a_set=$(v6_setup); b_set=$a_set; }
	for j in 0 1 2; do
		if [ "$fam" = 4 ]; then
			senders+=("-F \$RDS_VM_PEER:$((4243 + j))")
			ks+="$krds_q -T tcp -S $j -n $fn -t $ftmo \"\$RDS_VM_ADDR:$((4243 + j))\" \"\$RDS_VM_PEER:4242\" &
pids=\"\$pids \$!\"
"
		else
			senders+=("-F $(v6p 1 $((4243 + j)))")
			ks+="$krds_q -T tcp -S $j -n $fn -t $ftmo $(v6p 1 $((4243 + j))) $(v6p 2 4242) &
pids=\"\$pids \$!\"
"
		fi
	done
	recv_at='"$RDS_VM_ADDR:4242"'
	[ "$fam" = 4 ] || recv_at=$(v6p 2 4242)
	a="$a_pre
$a_set
pids=''
$ks
rc=0; for p in \$pids; do wait \"\$p\" || rc=1; done
$a_end"
	b="$b_pre
$b_set
INTEROP_LRDS_QP_ERROR_EVERY=$every $b_env $lrds_q ${senders[*]} -n $fn -t $ftmo $recv_at
$b_end"
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
