#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_info: app/rds-info against an rds-engined of this
# build (two loop addresses) while one client (mp_client hold) has a
# socket on 10.250.0.1:7000 connected to one of its own on
# 10.250.0.2:7001 and 5 messages of 100..104 bytes sent to it, unread.
# rds-info, a separate process attached to the engine, must show in the
# kernel tool's layout (the headers compared byte for byte with the
# kernel tool's formats):
#   -c  send_queued 5, send_xmit 5, recv_delivered 5, conn_connect 2
#   -k  both sockets of the client with their addresses and ports, and
#       rds-info's own (unbound) socket
#   -n  both connections up (flags --C-), NextTX 6 on the sending side,
#       NextRX 6 on the receiving side
#   -r  the 5 unread messages (in the client's region), seq 1..5
#   -I, -T empty tables; no option: all eight sections, in the kernel
#       tool's order (I T c k n r s t)
#   -x  the engine's own counters and the loop transport's (frames 5)
# then a bad option exits 2, no engine exits 1, and once the client is
# gone its sockets are no longer listed.
#
#   mp_info.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
INFO=$BUILD/app/rds-info/rds-info
CLIENT=$BUILD/test/multiproc/mp_client
TMP=$(mktemp -d /tmp/rds-mp-info.XXXXXX)
SOCK=$TMP/engine.sock
NAME=mp_info
. "$(dirname "$0")/mp_lib.sh"
IPA=10.250.0.1
IPB=10.250.0.2
fail=0
epid=
cpid=

