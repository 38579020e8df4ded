#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Prepare a Debian 12 machine for librte_rds: install the packages the build,
# the tests and rds-perf need, then reserve 2 MB hugepages if the kernel lets
# us. Idempotent: when everything is already present it only runs dpkg-query
# and reads /proc, so it takes well under a second.
#
# Must run as root. The last line says whether hugepages are available.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Everything the project needs. libasan8 and libubsan1 are gcc-12's sanitizer
# runtimes (the ASan+UBSan build links against them).
# libpython3.11-testsuite is CPython's own test package (test.test_socket,
# whose RDS cases mp_python runs under the preload). clang and
# libclang-rt-14-dev (libFuzzer, clang's ASan/UBSan runtimes) build the
# fuzz targets (build-fuzz, suite 'fuzz'); the other builds use gcc.
# nftables: the fabric suite's faults (netdev egress drop, dup, payload set).
packages=(
	build-essential pkgconf meson ninja-build
	dpdk dpdk-dev libdpdk-dev libnuma-dev
	libcunit1-dev libssl-dev
	libibverbs-dev librdmacm-dev rdma-core ibverbs-providers
	python3 python3-pyelftools libpython3.11-testsuite
	valgrind iproute2 linux-libc-dev doxygen
	libasan8 libubsan1
	clang libclang-rt-14-dev
	nftables
)

want_hugepages=512
hp_sys=/proc/sys/vm/nr_hugepages
hp_mnt=/dev/hugepages

missing=()
for p in "${packages[@]}"; do
	status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
	case "$status" in
	*"ok installed") ;;
	*) missing+=("$p") ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: must run as root. It would:" >&2
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
	else
		echo "  (install nothing: all packages are present)" >&2
	fi
	echo "  echo $want_hugepages > $hp_sys   (if fewer than $want_hugepages 2 MB hugepages are reserved)" >&2
	echo "  mount -t hugetlbfs nodev $hp_mnt   (if not mounted)" >&2
	exit 1
fi

if [ "${#missing[@]}" -gt 0 ]; then
	echo "setup.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
else
	echo "setup.sh: all ${#packages[@]} packages present"
fi

# Hugepages: best effort. A container or a VM may refuse; then the EAL runs
# with --no-huge (see eal-mem-args.sh).
hp_total="$(awk '/^HugePages_Total:/ {print $2}' /proc/meminfo 2>/dev/null || true)"
hp_total="${hp_total:-0}"
if [ -w "$hp_sys" ] && [ "$hp_total" -lt "$want_hugepages" ]; then
	echo "$want_hugepages" > "$hp_sys" 2>/dev/null || true
fi
if ! awk -v m="$hp_mnt" '$2 == m && $3 == "hugetlbfs" {f = 1} END {exit !f}' /proc/mounts; then
	{ mkdir -p "$hp_mnt" && mount -t hugetlbfs nodev "$hp_mnt"; } 2>/dev/null || true
fi

hp_free="$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)"
case "$(bash "$here/eal-mem-args.sh")" in
--in-memory*)
	echo "hugepages: $hp_free free" ;;
*)
	if [ "$hp_free" -gt 0 ]; then
		echo "hugepages: $hp_free free (fewer than 256), using --no-huge"
	else
		echo "hugepages: none, using --no-huge"
	fi ;;
esac
