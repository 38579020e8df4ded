#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-interop-preload.sh BUILD_DIR - test interop_preload (suite interop):
# the project's own AF_RDS programs, built against the kernel's headers
# only and never linked with librte_rds, run unmodified under
# librte_rds_preload.so on an rds-engined serving ib over rxe in VM A,
# against the kernel's own RDS (rds_rdma) in VM B; two VMs on one virtual
# wire (vm-pair.sh), as run-interop.sh. Steps, in one boot of the pair:
#
#   VM A 10.99.0.1, no RDS module loaded    VM B 10.99.0.2, the kernel's RDS
#   1 engine-auto: rds-engined with no --addr: it must find 10.99.0.1 on
#     rxe0 by itself and serve it on ib
#   2 krds_api: every descriptor call of     krds_api-kernel: the same program
#     an AF_RDS program (preload), on the     on the kernel (KRDS_API_KERNEL=1:
#     engine's one address (both sockets      the child shares the parent's
#     on 10.99.0.1: the engine delivers       socket), for comparison
#     locally, as the kernel's loop does)
#   3 exchange-1: krds_peer -T ib (preload)  against krds_peer -T ib: the
#     interop exchange, INTEROP_COUNT messages each way, SHA-256 of each
#     direction compared here across the two VMs; A binds first and waits
#     for B's first message (-P), so the kernel opens the connection
#   4 krds_stress -T ib, INTEROP_PRELOAD_TASKS (4) tasks a side, one forked
#     child per task, TCP control connection; A active (preload), B passive
#     (kernel); each side checks every task's digests against the other's
#   5 engine-addr: rds-engined stopped (SIGTERM: clean exit), started again
#     with --addr 10.99.0.1=ib
#   6 exchange-2: as 3 on the new engine, B binds first (-P), A sends first
#     (the kernel in B has usually reconnected to the restarted engine by
#     then: in this test the kernel opens the connections and librte_rds
#     accepts them; librte_rds's active side is test interop's round 1.
#     The kernel log lines of B saying so are printed at the end)
#   wire: 30 ICMP pings A -> B, the wire's floor for step 7 and 9
#   7 pingpong-preload: krds_pingpong client (preload) against the kernel's
#     krds_pingpong server, INTEROP_PRELOAD_RTTS (1000) round trips of 64 B
#   8 kernel-in-A: engine stopped, rds + rds_rdma loaded in A
#   9 pingpong-kernel: the same client on A's kernel: kernel to kernel, in
#     the same boot, over the same wire
# The two VMs meet at fixed points over TCP (ports 18900+, busybox nc in
# the waiting VM, bash /dev/tcp in the other), so that a side sends only
# once the other's socket is bound. Every step prints
# "preload: step NAME: PASS (N s)" or "preload: FAIL: step NAME: why"; the
# VM stops at its first failure (the other is stopped after --grace s) and
# this script names the failed step(s) and the VM at the end. It prints the
# RTT p50 of step 7 beside step 9's and the ping p50 of the same boot.
# The console log is kept in BUILD_DIR/meson-logs/interop_preload.log;
# INTEROP_PRELOAD_REPLAY=LOG judges such a log again without VMs.
#
# INTEROP_PRELOAD_TRANS=tcp (test interop_preload_tcp): the same over tcp:
# rds-engined serves --addr 10.99.0.1=tcp (step 1 too), every program pins
# RDS_TRANS_TCP, the kernel's rds_tcp in B (and in A for step 8).
# INTEROP_PRELOAD_FAM=6 (tests interop_preload6, interop_preload_tcp6,
# suite interop6): IPv6, fewer steps. fd99::1/64 (A) and fd99::2/64 (B)
# added to eth0 (rxe0 gets their RoCE v2 GIDs); rds-engined serves
# --addr [fd99::1]=ib (or =tcp); steps exchange6-1 (A waits for B's
# first message) and exchange6-2 (A sends first), krds_peer over IPv6
# under the preload against the kernel's, SHA-256 compared as above: the
# preload passes sockaddr_in6 through bind, sendmsg and recvmsg's names.
# Knobs: INTEROP_COUNT (exchange messages each way, 500), INTEROP_TIMEOUT
# (seconds per exchange, 240), INTEROP_PRELOAD_TASKS (4),
# INTEROP_PRELOAD_STRESS_MSGS (messages per task each way, 500),
# INTEROP_PRELOAD_RTTS (1000), INTEROP_PRELOAD_STRESS_WAIT (krds_stress -w:
# seconds before a stalled task gives up, 240), RDS_VM_TIMEOUT (hard limit
# per VM, 900).
# Exit: 0 pass, 1 fail, 77 skip (VMs cannot run here; under CI=true a
# skip is a failure, 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
self=$here/$(basename "$0")

