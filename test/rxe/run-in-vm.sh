#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run one ib test binary inside the rxe VM, for meson:
#   run-in-vm.sh BINARY [ARGS...]
# The VM gets rxe0 on eth0 with two addresses (its own and a second one),
# passed to the binary as RDS_IB_ADDR_A / RDS_IB_ADDR_B. Exit status is
# the binary's; 77 (skip) when the VM cannot run here, which under CI=true
# becomes a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(readlink -f "$1"); shift
args=$(printf ' %q' "$@")
timeout=${RDS_VM_TIMEOUT:-900}

cmd="ip addr add 10.0.2.16/24 dev eth0 && sleep 1 &&
RDS_IB_ADDR_A=\$RDS_VM_ADDR RDS_IB_ADDR_B=10.0.2.16 \
RDS_TEST_EAL_MEM=\${RDS_TEST_EAL_MEM:-'--no-huge -m 512'} $(printf %q "$bin")$args"

# The kernel's rds_rdma would hold RDMA-CM port 18634: not loaded here.
# Test knobs (RDS_TEST_*) travel into the VM.
envs=()
for v in $(compgen -e | grep '^RDS_TEST_' || true); do
	envs+=(--env "$v=${!v}")
done
"$here/vm-run.sh" -t "$timeout" --mem 2048 "${envs[@]}" \
	--kargs "rdsvm_nomod=rds_rdma,rds_tcp,rds" -- "$cmd"
rc=$?
if [ "$rc" -eq 77 ] && [ "${CI:-}" = "true" ]; then
	echo "FAIL: the rxe VM could not run under CI=true (a skip is a failure here)"
	exit 1
fi
exit "$rc"
