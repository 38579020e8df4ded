#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# gid-index.sh DEV IP - print the RoCE v2 GID index of IP (IPv4, or IPv6:
# its GID is the address itself) on rdma device DEV (port 1), for perftest
# -x / ibv_*_pingpong -g. Use inside the rxe VM.
# init exports RDS_VM_GID_INDEX for rxe0's own address; this is for others
# (e.g. a second address added with "ip addr add").
#   gid-index.sh rxe0 10.0.2.15   ->  1
dev=${1:?usage: gid-index.sh DEV IP}
ip=${2:?usage: gid-index.sh DEV IP}
# IPv4 address -> its IPv4-mapped GID as sysfs prints it
mapped_gid() (
	IFS=.
	# shellcheck disable=SC2086 # split the address on dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
)
case $ip in
*:*) want=$(python3 -c 'import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$ip") || exit 1 ;;
*) want=$(mapped_gid "$ip") ;;
esac
port=/sys/class/infiniband/$dev/ports/1
# in index order, with the shell's own read: a GID table has hundreds of
# entries and forks are slow in the VM
n=0
while [ -e "$port/gids/$n" ]; do
	gid='' type=''
	read -r gid < "$port/gids/$n" 2>/dev/null
	if [ "$gid" = "$want" ]; then
		read -r type < "$port/gid_attrs/types/$n" 2>/dev/null
		[ "$type" = "RoCE v2" ] && { echo "$n"; exit 0; }
	fi
	n=$((n + 1))
done
echo "gid-index.sh: no RoCE v2 GID for $ip on $dev" >&2
exit 1