cleanup() {
	[ -n "$cpid" ] && kill -9 "$cpid" 2>/dev/null
	[ -n "$epid" ] && kill -9 "$epid" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

bad() {
	echo "mp_info: FAIL: $*"
	fail=1
}

mp_need "$ENGINED" "$INFO" "$CLIENT"

mp_start_engine "$ENGINED" "mpi$$" $IPA $IPB
export RTE_RDS_ENGINE=$SOCK

# The client holds its sockets until its stdin closes (fd 3 here).
mkfifo "$TMP/hold"
"$CLIENT" hold "$SOCK" 0 5 < "$TMP/hold" > "$TMP/client.log" 2>&1 &
cpid=$!
exec 3> "$TMP/hold"
for i in $(seq 200); do
	grep -q HELD "$TMP/client.log" && break
	kill -0 $cpid 2>/dev/null || break
	sleep 0.05
done
if ! grep -q HELD "$TMP/client.log"; then
	echo "mp_info: FAIL: the client did not get ready:"
	cat "$TMP/client.log"
	exit 1
fi

"$INFO" > "$TMP/all.out" 2> "$TMP/all.err"
rc=$?
echo "--- rds-info (no option), status $rc:"
cat "$TMP/all.out" "$TMP/all.err"
[ $rc -eq 0 ] || bad "rds-info exit status $rc"
[ -s "$TMP/all.err" ] && bad "rds-info wrote to stderr"

# The section titles, in the kernel tool's order.
titles=$(grep -E ':$' "$TMP/all.out" | tr '\n' '|')
want="RDS IB Connections:|TCP Connections:|Counters:|RDS Sockets:|RDS Connections:|Receive Message Queue:|Send Message Queue:|Retransmit Message Queue:|"
[ "$titles" = "$want" ] || bad "sections '$titles', want '$want'"

# Headers, as the kernel tool prints them.
hdr() {
	local line
	# shellcheck disable=SC2059
	line=$(printf "$@")
	grep -qxF -- "$line" "$TMP/all.out" || bad "no header line '$line'"
}
hdr "%15s %15s %4s %3s %32s %32s" LocalAddr RemoteAddr Tos SL LocalDev \
	RemoteDev
hdr "%15s %5s %15s %5s %10s %10s %10s %10s %10s" LocalAddr LPort \
	RemoteAddr RPort HdrRemain DataRemain SentNxt ExpectUna SeenUna
hdr "%25s %16s" CounterName Value
hdr "%15s %5s %15s %5s %10s %10s %8s" BoundAddr BPort ConnAddr CPort \
	SndBuf RcvBuf Inode
hdr "%15s %15s %4s %16s %16s %4s" LocalAddr RemoteAddr Tos NextTX NextRX \
	Flgs
hdr "%15s %5s %15s %5s %4s %16s %10s" LocalAddr LPort RemoteAddr RPort \
	Tos Seq Bytes

# The lines of one section (after its header, up to the blank line).
section() {
	awk -v t="$1" '$0 == t { on = 1; getline; next }
		       on && $0 == "" { exit }
		       on { print }' "$2"
}

# Empty tables: IB and TCP (none here).
[ -z "$(section "RDS IB Connections:" "$TMP/all.out")" ] ||
	bad "IB connections listed"
[ -z "$(section "TCP Connections:" "$TMP/all.out")" ] ||
	bad "TCP sockets listed"

counter() {
	section "Counters:" "$TMP/all.out" | awk -v n="$1" '$1 == n { print $2 }'
}
for kv in send_queued=5 send_xmit=5 recv_delivered=5 conn_connect=2 \
	  recv_drop_no_sock=0 conn_reset=0; do
	v=$(counter "${kv%=*}")
	[ "$v" = "${kv#*=}" ] || bad "counter ${kv%=*} is '$v', want ${kv#*=}"
done

section "RDS Sockets:" "$TMP/all.out" > "$TMP/socks"
awk -v a=$IPA -v b=$IPB '$1 == a && $2 == 7000 && $3 == b && $4 == 7001' \
	"$TMP/socks" | grep -q . || bad "no socket $IPA:7000 -> $IPB:7001"
awk -v b=$IPB '$1 == b && $2 == 7001 && $3 == "0.0.0.0" && $4 == 0' \
	"$TMP/socks" | grep -q . || bad "no socket $IPB:7001"
awk '$1 == "0.0.0.0" && $2 == 0' "$TMP/socks" | grep -q . ||
	bad "rds-info's own socket not listed"
[ "$(wc -l < "$TMP/socks")" -eq 3 ] || bad "not 3 sockets"

section "RDS Connections:" "$TMP/all.out" > "$TMP/conns"
awk -v a=$IPA -v b=$IPB '$1 == a && $2 == b && $4 == 6 && $6 == "--C-"' \
	"$TMP/conns" | grep -q . || bad "no connection $IPA -> $IPB, NextTX 6, up"
awk -v a=$IPA -v b=$IPB '$1 == b && $2 == a && $5 == 6 && $6 == "--C-"' \
	"$TMP/conns" | grep -q . || bad "no connection $IPB -> $IPA, NextRX 6, up"

# The unread messages: seq 1..5, 100..104 bytes, to 7001 from 7000.
got=$(section "Receive Message Queue:" "$TMP/all.out" |
	awk '{ print $1, $2, $3, $4, $6, $7 }' | tr '\n' '|')
want=""
for i in 1 2 3 4 5; do
	want="$want$IPB 7001 $IPA 7000 $i $((99 + i))|"
done
[ "$got" = "$want" ] || bad "receive queue '$got', want '$want'"

# One option: that section only.
"$INFO" -k > "$TMP/k.out" 2>&1 || bad "rds-info -k failed"
[ "$(grep -cE ':$' "$TMP/k.out")" -eq 1 ] && grep -qx "RDS Sockets:" \
	"$TMP/k.out" || bad "rds-info -k printed more than the sockets"
"$INFO" -T -I > "$TMP/ti.out" 2>&1 || bad "rds-info -T -I failed"
[ "$(grep -cE ':$' "$TMP/ti.out")" -eq 2 ] ||
	bad "rds-info -T -I: not two sections"

# -e: librte_rds's own eth records, through the attached path (the
# engine's name range): the section alone, empty (loop connections only),
# and never in the default output.
"$INFO" -e > "$TMP/e.out" 2>&1 || bad "rds-info -e failed: $(cat "$TMP/e.out")"
[ "$(grep -cE ':$' "$TMP/e.out")" -eq 1 ] && grep -qx "RDS eth Connections:" \
	"$TMP/e.out" || bad "rds-info -e printed more or less than its section"
[ "$(grep -cv -e '^$' -e ':$' -e LocalAddr "$TMP/e.out")" -eq 0 ] ||
	bad "rds-info -e listed an eth connection of a loop engine"
grep -q "RDS eth Connections:" "$TMP/all.out" &&
	bad "rds-info with no option printed the eth section"

# -x: librte_rds's counters, the engine's.
"$INFO" -x > "$TMP/x.out" 2>&1
rc=$?
echo "--- rds-info -x, status $rc:"
sed -n '/Transport Counters (loop)/,/^$/p' "$TMP/x.out"
[ $rc -eq 0 ] || bad "rds-info -x exit status $rc"
grep -q "^librte_rds Engine Counters:" "$TMP/x.out" ||
	bad "no engine counters"
v=$(section "librte_rds Engine Counters:" "$TMP/x.out" |
	awk '$1 == "s_send_xmit" { print $NF }')
[ "$v" = 5 ] || bad "s_send_xmit total '$v', want 5"
v=$(section "Transport Counters (loop):" "$TMP/x.out" |
	awk '$1 == "frames" { print $2 }')
[ "$v" = 5 ] || bad "loop frames '$v', want 5"

# Errors.
"$INFO" -q > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || bad "a bad option: status $rc, want 2"
"$INFO" -E "$TMP/none.sock" -k > /dev/null 2> "$TMP/none.err"
rc=$?
[ $rc -eq 1 ] && grep -q "no engine at" "$TMP/none.err" ||
	bad "no engine: status $rc, '$(cat "$TMP/none.err")'"

# The client goes: its sockets go with it.
exec 3>&-
wait $cpid
crc=$?
cpid=
[ $crc -eq 0 ] || bad "the client's exit status $crc"
for i in $(seq 100); do
	"$INFO" -k > "$TMP/k2.out" 2>&1
	[ "$(section "RDS Sockets:" "$TMP/k2.out" | wc -l)" -eq 1 ] && break
	sleep 0.05
done
[ "$(section "RDS Sockets:" "$TMP/k2.out" | wc -l)" -eq 1 ] ||
	bad "the client's sockets still listed after it exited"

kill -TERM "$epid"
wait "$epid"
erc=$?
epid=
[ $erc -eq 0 ] || bad "rds-engined exit status $erc"
[ $fail -eq 0 ] && echo "mp_info: PASS" || echo "mp_info: FAIL"
exit $fail
