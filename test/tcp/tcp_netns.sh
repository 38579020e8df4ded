#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tcp_netns.sh LRDS_PEER - the tcp transport between two network
# namespaces, two librte_rds processes (test/rxe's lrds_peer with
# INTEROP_LRDS_TRANS=tcp, the interop suite's exchange and fan-in) on
# the two ends of a veth pair, over IPv6 and IPv4:
#   v6      the exchange (interop_proto.h: 500 messages each way, 0 B..
#           1 MiB, SHA-256 of each direction compared across the two
#           processes) between fd85::1 and fd85::2, once with the lower
#           address connecting and once with it silent until the other's
#           first message (-P: the higher address knocks, the lower one
#           connects back);
#   ll      the exchange between the link-local fe80::1%veth0 and
#           fe80::2%veth0;
#   fanin6  three librte_rds senders in one namespace (fd85::10, ::11,
#           ::12, port 4243) into one socket in the other
#           ([fd85::2]:4242), SHA-256 per stream;
#   v4      the exchange between 10.85.0.1 and 10.85.0.2.
# The namespaces are named rds-tcp6-PID-a and -b and deleted at the end.
# Needs root; without it, or without ip(8)'s netns and veth: SKIP, exit
# 77 (a failure under CI=true).
set -u
lrds=${1:?usage: tcp_netns.sh LRDS_PEER}
n=${TCP_NETNS_COUNT:-500}
tmo=${TCP_NETNS_TIMEOUT:-240}
skip() {
	echo "SKIP: $*"
	[ "${CI:-}" = true ] && { echo "FAIL: skipped under CI=true"; exit 1; }
	exit 77
}
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
command -v ip > /dev/null || skip "no ip(8)"
na=rds-tcp6-$$-a nb=rds-tcp6-$$-b
cleanup() { ip netns del "$na" 2> /dev/null; ip netns del "$nb" 2> /dev/null; }
trap cleanup EXIT
ip netns add "$na" && ip netns add "$nb" || skip "cannot make network namespaces (ip netns add)"
ip link add veth0 netns "$na" type veth peer name veth0 netns "$nb" ||
	skip "cannot make a veth pair"
i=1
for ns in "$na" "$nb"; do
	ip -n "$ns" link set lo up &&
	ip -n "$ns" link set veth0 up &&
	ip -n "$ns" addr add 10.85.0.$i/24 dev veth0 &&
	ip -n "$ns" -6 addr add fd85::$i/64 dev veth0 nodad &&
	ip -n "$ns" -6 addr add fe80::$i/64 dev veth0 nodad &&
	for j in 0 1 2; do
		ip -n "$ns" -6 addr add fd85::$i$j/64 dev veth0 nodad || exit 1
	done ||
		{ echo "FAIL: cannot set up veth0 in $ns"; exit 1; }
	i=$((i + 1))
done
echo "tcp-netns: namespaces $na (veth0 10.85.0.1, fd85::1, fd85::10..12, fe80::1) and $nb (.2, ::2, ::20..22)"

log=$(mktemp "${TMPDIR:-/tmp}/tcp-netns.XXXXXX")
trap 'cleanup; rm -f "$log".*' EXIT
result=0
# run NAME NS CMD...: in the background, output to $log.NAME
run() {
	local name=$1 ns=$2
	shift 2
	ip netns exec "$ns" env INTEROP_LRDS_TRANS=tcp "$@" > "$log.$name" 2>&1 &
}
digest() { sed -n "s/^lrds: $2 sha256 \([0-9a-f]\{64\}\).*/\1/p" "$log.$1" | tail -n 1; }
counter() { sed -n "s/^lrds: tcp: .*[ ;]$2 \([0-9]*\).*/\1/p" "$log.$1" | tail -n 1; }
show() { for f in "$@"; do sed "s/^/[$f] /" "$log.$f"; done; }