# ==================================================================== VM side
# run-interop-preload.sh --vm A|B BUILD_DIR (in the VM; knobs in the
# environment, set by the host side)
if [ "${1:-}" = --vm ]; then
role=$2 build=$3
n=${INTEROP_COUNT:-500} xtmo=${INTEROP_TIMEOUT:-240}
tasks=${INTEROP_PRELOAD_TASKS:-4} smsgs=${INTEROP_PRELOAD_STRESS_MSGS:-500}
rtts=${INTEROP_PRELOAD_RTTS:-1000} swait=${INTEROP_PRELOAD_STRESS_WAIT:-240}
ENGINED=$build/app/rds-engined/rds-engined
PRELOAD=$build/lib/preload/librte_rds_preload.so
KPEER=$build/test/rxe/krds_peer
KPP=$build/test/rxe/krds_pingpong
KSTRESS=$build/test/multiproc/krds_stress
KAPI=$build/test/multiproc/krds_api
T=$(mktemp -d /tmp/preload.XXXXXX)
SOCK=$T/engine.sock
ADDR=$RDS_VM_ADDR PEER=$RDS_VM_PEER
step=boot step_t0=$(date +%s) epid=''
export RTE_RDS_ENGINE=$SOCK
# INTEROP_PRELOAD_TRANS=tcp: the engine serves tcp, the kernel's rds_tcp
# in B (and in A's last steps), every program pins RDS_TRANS_TCP.
TR=${INTEROP_PRELOAD_TRANS:-ib}
KMOD=rds_rdma KPPT=''
[ "$TR" = tcp ] && KMOD=rds_tcp KPPT=--tcp

