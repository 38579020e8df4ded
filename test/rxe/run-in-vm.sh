#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run ib test binaries inside the rxe VM, for meson:
#   run-in-vm.sh BINARY [ARGS...] [--then BINARY [ARGS...]]...
# One boot; the binaries run one after the other (all of them, even
# after a failure), each line of the console says which. The VM gets rxe0
# on eth0 with four addresses (its own, 10.0.2.15, and 10.0.2.16-18),
# passed as RDS_IB_ADDR_A .. RDS_IB_ADDR_D, and RDS_IB_DEV=rxe0;
# RDS_TEST_IB_ADDRS=N (more than 4) adds 10.0.2.19 and up to N addresses
# in all, and every one is in RDS_IB_ADDRS (comma separated); and IPv6
# ones, fd98::16-18/64 (RDS_IB_ADDR6_A .. C) and the link-local
# fe80::16, fe80::17 (RDS_IB_LL_A, _B), each with its RoCE v2 GID.
# Exit status: a single binary's own; with several, 1 if any failed, else
# 77 if any skipped, else 0. 77 (skip) also when the VM cannot run here,
# which under CI=true becomes a failure. RDS_VM_TIMEOUT (default 900 s per
# binary) bounds the VM; RDS_VM_MEM (MiB, default 2048) is its memory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || { echo "usage: $0 BINARY [ARGS...] [--then BINARY [ARGS...]]..." >&2; exit 2; }

# One shell line per binary, run in the VM with the addresses set.
runs='' n=0 cur=''
flush() {
	[ -n "$cur" ] || return 0
	n=$((n + 1))
	runs+="run_one $cur"$'\n'
	cur=''
}
while [ $# -gt 0 ]; do
	if [ "$1" = "--then" ]; then
		flush
	elif [ -z "$cur" ]; then
		cur=$(printf '%q' "$(readlink -f "$1")")
	else
		cur+=$(printf ' %q' "$1")
	fi
	shift
done
flush
timeout=${RDS_VM_TIMEOUT:-$((900 * n))}

cmd="ip addr add 10.0.2.16/24 dev eth0 && ip addr add 10.0.2.17/24 dev eth0 &&
ip addr add 10.0.2.18/24 dev eth0 || exit 1
RDS_IB_ADDRS=\$RDS_VM_ADDR,10.0.2.16,10.0.2.17,10.0.2.18
for ((i = 19; i < 15 + \${RDS_TEST_IB_ADDRS:-4}; i++)); do
	ip addr add 10.0.2.\$i/24 dev eth0 || exit 1
	RDS_IB_ADDRS+=,10.0.2.\$i
done
for a in fd98::16/64 fd98::17/64 fd98::18/64 fe80::16/64 fe80::17/64; do
	ip -6 addr add \$a dev eth0 nodad || exit 1
done
sleep 1
export RDS_IB_ADDRS RDS_IB_ADDR_A=\$RDS_VM_ADDR RDS_IB_ADDR_B=10.0.2.16 \
RDS_IB_ADDR_C=10.0.2.17 RDS_IB_ADDR_D=10.0.2.18 RDS_IB_DEV=rxe0 \
RDS_IB_ADDR6_A=fd98::16 RDS_IB_ADDR6_B=fd98::17 RDS_IB_ADDR6_C=fd98::18 \
RDS_IB_LL_A=fe80::16 RDS_IB_LL_B=fe80::17 \
RDS_TEST_EAL_MEM=\${RDS_TEST_EAL_MEM:-'--no-huge -m 512'}
nrun=0 nfail=0 nskip=0 failed=''
run_one() {
	local t0=\$SECONDS rc
	echo \"run-in-vm: === \$(basename \"\$1\") \${*:2}\"
	\"\$@\"; rc=\$?
	echo \"run-in-vm: === \$(basename \"\$1\") \${*:2}: status \$rc (\$((SECONDS - t0)) s)\"
	nrun=\$((nrun + 1)); last=\$rc
	if [ \$rc -eq 77 ]; then nskip=\$((nskip + 1));
	elif [ \$rc -ne 0 ]; then nfail=\$((nfail + 1)); failed+=\" \$(basename \"\$1\")\"; fi
}
$runs
if [ \$nrun -eq 1 ]; then exit \$last; fi
echo \"run-in-vm: \$nrun binaries, \$nfail failed\${failed:+ (\$failed )}, \$nskip skipped\"
if [ \$nfail -gt 0 ]; then exit 1; fi
if [ \$nskip -gt 0 ]; then exit 77; fi
exit 0"

# The kernel's rds_rdma would hold RDMA-CM port 18634: not loaded here.
# Test knobs (RDS_TEST_*) travel into the VM.
envs=()
for v in $(compgen -e | grep '^RDS_TEST_' || true); do
	envs+=(--env "$v=${!v}")
done
"$here/vm-run.sh" -t "$timeout" --mem "${RDS_VM_MEM:-2048}" "${envs[@]}" \
	--kargs "rdsvm_nomod=rds_rdma,rds_tcp,rds" -- "$cmd"
rc=$?
if [ "$rc" -eq 77 ] && [ "${CI:-}" = "true" ]; then
	echo "FAIL: the rxe VM could not run under CI=true (a skip is a failure here)"
	exit 1
fi
exit "$rc"