# exchange WHAT A_NS A_ADDR B_NS B_ADDR [-P]: B passive with -P
exchange() {
	local what=$1 nsa=$2 aa=$3 nsb=$4 ba=$5 flag=${6:-} ra rb
	run a "$nsa" "$lrds" -M 256 -n "$n" -t "$tmo" "$aa" "$ba"
	local pa=$!
	run b "$nsb" "$lrds" -M 256 $flag -n "$n" -t "$tmo" "$ba" "$aa"
	local pb=$!
	wait "$pa"; ra=$?
	wait "$pb"; rb=$?
	show a b | grep -E "sha256|FAIL|tcp:|rte_rds_init|bound" | head -n 20
	if [ "$ra" != 0 ] || [ "$rb" != 0 ]; then
		echo "tcp-netns: $what: FAIL (status $ra / $rb)"
		show a b | tail -n 40
		result=1
		return
	fi
	if [ -z "$(digest a tx)" ] || [ "$(digest a tx)" != "$(digest b rx)" ] ||
	   [ -z "$(digest b tx)" ] || [ "$(digest b tx)" != "$(digest a rx)" ]; then
		echo "tcp-netns: $what: FAIL: digests differ"
		result=1
		return
	fi
	# The lower address connects (with -P B, the lower, is silent: A,
	# the higher, knocks first), the higher accepts.
	local lo=a hi=b
	[ -n "$flag" ] && lo=b hi=a
	if [ "$(counter $lo connects)" = 0 ] || [ "$(counter $hi accepts)" = 0 ]; then
		echo "tcp-netns: $what: FAIL: the lower address did not connect or the higher did not accept"
		result=1
		return
	fi
	if [ -n "$flag" ] && [ "$(counter a knocks)" = 0 ]; then
		echo "tcp-netns: $what: FAIL: A (higher) never knocked"
		result=1
		return
	fi
	echo "tcp-netns: $what: PASS (sha256 $(digest a tx) / $(digest b tx))"
}

exchange "v6 exchange, A lower connects" "$na" fd85::1 "$nb" fd85::2
# A is fd85::2 here, the higher address; B, the lower, waits (-P).
exchange "v6 exchange, the higher knocks, the lower connects" \
	"$nb" fd85::2 "$na" fd85::1 -P
exchange "link-local exchange" "$na" fe80::1%veth0 "$nb" fe80::2%veth0
exchange "v4 exchange" "$na" 10.85.0.1 "$nb" 10.85.0.2

# Fan-in over IPv6: three senders in A (three processes, each with an
# address of its own: fd85::10..12) into one receiver in B.
senders=() pids=()
for j in 0 1 2; do
	senders+=(-F "[fd85::1$j]:4243")
done
run r "$nb" "$lrds" -M 256 "${senders[@]}" -n "$n" -t "$tmo" "[fd85::2]:4242"
pr=$!
for j in 0 1 2; do
	run "s$j" "$na" "$lrds" -M 256 -S "$j" -n "$n" -t "$tmo" \
		"[fd85::1$j]:4243" "[fd85::2]:4242"
	pids+=($!)
done
rc=0
for p in "${pids[@]}" "$pr"; do wait "$p" || rc=1; done
if [ $rc != 0 ]; then
	echo "tcp-netns: fanin6: FAIL"
	show s0 s1 s2 r | tail -n 60
	result=1
else
	for j in 0 1 2; do
		tx=$(digest "s$j" "stream $j tx") rx=$(digest r "stream $j rx")
		if [ -z "$tx" ] || [ "$tx" != "$rx" ]; then
			echo "tcp-netns: fanin6: FAIL: stream $j digests differ: $tx / $rx"
			result=1
		else
			echo "tcp-netns: fanin6: stream $j sha256 $tx (both ends agree)"
		fi
	done
fi
echo "tcp-netns: $([ $result = 0 ] && echo PASS || echo FAIL)"
exit $result
