#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-run.sh - run one shell command inside the librte_rds rxe test VM.
#
# Boots Debian's stock kernel under QEMU (TCG) with the initramfs from
# vm-setup.sh (run first, quickly skipped when the cache is complete). The VM
# sees the host's root filesystem read-only through 9p with a tmpfs overlay
# (same paths, writable, writes stay in the VM), has eth0 and a soft-RoCE
# device rxe0, and runs COMMAND with bash in the caller's current directory.
# The console (kernel messages and the command's output) is streamed to stdout.
#
# Usage: vm-run.sh [options] -- COMMAND...
#   -t, --timeout SEC    hard limit for the VM: QEMU is killed and the run
#                        fails (status 124) after SEC seconds
#                        (default $RDS_VM_TIMEOUT or 600)
#   --rxe DEV            netdev under rxe0: eth0 (default), lo or none
#   --ip ADDR/LEN        eth0 address inside the VM (default 10.0.2.15/24)
#   --mem MIB            guest memory (default 1536)
#   --smp N              vCPUs (default 2; the host may have only 2 cores)
#   --hugepages N        reserve N 2 MiB hugepages, mounted on /dev/hugepages
#   --wire listen:PORT | connect:PORT
#                        put eth0 on a point-to-point virtual wire to another VM
#                        (qemu -netdev socket on the host's 127.0.0.1:PORT)
#                        instead of QEMU user networking (see vm-pair.sh)
#   --mac MAC            eth0 MAC address
#   --env NAME=VALUE     export NAME in the command's environment (repeatable)
#   --kargs 'ARGS'       extra kernel command line arguments
#   --label TEXT         prefix every console line with "[TEXT] "
#   --keep               keep the temporary share dir (console.log, rc, cmd.sh)
#   --shell              interactive shell in the VM on this terminal (no
#                        COMMAND; Ctrl-A x quits QEMU)
#
# In the VM: RDS_VM=1, RDS_VM_RXE, RDS_VM_ADDR (IPv4 address of rxe0) and
# RDS_VM_GID_INDEX (its RoCE v2 GID index) are set; see init.
#
# Exit status: the command's; 77 (with "SKIP: reason") when QEMU or the
# kernel cannot be had; 124 on timeout; 1 when the VM ends without a result.

set -uo pipefail
export PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${RDS_VM_CACHE:-/var/cache/librte_rds-vm}
TIMEOUT=${RDS_VM_TIMEOUT:-600}
RXE=eth0 IP=10.0.2.15/24 MEM=1536 SMP=2 HUGEPAGES=0 WIRE='' MAC=52:54:00:12:34:56
KARGS='' LABEL='' KEEP=0 SHELL_MODE=0
ENVS=()

usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
need() { [ $# -ge 2 ] || { echo "vm-run: option $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	-t|--timeout) need "$@"; TIMEOUT=$2; shift ;;
	--rxe) need "$@"; RXE=$2; shift ;;
	--ip) need "$@"; IP=$2; shift ;;
	--mem) need "$@"; MEM=$2; shift ;;
	--smp) need "$@"; SMP=$2; shift ;;
	--hugepages) need "$@"; HUGEPAGES=$2; shift ;;
	--wire) need "$@"; WIRE=$2; shift ;;
	--mac) need "$@"; MAC=$2; shift ;;
	--env) need "$@"; ENVS+=("$2"); shift ;;
	--kargs) need "$@"; KARGS="$KARGS $2"; shift ;;
	--label) need "$@"; LABEL=$2; shift ;;
	--keep) KEEP=1 ;;
	--shell) SHELL_MODE=1 ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) echo "vm-run: unknown option '$1'" >&2; usage ;;
	esac
	shift
