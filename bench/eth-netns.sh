#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A veth pair between two network namespaces, for rds-perf over
# net_af_packet (bench/eth-compare.sh). Needs root.
#
#   bench/eth-netns.sh up       make them (again, if they are there)
#   bench/eth-netns.sh down     remove them (nothing else)
#   bench/eth-netns.sh status   show them
#
# Names (override in the environment): namespaces $NS_A and $NS_B
# (rdsperfA, rdsperfB), interfaces $IF_A in $NS_A and $IF_B in $NS_B
# (rpvA, rpvB), MTU $MTU (1500). With KADDR=1, up also gives the kernel
# 10.9.1.1/24 on $IF_A and 10.9.1.2/24 on $IF_B, for kernel sockets over
# the same pair (bench/compare.sh); rds-perf's 10.9.0.x stay unowned, so
# the kernel drops those frames without an answer.
#
# The interfaces get no IP address: net_af_packet hands every frame to
# DPDK, and a kernel that owned 10.9.0.x would answer rds-perf's UDP with
# ICMP port unreachable and its ARP for us. IPv6 is off (no router or
# neighbour solicitations among the frames). Nothing leaves the machine:
# the pair's two ends are the two namespaces.
#
# Run a process in a namespace with ip netns exec, e.g.
#   ip netns exec rdsperfB rds-perf -l 1 --no-pci --in-memory --file-prefix s \
#       --vdev=net_af_packet0,iface=rpvB,qpairs=1 -- --transport eth \
#       --role server --local 10.9.0.2 --peer 10.9.0.1 --secs 8

set -eu

NS_A=${NS_A:-rdsperfA}
NS_B=${NS_B:-rdsperfB}
IF_A=${IF_A:-rpvA}
IF_B=${IF_B:-rpvB}
MTU=${MTU:-1500}

down() {
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	# (a veth end dies with its namespace; one left behind in the root
	# namespace by a failed set-up goes here)
	ip link del "$IF_A" 2>/dev/null || true
}

up() {
	down
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add "$IF_A" mtu "$MTU" type veth peer name "$IF_B" mtu "$MTU"
	ip link set "$IF_A" netns "$NS_A"
	ip link set "$IF_B" netns "$NS_B"
	for side in A B; do
		ns=NS_$side
		ifc=IF_$side
		ip netns exec "${!ns}" sysctl -qw \
			"net.ipv6.conf.${!ifc}.disable_ipv6=1"
		ip netns exec "${!ns}" ip link set lo up
		ip netns exec "${!ns}" ip link set "${!ifc}" up
	done
	if [ "${KADDR:-0}" = 1 ]; then
		ip -n "$NS_A" addr add 10.9.1.1/24 dev "$IF_A"
		ip -n "$NS_B" addr add 10.9.1.2/24 dev "$IF_B"
	fi
}

status() {
	for side in A B; do
		ns=NS_$side
		echo "namespace ${!ns}:"
		ip netns exec "${!ns}" ip -br link 2>/dev/null ||
			echo "  (none)"
	done
}

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
*)
	echo "usage: $0 up|down|status" >&2
	exit 2
	;;
esac
