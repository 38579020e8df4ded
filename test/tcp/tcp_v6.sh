#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# tcp_v6.sh TCP_STREAM - the tcp suite over IPv6: TCP_STREAM v6 in a
# network namespace of its own (unshare -n: no name, gone with the
# process), with lo up and fd00:84::5, ::10, ::20, ::30 and ::21..::2f on
# it, and a veth pair v0/v1 with the link-local fe80::10 and fe80::20 on
# v0 (tcp_test.h). Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN);
# without it: SKIP, exit 77 (a failure under CI=true).
set -u
bin=${1:?usage: tcp_v6.sh TCP_STREAM}
skip() {
	echo "SKIP: $*"
	[ "${CI:-}" = true ] && { echo "FAIL: skipped under CI=true"; exit 1; }
	exit 77
}
command -v unshare > /dev/null || skip "no unshare(1)"
command -v ip > /dev/null || skip "no ip(8)"
unshare -n true 2> /dev/null || skip "cannot make a network namespace (unshare -n): not root?"
# shellcheck disable=SC2016 # expanded in the namespace
exec unshare -n sh -c '
set -e
ip link set lo up
for a in 5 10 20 30 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f; do
	ip -6 addr add fd00:84::$a/128 dev lo nodad
done
ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
ip -6 addr add fe80::10/64 dev v0 nodad
ip -6 addr add fe80::20/64 dev v0 nodad
set +e
exec "$0" v6' "$bin"
