#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-interop.sh BUILD_DIR [CASE] - the 'interop' suite: the kernel's own
# RDS against librte_rds, over rxe, in two VMs on one virtual wire
# (vm-pair.sh):
#   VM A 10.99.0.1: modules rds + rds_rdma loaded, krds_peer (AF_RDS,
#                   SO_RDS_TRANSPORT = RDS_TRANS_IB);
#   VM B 10.99.0.2: rds, rds_tcp, rds_rdma NOT loaded (rds_rdma would hold
#                   RDMA-CM port 18634), lrds_peer (librte_rds, ib).
# Each waits until the other answers ping. CASE (default exchange):
#
# exchange  both run the exchange of interop_proto.h: INTEROP_COUNT (500)
#   messages each way, sizes 0..64 KiB and two of 1 MiB, checked for size,
#   content and order, with running SHA-256 digests that this script also
#   compares across the two sides. Four rounds, each a fresh VM pair: in
#   round 1 both sides send at once (librte_rds, up last, usually opens the
#   connection); in round 2 librte_rds sends only after the kernel's first
#   message (lrds_peer -P), so the kernel connects and librte_rds accepts
#   (checked in the kernel's log: "RDS/IB: Active conn connected"); round 3
#   is round 1 with the kernel's credit flow control on
#   (net.rds.ib.flow_control=1): librte_rds receives from its shared
#   receive queue and advertises no credits, so neither end uses them (the
#   kernel's log shows no connection "with flow control"); round 4 is round
#   3 with librte_rds on receive rings of each connection's own (srq=0),
#   which advertise credits: both ends use them.
# k2l  fan-in: three kernel sockets in A (ports 4243..4245, three krds_peer
#   -S processes sharing one kernel connection) stream at once into one
#   librte_rds socket in B (lrds_peer -F), INTEROP_FANIN_COUNT (500)
#   messages each, sizes 0 B..1 MiB (interop_stream_size: a quarter above
#   64 KiB, about 70 MB a stream), running SHA-256 per stream on both ends;
#   librte_rds also fails if the kernel's sequence skipped a message, and
#   the case if librte_rds's end sent more than INTEROP_FANIN_MAX_RNR (5)
#   RNR NAKs (its receive ring ran dry).
# l2k  fan-in: three librte_rds instances in B (three lrds_peer -S
#   processes on 10.99.0.2, .3, .4: three connections) stream at once into
#   one kernel socket in A (krds_peer -F).
# exchange6, k2l6  the same over IPv6 (rounds 1 and 2 of exchange; k2l):
#   fd99::1/64 (A) and fd99::2/64 (B) added to eth0 (rxe0 gets their
#   RoCE v2 GIDs), the kernel's and librte_rds's sockets bound to them:
#   RDMA-CM port 16385 and the kernel's 52-byte IPv6 private data.
# linklocal  exchange round 1 between fe80::1 (A) and fe80::2 (B) on eth0.
# A fan-in case fails on any lost, reordered or damaged message, or when a
# stream does not complete within INTEROP_FANIN_TIMEOUT (300) seconds (a
# stall is a failure, not a CI timeout). A run in which the virtual wire
# itself stalled (the guest's virtio-net transmit watchdog fires: QEMU's
# socket netdev, not RDS) is said so and run once more. Both VMs print rxe0's counters
# (/sys/class/infiniband/rxe0/ports/1/hw_counters: send_rnr_err = RNR NAKs
# this end sent, rcvd_rnr_err = RNR NAKs it got). A's kernel log (RDS/rxe
# lines) is streamed; on failure, dmesg | tail on both sides.
#
# BUILD_DIR is the meson build directory (or the one holding the two
# programs). Knobs: INTEROP_COUNT, INTEROP_TIMEOUT (seconds per side, 240),
# INTEROP_FANIN_COUNT, INTEROP_FANIN_TIMEOUT, INTEROP_EAL_ARGS (extra EAL
# words for lrds_peer), INTEROP_LRDS_CONF (lrds_peer's ib address options,
# e.g. "srq_min=256" or "srq=0 recv_wr=256 flow_control=0"),
# INTEROP_KERNEL_FLOWCTL=1 (fan-in: the kernel advertises credits too;
# used only against srq=0),
# RDS_VM_TIMEOUT (hard limit per VM, 600).
# Exit: 0 pass, 1 fail, 77 skip (VMs cannot run here; under CI=true a
# skip is a failure, 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: $0 BUILD_DIR [exchange|k2l|l2k|exchange6|k2l6|linklocal]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
build=$(readlink -f "$1")
case=${2:-exchange}
# fam: 4, 6 (fd99::/64) or ll (fe80::/64 on eth0)
fam=4
case $case in
exchange|k2l|l2k) ;;
exchange6|k2l6) fam=6; case=${case%6} ;;
linklocal) fam=ll; case=exchange ;;
*) echo "$usage" >&2; exit 2 ;;
esac
v6pfx='' v6sfx=''
case $fam in
6) v6pfx=fd99:: ;;
ll) v6pfx=fe80:: v6sfx=%eth0 ;;
esac
# IPv6: the address of A (1) or B (2) as the peers take it, with a port.
v6() { echo "$v6pfx$1$v6sfx"; }
v6p() { echo "[$v6pfx$1$v6sfx]:$2"; }
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
fn=${INTEROP_FANIN_COUNT:-500}
ftmo=${INTEROP_FANIN_TIMEOUT:-300}
if [ "$case" = exchange ]; then vm_timeout=${RDS_VM_TIMEOUT:-600}
else vm_timeout=${RDS_VM_TIMEOUT:-$((ftmo + 150))}; fi

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
# IPv6: each VM adds its address to eth0 (A: 1, B: 2) and waits for
# rxe0's RoCE v2 GID of it.
v6_setup=''
if [ "$fam" != 4 ]; then
	# shellcheck disable=SC2016 # expanded in the VM
	v6_setup='me=$([ "$RDS_VM_NAME" = A ] && echo 1 || echo 2)
