#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-pair.sh - run two rxe test VMs, A and B, joined by one virtual wire.
#
# Each VM (vm-run.sh) runs its own command in the caller's current directory,
# with rxe0 on eth0. eth0 of A and eth0 of B are the two ends of a private
# point-to-point Ethernet wire: QEMU "-netdev socket", A listening and B
# connecting on the host's loopback 127.0.0.1:PORT, which only carries the
# wire's frames. The addresses (default A 10.99.0.1/24, B 10.99.0.2/24) exist
# only inside the two VMs, on that wire: no host interface, route or address
# is created or used, and the VMs have no other network.
#
# Usage: vm-pair.sh [options] -- 'COMMAND A' 'COMMAND B'
#   -t, --timeout SEC  hard limit per VM (default $RDS_VM_TIMEOUT or 600)
#   --ip-a ADDR/LEN    address of A (default 10.99.0.1/24)
#   --ip-b ADDR/LEN    address of B (default 10.99.0.2/24)
#   --port PORT        host loopback TCP port of the wire (default: a free one)
#   --mem MIB          memory per VM (default 1024)
#   --smp N            vCPUs per VM (default 1: two VMs share the host's cores)
#   --grace SEC        when one VM fails, stop the other after SEC seconds
#                      (default 30)
#   --kargs 'ARGS'     extra kernel arguments for both
#   --kargs-a 'ARGS'   extra kernel arguments for A only (repeatable), e.g.
#   --kargs-b 'ARGS'   'rdsvm_nomod=rds_rdma,rds_tcp,rds' for the VM that
#                      runs librte_rds while the other runs the kernel's RDS
#   --keep             keep both share dirs
# In each VM: RDS_VM_NAME (A or B), RDS_VM_ADDR (own address), RDS_VM_PEER
# (the other's address), plus what vm-run.sh sets. Console lines are prefixed
# with [A] / [B].
# Exit status: 0 if both commands succeed, else the status of the VM that
# failed first; 77 if the VMs cannot be had.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TIMEOUT=${RDS_VM_TIMEOUT:-600}
IPA=10.99.0.1/24 IPB=10.99.0.2/24 PORT='' MEM=1024 SMP=1 GRACE=30
COMMON=() EXTRA_A=() EXTRA_B=()

usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
need() { [ $# -ge 2 ] || { echo "vm-pair: option $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	-t|--timeout) need "$@"; TIMEOUT=$2; shift ;;
	--ip-a) need "$@"; IPA=$2; shift ;;
	--ip-b) need "$@"; IPB=$2; shift ;;
	--port) need "$@"; PORT=$2; shift ;;
	--mem) need "$@"; MEM=$2; shift ;;
	--smp) need "$@"; SMP=$2; shift ;;
	--grace) need "$@"; GRACE=$2; shift ;;
	--kargs) need "$@"; COMMON+=(--kargs "$2"); shift ;;
	--kargs-a) need "$@"; EXTRA_A+=(--kargs "$2"); shift ;;
	--kargs-b) need "$@"; EXTRA_B+=(--kargs "$2"); shift ;;
	--keep) COMMON+=(--keep) ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) echo "vm-pair: unknown option '$1'" >&2; usage ;;
	esac
	shift
done
[ $# -eq 2 ] || usage
CMDA=$1 CMDB=$2
case $IPA in */*) ;; *) IPA=$IPA/24 ;; esac
case $IPB in */*) ;; *) IPB=$IPB/24 ;; esac

# Prepare the cache once, before starting two VMs at the same time.
if ! "$HERE/vm-setup.sh" --quiet; then
	echo "SKIP: rxe VM unavailable: vm-setup.sh failed"
	exit 77
fi

port_busy() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }
if [ -z "$PORT" ]; then
	for _ in $(seq 1 50); do
		PORT=$((20000 + RANDOM % 40000))
		port_busy "$PORT" || break
	done
fi
port_busy "$PORT" && { echo "vm-pair: port $PORT is in use" >&2; exit 1; }

PA='' PB=''
# shellcheck disable=SC2317 # called from the traps
stop() {
	for p in $PA $PB; do kill "$p" 2>/dev/null; done
	for p in $PA $PB; do wait "$p" 2>/dev/null; done
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM HUP

run_vm() {     # NAME IP PEER-IP WIRE MAC COMMAND
	local extra=()
	if [ "$1" = A ]; then extra=("${EXTRA_A[@]}"); else extra=("${EXTRA_B[@]}"); fi
	exec "$HERE/vm-run.sh" --label "$1" --ip "$2" --rxe eth0 --wire "$4" --mac "$5" \
		--mem "$MEM" --smp "$SMP" --timeout "$TIMEOUT" "${COMMON[@]}" "${extra[@]}" \
		--env "RDS_VM_NAME=$1" --env "RDS_VM_PEER=${3%/*}" -- "$6"
}

START=$(date +%s)
run_vm A "$IPA" "$IPB" "listen:$PORT" 52:54:00:99:00:01 "$CMDA" &
PA=$!
# B connects only once A's QEMU listens (QEMU fails on a refused connect)
for _ in $(seq 1 100); do
	port_busy "$PORT" && break
	kill -0 "$PA" 2>/dev/null || break
	sleep 0.1
done
if ! port_busy "$PORT"; then
	wait "$PA"; RA=$?
	echo "vm-pair: VM A did not start listening on 127.0.0.1:$PORT (status $RA)" >&2
	[ "$RA" = 0 ] && RA=1
	exit "$RA"
fi
run_vm B "$IPB" "$IPA" "connect:$PORT" 52:54:00:99:00:02 "$CMDB" &
PB=$!

# Wait for the first to end; if it failed, give the other GRACE seconds.
declare -A RC
wait -n -p first "$PA" "$PB"; r=$?
if [ "$first" = "$PA" ]; then RC[A]=$r; other=$PB; on=B; else RC[B]=$r; other=$PA; on=A; fi
if [ "$r" != 0 ]; then
	for _ in $(seq 1 "$GRACE"); do kill -0 "$other" 2>/dev/null || break; sleep 1; done
	if kill -0 "$other" 2>/dev/null; then
		echo "vm-pair: stopping VM $on (the other VM failed)" >&2
		kill "$other"
	fi
fi
wait "$other"; RC[$on]=$?
PA='' PB=''

echo "vm-pair: A status ${RC[A]}, B status ${RC[B]} ($(( $(date +%s) - START ))s wall)"
# the status of the VM that failed first
[ "$r" = 0 ] || exit "$r"
exit "${RC[$on]}"