done
[ $# -gt 0 ] || [ "$SHELL_MODE" = 1 ] || usage
CMD="$*"
case $RXE in eth0|lo|none) ;; *) echo "vm-run: --rxe must be eth0, lo or none" >&2; exit 2 ;; esac
case $IP in */*) ;; *) IP=$IP/24 ;; esac
[[ $LABEL =~ ^[A-Za-z0-9_.-]*$ ]] || { echo "vm-run: --label: letters, digits, _ . - only" >&2; exit 2; }
[[ $TIMEOUT =~ ^[0-9]+$ ]] || { echo "vm-run: bad timeout '$TIMEOUT'" >&2; exit 2; }

# ---- kernel + initramfs (skip when they cannot be had) ----------------------
setup_log=$(mktemp)
if ! "$HERE/vm-setup.sh" --quiet > "$setup_log" 2>&1; then
	tail -n 20 "$setup_log" >&2
	reason=$(grep 'vm-setup: ' "$setup_log" | tail -n 1 | sed 's/^vm-setup: //')
	rm -f "$setup_log"
	echo "SKIP: rxe VM unavailable: ${reason:-vm-setup.sh failed}"
	exit 77
fi
rm -f "$setup_log"
QEMU=$(command -v qemu-system-x86_64) || { echo "SKIP: qemu-system-x86_64 not found"; exit 77; }
for f in vmlinuz initramfs.cpio.gz; do
	[ -s "$CACHE/$f" ] || { echo "SKIP: $CACHE/$f missing"; exit 77; }
done

# ---- private share dir --------------------------------------------------------
SHARE=$(mktemp -d "${TMPDIR:-/tmp}/rds-vm.XXXXXX") || exit 1
QPID='' TPID=''
# shellcheck disable=SC2317 # called from the trap
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	[ -n "$TPID" ] && kill "$TPID" 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "vm-run: share dir kept: $SHARE" >&2; else rm -rf "$SHARE"; fi
}
trap cleanup EXIT
trap 'echo "vm-run: interrupted" >&2; exit 130' INT
trap 'echo "vm-run: terminated" >&2; exit 143' TERM HUP

{
	echo '#!/bin/bash'
	for e in "${ENVS[@]}"; do printf 'export %q\n' "$e"; done
	printf 'cd %q || exit 125\n' "$PWD"
	printf '%s\n' "$CMD"
} > "$SHARE/cmd.sh"
chmod +x "$SHARE/cmd.sh"

# shellcheck disable=SC2054 # commas belong to QEMU option values
case $WIRE in
'') NET=(-netdev user,id=n0) ; KARGS="$KARGS rdsvm_gw=10.0.2.2" ;;
listen:*) NET=(-netdev "socket,id=n0,listen=127.0.0.1:${WIRE#listen:}") ;;
connect:*) NET=(-netdev "socket,id=n0,connect=127.0.0.1:${WIRE#connect:}") ;;
*) echo "vm-run: --wire must be listen:PORT or connect:PORT" >&2; exit 2 ;;
esac
NET+=(-device "virtio-net-pci,netdev=n0,mac=$MAC")

if [ "$SHELL_MODE" = 1 ]; then
	rm -f "$SHARE/cmd.sh"
	CONSOLE=(-serial mon:stdio)
	KARGS="$KARGS rdsvm_shell=1"
else
	: > "$SHARE/console.log"
	CONSOLE=(-serial "file:$SHARE/console.log")
fi

# shellcheck disable=SC2054
QEMU_ARGS=(
	-nodefaults -no-user-config -display none -no-reboot
	-accel tcg,thread=multi -cpu max -m "$MEM" -smp "$SMP"
	-kernel "$CACHE/vmlinuz" -initrd "$CACHE/initramfs.cpio.gz"
	-append "console=ttyS0 quiet loglevel=3 panic=-1 rdsvm_share=$SHARE rdsvm_ip=$IP rdsvm_rxe=$RXE rdsvm_hugepages=$HUGEPAGES$KARGS"
	"${CONSOLE[@]}"
	"${NET[@]}"
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=share,path=$SHARE,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=share,mount_tag=share
)

START=$(date +%s.%N)
if [ "$SHELL_MODE" = 1 ]; then
	timeout --foreground -k 10 "$TIMEOUT" "$QEMU" "${QEMU_ARGS[@]}"
	exit $?
fi
# --foreground keeps QEMU in our process group, so whoever kills our group
# (e.g. meson on its own timeout) kills QEMU too.
timeout --foreground -k 10 "$TIMEOUT" "$QEMU" "${QEMU_ARGS[@]}" \
	< /dev/null > "$SHARE/qemu.log" 2>&1 &
QPID=$!
PREFIX=
[ -z "$LABEL" ] || PREFIX="[$LABEL] "
tail -n +1 -f --pid="$QPID" "$SHARE/console.log" |
	sed -u -e 's/\r$//' -e "s/^/$PREFIX/" &
TPID=$!
wait "$QPID"
QRC=$?
QPID=
wait "$TPID" 2>/dev/null   # tail ends within a second once QEMU is gone
TPID=
WALL=$(awk -v a="$START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

if [ -s "$SHARE/qemu.log" ]; then sed "s/^/${PREFIX}qemu: /" "$SHARE/qemu.log" >&2; fi
if [ -f "$SHARE/rc" ]; then
	RC=$(cat "$SHARE/rc")
	echo "${PREFIX}vm-run: command exited with status $RC (${WALL}s wall)" >&2
	exit "$RC"
fi
if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
	echo "${PREFIX}vm-run: FAIL: timeout, QEMU killed after ${TIMEOUT}s" >&2
	exit 124
fi
echo "${PREFIX}vm-run: FAIL: the VM ended without a result (qemu status $QRC, ${WALL}s wall)" >&2
exit 1