ip -6 addr add '"$v6pfx"'$me/64 dev eth0 nodad || { echo "interop: FAIL: cannot add '"$v6pfx"'$me"; exit 1; }
for i in $(seq 1 50); do '"$(printf %q "$here/gid-index.sh")"' rxe0 '"$v6pfx"'$me > /dev/null 2>&1 && break; sleep 0.2; done
echo "interop: '"$v6pfx"'$me on eth0, RoCE v2 GID index $('"$(printf %q "$here/gid-index.sh")"' rxe0 '"$v6pfx"'$me)"'
	wait_peer="$wait_peer
$v6_setup"
fi
# The exchange's addresses: A's own and its peer's, B's own and its peer's.
if [ "$fam" = 4 ]; then
	# shellcheck disable=SC2016 # expanded in the VM
	a_ips='"$RDS_VM_ADDR" "$RDS_VM_PEER"' b_ips=$a_ips
else
	a_ips="$(v6 1) $(v6 2)" b_ips="$(v6 2) $(v6 1)"
fi

# rxe0's non-zero counters, one line.
# shellcheck disable=SC2016 # expanded in the VM
rxe_counters='printf "interop: rxe0 counters:"; for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
  read -r v < "$f"; [ "$v" = 0 ] || printf " %s=%s" "${f##*/}" "$v"; done; echo'

# VM A: the kernel's RDS over rxe.
cmd_a="$wait_peer
lsmod | grep -E '^(rds|rds_rdma|rdma_rxe) ' | sed 's/^/interop: module /'
(dmesg -w | grep --line-buffered -iE 'rds|rxe' | sed -u 's/^/kernel: /') &
dpid=\$!
$(printf %q "$krds") \${KRDS_FLAGS:-} -n $n -t $tmo $a_ips
rc=\$?
sleep 0.5; kill \$dpid 2>/dev/null
if [ \$rc != 0 ]; then echo 'interop: kernel log (dmesg | tail -n 40):'; dmesg | tail -n 40; fi
exit \$rc"

