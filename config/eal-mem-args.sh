#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Print the EAL memory arguments to use on this machine:
#   --in-memory          if at least 256 free 2 MB hugepages are available
#   --no-huge -m 1024    otherwise
# (--in-memory and --no-huge cannot be combined: the EAL rejects it.)
# --in-memory needs no hugetlbfs mount: the EAL maps the pages anonymously.

min_free=256
free="$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)"
case "$free" in
'' | *[!0-9]*) free=0 ;;
esac

if [ "$free" -ge "$min_free" ]; then
	echo "--in-memory"
else
	echo "--no-huge -m 1024"
fi