say() { echo "preload: $*"; }
fail() {
	say "FAIL: step $step: $*"
	if [ -n "$epid" ] && [ -f "$T/engine.log" ]; then
		say "the engine's log (tail):"
		tail -n 30 "$T/engine.log" | sed 's/^/engined: /'
	fi
	echo "preload: kernel log (dmesg | grep -i rds | tail):"
	dmesg | grep -iE "rds|rxe" | grep -v rdsvm | tail -n 20
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	exit 1
}
begin() { step=$1; step_t0=$(date +%s); say "step $step: $2"; }
pass() { say "step $step: PASS ($(( $(date +%s) - step_t0 )) s)"; }
# Run a command with its output prefixed by the step's name; its status.
run() {
	( set -o pipefail; "$@" 2>&1 | sed -u "s/^/$step: /" )
}
# Start a command in the background, its output prefixed and kept in
# $T/$step.out; wait (bounded) until that output matches $1 (e.g. the
# program's "bound" line). Sets bg.
run_bg_until() {
	local pat=$1 i
	shift
	( set -o pipefail; "$@" 2>&1 | tee "$T/$step.out" | sed -u "s/^/$step: /" ) &
	bg=$!
	for i in $(seq 1 600); do
		grep -q "$pat" "$T/$step.out" 2>/dev/null && return 0
		kill -0 "$bg" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# Meeting points: await K waits (bounded) for the other VM's tell K.
await() {	# K [SECONDS]
	local msg
	msg=$(timeout "${2:-300}" busybox nc -l -p $((18900 + $1)) < /dev/null)
	[ "$msg" = ok ] || fail "no word from the other VM at meeting point $1 (got '${msg}')"
}
tell() {	# K
	local i
	for i in $(seq 1 600); do
		timeout 3 bash -c "echo ok > /dev/tcp/$PEER/$((18900 + $1))" 2>/dev/null && return 0
		sleep 0.2
	done
	fail "the other VM never waited at meeting point $1"
}

engine_start() {	# ARGS... (after the EAL's --)
	local i
	rm -f "$SOCK"
	"$ENGINED" -l 0 --no-pci --no-huge -m 512 --file-prefix "rdsp$$" \
		--log-level=lib.eal:error -- --listen "$SOCK" "$@" \
		> "$T/engine.log" 2>&1 &
	epid=$!
	for i in $(seq 1 600); do
		# its "listening on" line is flushed once the socket is
		# served (the addresses it found are printed before it)
		[ -S "$SOCK" ] && grep -q 'listening on' "$T/engine.log" && break
		kill -0 "$epid" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/engined: /' "$T/engine.log"
	[ -S "$SOCK" ] && grep -q 'listening on' "$T/engine.log" ||
		fail "rds-engined $* did not come up"
}
engine_stop() {
	local i rc
	kill -TERM "$epid"
	for i in $(seq 1 300); do
		kill -0 "$epid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$epid" 2>/dev/null; then
		fail "rds-engined did not stop within 30 s of SIGTERM"
	fi
	wait "$epid"
	rc=$?
	tail -n 3 "$T/engine.log" | sed 's/^/engined: /'
	epid=''
	[ "$rc" = 0 ] || fail "rds-engined exit status $rc"
	[ -S "$SOCK" ] && fail "rds-engined left its socket behind"
	return 0
}
pre() { env LD_PRELOAD="$PRELOAD" "$@"; }

ok=0
for i in $(seq 1 60); do
	if ping -c 1 -W 1 "$PEER" > /dev/null 2>&1; then ok=1; break; fi
	sleep 0.5
done
[ $ok = 1 ] || fail "$PEER does not answer ping"
say "$PEER answers ping (after $i tries)"

# IPv6 (INTEROP_PRELOAD_FAM=6): the exchange both ways, and nothing else.
if [ "${INTEROP_PRELOAD_FAM:-4}" = 6 ]; then
	me=2 other=1
	[ "$role" = A ] && me=1 other=2
	ADDR=fd99::$me PEER6=fd99::$other
	ip -6 addr add "$ADDR/64" dev eth0 nodad || fail "cannot add $ADDR to eth0"
	ok=0
	for i in $(seq 1 60); do
		if ping -6 -c 1 -W 1 "$PEER6" > /dev/null 2>&1; then ok=1; break; fi
		sleep 0.5
	done
	[ $ok = 1 ] || fail "$PEER6 does not answer ping"
	if [ "$role" = A ]; then
		lsmod | grep -qE '^(rds|rds_rdma|rds_tcp) ' && fail "the kernel's RDS is loaded in A"
		begin engine-v6 "rds-engined with --addr [$ADDR]=$TR"
		engine_start --addr "[$ADDR]=$TR"
		pass
		begin exchange6-1 "krds_peer -T $TR (preload) over IPv6 with the kernel's; A waits for B's first message"
		run_bg_until 'socket bound to' pre "$KPEER" -P -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER6" ||
			fail "krds_peer did not bind"
		tell 1
		wait "$bg" || fail "krds_peer: status $?"
		pass
		begin exchange6-2 "krds_peer -T $TR (preload) over IPv6 with the kernel's; A sends first"
		await 2
		run pre "$KPEER" -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER6" || fail "krds_peer: status $?"
		pass
		begin engine-stop "rds-engined stopped (SIGTERM)"
		engine_stop
		pass
	else
		lsmod | grep -qE "^$KMOD " || fail "$KMOD is not loaded in B"
		(dmesg -w | grep --line-buffered -iE 'rds|rxe' | sed -u 's/^/kernel: /') &
		begin exchange6-1 "krds_peer -T $TR (kernel) over IPv6; sends at once (A is bound)"
		await 1
		run "$KPEER" -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER6" || fail "krds_peer: status $?"
		pass
		begin exchange6-2 "krds_peer -T $TR (kernel) over IPv6; waits for A's first message"
		run_bg_until 'socket bound to' "$KPEER" -P -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER6" ||
			fail "krds_peer did not bind"
		tell 2
		wait "$bg" || fail "krds_peer: status $?"
		pass
	fi
	say "all steps of VM $role passed"
	exit 0
fi

if [ "$role" = A ]; then
	lsmod | grep -qE '^(rds|rds_rdma) ' && fail "the kernel's RDS is loaded in A"
	for f in "$ENGINED" "$PRELOAD" "$KPEER" "$KPP" "$KSTRESS" "$KAPI"; do
		[ -e "$f" ] || fail "$f is missing"
	done

	if [ "$TR" = tcp ]; then
		begin engine-auto "rds-engined with --addr $ADDR=tcp"
		engine_start --addr "$ADDR=tcp"
		grep -q "listening on $ADDR:16385" "$T/engine.log" ||
			fail "rds-engined does not listen on $ADDR:16385"
	else
		begin engine-auto "rds-engined with no --addr (the RDMA devices' addresses)"
		engine_start
		grep -q "^rds-engined: $ADDR=ib (device rxe0" "$T/engine.log" ||
			fail "rds-engined with no --addr does not serve $ADDR on ib (rxe0)"
	fi
	pass

	begin krds_api "krds_api under the preload, both sockets on $ADDR"
	run pre timeout 120 "$KAPI" "$ADDR" "$ADDR" || fail "krds_api: status $?"
	pass

	begin exchange-1 "krds_peer -T $TR (preload) with the kernel's; A waits for B's first message"
	run_bg_until 'socket bound to' pre "$KPEER" -P -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER" ||
		fail "krds_peer did not bind"
	tell 1
	wait "$bg" || fail "krds_peer: status $?"
	pass

	begin krds_stress "krds_stress -T $TR, $tasks tasks, active side (preload)"
	run pre timeout $((swait + 60)) "$KSTRESS" -c "$PEER" -s "$ADDR" -T $TR -t "$tasks" \
		-n "$smsgs" -w "$swait" || fail "krds_stress: status $?"
	pass

	begin engine-addr "rds-engined stopped, started again with --addr $ADDR=$TR"
	engine_stop
	engine_start --addr "$ADDR=$TR"
	pass

	begin exchange-2 "krds_peer -T $TR (preload) with the kernel's; A sends first"
	await 2
	run pre "$KPEER" -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER" || fail "krds_peer: status $?"
	pass

	begin wire "the wire's floor: 30 pings of B, 0.2 s apart"
	ping -c 30 -i 0.2 "$PEER" > "$T/ping.out" 2>&1 || fail "ping: status $?"
	w=$(sed -n 's/.*time=\([0-9.]*\) *ms.*/\1/p' "$T/ping.out" | sort -n | sed -n 15p)
	[ -n "$w" ] || fail "no ping times: $(tail -n 2 "$T/ping.out")"
	say "wire: ping p50 $w ms (30 pings)"
	pass

	begin pingpong-preload "krds_pingpong client (preload, $TR) against the kernel's server"
	run pre timeout 300 "$KPP" client "$ADDR" "$PEER" --iters "$rtts" --wait 120 $KPPT ||
		fail "krds_pingpong: status $?"
	pass

	begin kernel-in-A "rds-engined stopped; the kernel's $KMOD loaded in A"
	engine_stop
	# The modules live in the initramfs, PID 1's root (the command runs
	# chrooted into the host's tree).
	chroot /proc/1/root /sbin/modprobe "$KMOD" || fail "modprobe $KMOD"
	lsmod | grep -E "^(rds|$KMOD) " | sed "s/^/$step: module /"
	pass

	begin pingpong-kernel "krds_pingpong client (kernel, $TR) against the kernel's server"
	run timeout 300 "$KPP" client "$ADDR" "$PEER" --iters "$rtts" --wait 120 $KPPT ||
		fail "krds_pingpong: status $?"
	pass
else
	lsmod | grep -qE "^$KMOD " || fail "$KMOD is not loaded in B"
	(dmesg -w | grep --line-buffered -iE 'rds|rxe' | sed -u 's/^/kernel: /') &

	begin krds_api-kernel "krds_api on the kernel (KRDS_API_KERNEL=1), both sockets on $ADDR"
	KRDS_API_KERNEL=1 run timeout 120 "$KAPI" "$ADDR" "$ADDR" || fail "krds_api: status $?"
	pass

	begin exchange-1 "krds_peer -T $TR (kernel); sends at once (A is bound)"
	await 1
	run "$KPEER" -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER" || fail "krds_peer: status $?"
	pass

	begin krds_stress "krds_stress -T $TR, passive side (kernel)"
	run timeout $((swait + 60)) "$KSTRESS" -s "$ADDR" -T $TR -w "$swait" || fail "krds_stress: status $?"
	pass

	begin exchange-2 "krds_peer -T $TR (kernel); waits for A's first message"
	run_bg_until 'socket bound to' "$KPEER" -P -T $TR -n "$n" -t "$xtmo" "$ADDR" "$PEER" ||
		fail "krds_peer did not bind"
	tell 2
	wait "$bg" || fail "krds_peer: status $?"
	pass

	begin pingpong-preload "krds_pingpong server (kernel) for A's preload client"
	run timeout 300 "$KPP" server "$ADDR" --wait 200 $KPPT || fail "krds_pingpong: status $?"
	pass

	begin pingpong-kernel "krds_pingpong server (kernel) for A's kernel client"
	run timeout 300 "$KPP" server "$ADDR" --wait 200 $KPPT || fail "krds_pingpong: status $?"
	pass
fi
say "all steps of VM $role passed"
exit 0
fi

# ================================================================== host side
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(readlink -f "$1")
for f in app/rds-engined/rds-engined lib/preload/librte_rds_preload.so \
	 test/rxe/krds_peer test/rxe/krds_pingpong test/multiproc/krds_stress \
	 test/multiproc/krds_api; do
	if [ ! -e "$build/$f" ]; then
		echo "interop_preload: FAIL: $build/$f is missing (build first)"
		exit 1
	fi
done

# INTEROP_PRELOAD_REPLAY=LOG: no VMs; judge the console log of an earlier
# run (kept in BUILD_DIR/meson-logs/interop_preload.log), e.g. to see that
# a doctored digest fails the test.
fam=${INTEROP_PRELOAD_FAM:-4}
log=$build/meson-logs/interop_preload.log
[ "$fam" = 6 ] && log=$build/meson-logs/interop_preload6.log
[ -d "$build/meson-logs" ] || log=$(mktemp "${TMPDIR:-/tmp}/interop-preload.XXXXXX.log")
# The virtual wire itself can stop: QEMU (-netdev socket) stops taking a
# guest's transmit queue, the guest's virtio-net watchdog reports it, and
# from then on no frame crosses (the kernel's QPs fail with "transport
# retry counter exceeded"). That is the machine, not RDS: a failed run
# whose log shows it is said so and run once more (as run-interop.sh).
wire_stalled() {
	grep -q 'NETDEV WATCHDOG: .*transmit queue .* timed out' "$log"
}

run_vms() {
	start=$(date +%s)
	if [ -n "${INTEROP_PRELOAD_REPLAY:-}" ]; then
		log=$INTEROP_PRELOAD_REPLAY
		[ -r "$log" ] || { echo "interop_preload: FAIL: cannot read $log"; exit 1; }
		echo "interop_preload: judging $log (INTEROP_PRELOAD_REPLAY, no VMs)"
		rc=0
	else
		# One VM job at a time on this machine: wait (bounded) while another runs.
		waited=0
		while pgrep -f '^[^ ]*qemu-system' > /dev/null; do
			[ "$waited" = 0 ] && echo "interop_preload: another QEMU is running; waiting for it to end"
			if [ "$waited" -ge "${INTEROP_QEMU_WAIT:-900}" ]; then
				echo "interop_preload: still another QEMU after ${waited}s; going on anyway"
				break
			fi
			sleep 5; waited=$((waited + 5))
		done

		knobs=()
		for v in INTEROP_COUNT INTEROP_TIMEOUT INTEROP_PRELOAD_TASKS \
			 INTEROP_PRELOAD_STRESS_MSGS INTEROP_PRELOAD_RTTS INTEROP_PRELOAD_STRESS_WAIT \
			 INTEROP_PRELOAD_TRANS INTEROP_PRELOAD_FAM; do
			[ -n "${!v:-}" ] && knobs+=("$v=$(printf %q "${!v}")")
		done
		vm_cmd() { echo "${knobs[*]} bash $(printf %q "$self") --vm $1 $(printf %q "$build")"; }

		"$here/vm-pair.sh" -t "${RDS_VM_TIMEOUT:-900}" --grace 20 --mem 1536 \
			--kargs-a "rdsvm_nomod=rds_rdma,rds_tcp,rds" -- "$(vm_cmd A)" "$(vm_cmd B)" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		echo "interop_preload: the VMs' console log is kept in $log"
	fi
	wall=$(( $(date +%s) - start ))
	if [ "$rc" -eq 77 ]; then
		if [ "${CI:-}" = "true" ]; then
			echo "interop_preload: FAIL: the rxe VMs could not run under CI=true (a skip is a failure here)"
			exit 1
		fi
		exit 77
	fi
}

judge() {
	echo "interop_preload: summary"
	# Each exchange: what A sent is what B received, and back.
	digest() { sed -n "s/^\[$1\] $2: krds: $3 sha256 \([0-9a-f]\{64\}\).*/\1/p" "$log" | tail -n 1; }
	xs="exchange-1 exchange-2"
	[ "$fam" = 6 ] && xs="exchange6-1 exchange6-2"
	for x in $xs; do
		grep -q "^\[A\] preload: step $x: PASS" "$log" &&
		grep -q "^\[B\] preload: step $x: PASS" "$log" || {
			echo "interop_preload: FAIL: step $x did not pass in both VMs: no digests to compare"
			rc=1
			continue
		}
		a_tx=$(digest A $x tx) a_rx=$(digest A $x rx) b_tx=$(digest B $x tx) b_rx=$(digest B $x rx)
		if [ -z "$a_tx" ] || [ "$a_tx" != "$b_rx" ] || [ -z "$b_tx" ] || [ "$b_tx" != "$a_rx" ]; then
			echo "interop_preload: FAIL: step $x: digests differ: A tx $a_tx / B rx $b_rx; B tx $b_tx / A rx $a_rx"
			rc=1
		else
			echo "interop_preload: $x: preload -> kernel sha256 $a_tx, kernel -> preload sha256 $b_tx (both ends agree)"
		fi
	done
	# krds_stress: each side compared every task's digests with the other's
	# over the control connection; both must say so. (Not in the IPv6
	# run: krds_stress and krds_pingpong take IPv4 addresses only.)
	for v in A B; do
		[ "$fam" = 6 ] && break
		l=$(grep "^\[$v\] krds_stress: krds_stress: .* every digest matches" "$log" | tail -n 1)
		if [ -z "$l" ]; then
			echo "interop_preload: FAIL: krds_stress in VM $v did not report every digest matching"
			rc=1
		else
			echo "interop_preload: VM $v (${l#\[$v\] krds_stress: })"
		fi
	done
	# Which side opened each connection, as the kernel in B saw it.
	grep -E '^\[B\] kernel: .*RDS/IB: .*conn connected' "$log" | sed 's/^/interop_preload: /'
	p50() { sed -n "s/^\[A\] $1: rtt p50: *\([0-9]*\) ns.*/\1/p" "$log" | tail -n 1; }
	pp=$(p50 pingpong-preload) pk=$(p50 pingpong-kernel)
	if [ "$fam" = 6 ]; then
		:
	elif [ -n "$pp" ] && [ -n "$pk" ]; then
		awk -v p="$pp" -v k="$pk" -v t="${INTEROP_PRELOAD_TRANS:-ib}" 'BEGIN { printf "interop_preload: RTT p50 (64 B, blocking): preload on librte_rds %s %.1f us, kernel to kernel %.1f us (same boot; ratio %.2f)\n", t, p / 1000, k / 1000, p / k }'
	else
		echo "interop_preload: FAIL: no RTT p50 from krds_pingpong (preload '$pp', kernel '$pk')"
		rc=1
	fi
	w=$(sed -n 's/^\[A\] preload: wire: ping p50 \([0-9.]*\) ms.*/\1/p' "$log" | tail -n 1)
	[ -n "$w" ] && echo "interop_preload: the wire's floor in the same boot: ICMP ping p50 $w ms (30 pings A -> B)"
	# The failed steps, by VM.
	if grep -q '^\[[AB]\] preload: FAIL: ' "$log"; then
		grep '^\[[AB]\] preload: FAIL: ' "$log" | sed 's/^\[\([AB]\)\] preload: FAIL: /interop_preload: FAIL in VM \1: /'
		rc=1
	fi
	for v in A B; do
		grep -q "^\[$v\] preload: all steps of VM $v passed" "$log" || {
			last=$(sed -n "s/^\[$v\] preload: step \([^:]*\): .*/\1/p" "$log" | tail -n 1)
			echo "interop_preload: FAIL: VM $v did not finish (last step begun: ${last:-none})"
			rc=1
		}
	done
}

for attempt in 1 2; do
	run_vms
	judge
	[ "$rc" -ne 0 ] && [ "$attempt" = 1 ] && [ -z "${INTEROP_PRELOAD_REPLAY:-}" ] &&
		wire_stalled || break
	echo "interop_preload: the virtual wire stalled (virtio-net transmit watchdog above; QEMU, not RDS): once more"
done
[ "$rc" -eq 0 ] && echo "interop_preload: PASS (${wall}s wall)" ||
	echo "interop_preload: FAIL (status $rc, ${wall}s wall)"
exit $(( rc != 0 ))