# VM B: librte_rds over rxe, without the kernel's RDS. $1: lrds_peer flags,
# $2: its ib address options (default INTEROP_LRDS_CONF).
cmd_b() {
	echo "if lsmod | grep -qE '^rds_rdma '; then echo 'interop: FAIL: rds_rdma is loaded in B'; exit 1; fi
$wait_peer
INTEROP_EAL_ARGS=$(printf %q "${INTEROP_EAL_ARGS:-}") INTEROP_LRDS_CONF=$(printf %q "${2-${INTEROP_LRDS_CONF:-}}") $(printf %q "$lrds") $1 -n $n -t $tmo $b_ips
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

# Fan-in digests: each stream's tx digest (on the senders' side) must be
# the receiver's rx digest of that stream. $1: the senders' VM, $2: theirs.
check_fanin_digests() {
	local sv=$1 sn=$2 rv=$3 rn=$4 j tx rx bad=0
	for j in 0 1 2; do
		tx=$(digest "$sv" "$sn" "stream $j tx")
		rx=$(digest "$rv" "$rn" "stream $j rx")
		if [ -z "$tx" ] || [ "$tx" != "$rx" ]; then
			echo "interop: FAIL: stream $j digests differ: sent $tx / received $rx"
			bad=1
		else
			echo "interop: stream $j sha256 $tx (both ends agree)"
		fi
	done
	return $bad
}

# The virtual wire itself can stop: QEMU (7.2, -netdev socket) stops
# taking a guest's transmit queue, the guest's virtio-net watchdog reports
# it, and from then on no frame crosses (the kernel's QPs fail with
# "transport retry counter exceeded" and no reconnect can succeed). That
# is the machine, not RDS: say so, and let the caller run the case once
# more.
wire_stalled() {
	grep -q 'NETDEV WATCHDOG: .*transmit queue .* timed out' "$log"
}

# k2l: librte_rds's receive ring must keep up with three fast kernel
# senders: the RNR NAKs its end sent (rxe0's send_rnr_err in B) stay
# within INTEROP_FANIN_MAX_RNR (5: room for the VM being descheduled on a
# busy host; a 256-buffer ring refilled one by one, with RDMA-CM's 655 ms
# RNR timer, sent about 50 here and took three times as long).
check_rnr() {
	local rnr max=${INTEROP_FANIN_MAX_RNR:-5}
	rnr=$(sed -n 's/^\[B\] interop: rxe0 counters:.* send_rnr_err=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	rnr=${rnr:-0}
	if [ "$rnr" -gt "$max" ]; then
		echo "interop: FAIL: librte_rds's receive ring ran dry: it sent $rnr RNR NAKs (at most $max)"
		return 1
	fi
	echo "interop: librte_rds's end sent $rnr RNR NAKs (at most $max)"
}

run_pair() {	# WHAT CMD_A CMD_B [vm-pair options]
	local what=$1 a=$2 b=$3
	shift 3
	"$here/vm-pair.sh" -t "$vm_timeout" --grace 20 \
		--kargs-b "rdsvm_nomod=rds_rdma,rds_tcp,rds" "$@" -- "$a" "$b" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

skip_or() {	# the status of a pair run: 77 ends the script
	if [ "$1" -eq 77 ]; then
		if [ "${CI:-}" = "true" ]; then
			echo "FAIL: the rxe VMs could not run under CI=true (a skip is a failure here)"
			exit 1
		fi
		exit 77
	fi
}

total_start=$(date +%s)
result=0
lrds_q=$(printf %q "$lrds") krds_q=$(printf %q "$krds")
eal_q=$(printf %q "${INTEROP_EAL_ARGS:-}")
lconf_q=$(printf %q "${INTEROP_LRDS_CONF:-}")
lqe_q=$(printf %q "${INTEROP_LRDS_QP_ERROR_EVERY:-}")
# INTEROP_FANIN_KFLAGS / _LFLAGS: extra words for krds_peer / lrds_peer in
# the fan-in cases (e.g. "-B 0": the stacks' default buffer sizes)
kf=${INTEROP_FANIN_KFLAGS:-} lf=${INTEROP_FANIN_LFLAGS:-}

if [ "$case" = exchange ]; then
# Round 1: both send at once; librte_rds, up last, usually connects first.
# Round 2: librte_rds waits for the kernel's first message (-P), so the
# kernel connects and librte_rds accepts: both CM roles are covered.
# Round 3: as round 1 with the kernel's credit flow control on (its
# net.rds.ib.flow_control): librte_rds's shared receive queue advertises no
# credits, so the kernel turns them off (it uses them only when the peer
# advertised some) and relies on RNR retries, as against UEK's SRQ.
# Round 4: the same with librte_rds on rings of its own (srq=0), which
# advertise credits: both ends use them, the kernel turning them on from
# our CM advertisement and giving its own in headers. The kernel waits for
# librte_rds's first message (krds_peer -P) and librte_rds proposes 4.1,
# as UEK does (proto=4.1): the kernel answers 4.1 and both run it.
rounds='1 2 3 4'
# IPv6: both CM roles (rounds 1 and 2); link-local: round 1.
[ "$fam" = 6 ] && rounds='1 2'
[ "$fam" = ll ] && rounds='1'
for round in $rounds; do
	a=$cmd_a
	lconf=${INTEROP_LRDS_CONF:-}
	if [ $round = 1 ]; then flags='' what='both sides send at once'
	elif [ $round = 2 ]; then flags='-P' what='the kernel connects, librte_rds accepts'
	else
		flags=''
		a="echo 1 > /proc/sys/net/rds/ib/flow_control || exit 1
$cmd_a"
		if [ $round = 3 ]; then
			what='net.rds.ib.flow_control=1 in A, the shared receive queue in B: no credits'
		else
			what='net.rds.ib.flow_control=1 in A, srq=0 proto=4.1 in B: both ends use credits, at protocol 4.1'
			lconf="srq=0 proto=4.1${lconf:+ $lconf}"
			a="KRDS_FLAGS=-P
$a"
		fi
	fi
	[ "$fam" = 4 ] || what="$what (IPv6: kernel $(v6 1), librte_rds $(v6 2))"
	echo "interop: round $round: $what"
	start=$(date +%s)
	run_pair "round $round" "$a" "$(cmd_b "$flags" "$lconf")" --mem 1536
	rc=$?
	wall=$(( $(date +%s) - start ))
	skip_or "$rc"
	if [ "$rc" -eq 0 ]; then check_digests || rc=1; fi
	if [ "$rc" -eq 0 ] && [ $round = 2 ] &&
	   ! grep -q '^\[A\] kernel: .*RDS/IB: Active conn connected' "$log"; then
		echo "interop: FAIL: round 2: the kernel log shows no active connection of the kernel's"
		rc=1
	fi
	if [ "$rc" -eq 0 ] && [ $round = 3 ]; then
		if ! grep -q '^\[A\] kernel: .*RDS/IB: .* conn connected' "$log"; then
			echo "interop: FAIL: round 3: the kernel log shows no connection"
			rc=1
		elif grep -q '^\[A\] kernel: .*RDS/IB: .* conn connected .*, flow control' "$log"; then
			echo "interop: FAIL: round 3: the kernel used credits against the shared receive queue"
			rc=1
		elif ! grep -q '^\[B\] lrds: ib: .*credits: conns 0 ' "$log"; then
			echo "interop: FAIL: round 3: librte_rds used credits with its shared receive queue"
			rc=1
		fi
	fi
	if [ "$rc" -eq 0 ] && [ $round = 4 ]; then
		if ! grep -q '^\[A\] kernel: .*RDS/IB: .* conn connected .*, flow control' "$log"; then
			echo "interop: FAIL: round 4: the kernel log shows no connection with flow control"
			rc=1
		elif ! grep -q '^\[B\] lrds: ib: .*credits: conns [1-9]' "$log"; then
			echo "interop: FAIL: round 4: librte_rds did not use credits"
			rc=1
		elif ! grep -q '^\[A\] kernel: .*RDS/IB: Passive conn connected .* version 4\.1' "$log"; then
			echo "interop: FAIL: round 4: the kernel log shows no passive connection at protocol 4.1"
			rc=1
		elif ! grep -q '^\[B\] lrds: ib: .* proto4 [1-9]' "$log"; then
			echo "interop: FAIL: round 4: librte_rds counted no connection at protocol 4.x"
			rc=1
		fi
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
fi

# The fan-in cases. Run three background jobs, wait for all, fail if any
# failed (a shell fragment for the VM; $1: the three commands' words).
three_jobs() {
	printf '%s\n' "pids=''"
	printf '%s &\npids="$pids $!"\n' "$@"
	# shellcheck disable=SC2016 # expanded in the VM
	printf '%s\n' 'rc=0; for p in $pids; do wait "$p" || rc=1; done'
}
vm_end='sleep 0.5; kill $dpid 2>/dev/null
'"$rxe_counters"'
if [ $rc != 0 ]; then echo "interop: kernel log (dmesg | tail -n 30):"; dmesg | tail -n 30; fi
exit $rc'
dmesg_watch='(dmesg -w | grep --line-buffered -iE "rds|rxe" | sed -u "s/^/kernel: /") &
dpid=$!'
# INTEROP_KERNEL_FLOWCTL=1: the kernel advertises credits too
# (/proc/sys/net/rds/ib/flow_control), so that both ends use them.
if [ "${INTEROP_KERNEL_FLOWCTL:-0}" = 1 ]; then
	dmesg_watch="echo 1 > /proc/sys/net/rds/ib/flow_control && echo 'interop: the kernel advertises credits (net.rds.ib.flow_control=1)'
$dmesg_watch"
fi
no_rds_b="if lsmod | grep -qE '^rds_rdma '; then echo 'interop: FAIL: rds_rdma is loaded in B'; exit 1; fi"
start=$(date +%s)
if [ "$case" = k2l ]; then
	echo "interop: k2l: three kernel sockets stream at once into one librte_rds socket ($fn messages each${v6pfx:+, IPv6 $(v6 1) -> $(v6 2)})"
	senders=() ks=()
	for j in 0 1 2; do
		if [ "$fam" = 4 ]; then
			senders+=("-F \$RDS_VM_PEER:$((4243 + j))")
			ks+=("$krds_q $kf -S $j -n $fn -t $ftmo \"\$RDS_VM_ADDR:$((4243 + j))\" \"\$RDS_VM_PEER:4242\"")
		else
			senders+=("-F $(v6p 1 $((4243 + j)))")
			ks+=("$krds_q $kf -S $j -n $fn -t $ftmo $(v6p 1 $((4243 + j))) $(v6p 2 4242)")
		fi
	done
	recv_at='"$RDS_VM_ADDR:4242"'
	[ "$fam" = 4 ] || recv_at=$(v6p 2 4242)
	a="$wait_peer
$dmesg_watch
$(three_jobs "${ks[@]}")
$vm_end"
	b="$no_rds_b
$wait_peer
dpid=''
INTEROP_EAL_ARGS=$eal_q INTEROP_LRDS_CONF=$lconf_q INTEROP_LRDS_QP_ERROR_EVERY=$lqe_q $lrds_q $lf ${senders[*]} -n $fn -t $ftmo $recv_at
rc=\$?
$vm_end"
	for attempt in 1 2; do
		run_pair k2l "$a" "$b" --mem 1536
		rc=$?
		skip_or "$rc"
		if [ "$rc" -eq 0 ]; then check_fanin_digests A krds B lrds || rc=1; fi
		if [ "$rc" -eq 0 ]; then check_rnr || rc=1; fi
		[ "$rc" -ne 0 ] && [ $attempt = 1 ] && wire_stalled || break
		echo "interop: k2l: the virtual wire stalled (virtio-net transmit watchdog above; QEMU, not RDS): once more"
	done
else
	echo "interop: l2k: three librte_rds instances stream at once into one kernel socket ($fn messages each)"
	senders=() ls=()
	for j in 0 1 2; do
		senders+=("-F 10.99.0.$((2 + j)):4242")
		ls+=("INTEROP_EAL_ARGS=$eal_q INTEROP_LRDS_CONF=$lconf_q INTEROP_LRDS_QP_ERROR_EVERY=$lqe_q $lrds_q $lf -S $j -M 256 -n $fn -t $ftmo 10.99.0.$((2 + j)):4242 \"\$RDS_VM_PEER:4242\"")
	done
	a="$wait_peer
$dmesg_watch
$krds_q $kf ${senders[*]} -n $fn -t $ftmo \"\$RDS_VM_ADDR:4242\"
rc=\$?
$vm_end"
	# shellcheck disable=SC2016 # expanded in the VM
	b="$no_rds_b
ip addr add 10.99.0.3/24 dev eth0 && ip addr add 10.99.0.4/24 dev eth0 || exit 1
for ip in 10.99.0.3 10.99.0.4; do
  for i in \$(seq 1 50); do $(printf %q "$here/gid-index.sh") rxe0 \$ip > /dev/null 2>&1 && break; sleep 0.2; done
done
$wait_peer
dpid=''
$(three_jobs "${ls[@]}")
$vm_end"
	for attempt in 1 2; do
		run_pair l2k "$a" "$b" --mem 2048
		rc=$?
		skip_or "$rc"
		if [ "$rc" -eq 0 ]; then check_fanin_digests B lrds A krds || rc=1; fi
		[ "$rc" -ne 0 ] && [ $attempt = 1 ] && wire_stalled || break
		echo "interop: l2k: the virtual wire stalled (virtio-net transmit watchdog above; QEMU, not RDS): once more"
	done
fi
wall=$(( $(date +%s) - start ))
if [ "$rc" -eq 0 ]; then
	echo "interop: $case PASS (3 streams of $fn messages, ${wall}s wall)"
else
	echo "interop: $case FAIL (status $rc, ${wall}s wall)"
fi
exit $(( rc != 0 ))
