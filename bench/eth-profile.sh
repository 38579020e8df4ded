#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Where the eth transport's time goes, in one process (no PMD crossing,
# no second process, so no machine noise in the instruction counts):
# rds-bench-eth (bench/eth_loop.c) over a net_ring pair, against its
# raw-frame floor (--raw) and the core alone over the loop transport
# (rds-bench-core).
#
#   bench/eth-profile.sh [BUILD_DIR]     (default: build)
#
# 1. Instructions per message (valgrind --tool=callgrind, the measured
#    loop only: --toggle-collect), for 64 B one at a time, 64 B in bursts
#    of 32, and 64 KiB one at a time; the top functions by inclusive
#    instructions for RDS over eth.
# 2. Time per message (the median of 5 runs) and, when perf can sample
#    (cpu-clock works in a VM without hardware counters), the functions
#    that take the time (self), for 64 B and 64 KiB.
#
# Environment: OUT=DIR (default /tmp/rds-eth-profile.PID), TOP=25.
# Note: callgrind counts a "rep movsb" (glibc's memcpy for large copies)
# once per byte moved, so memcpy's share of instructions overstates its
# share of time; the perf part gives the time.

set -u

BUILD=${1:-build}
B=$(readlink -f "$BUILD/bench/rds-bench-eth")
C=$(readlink -f "$BUILD/bench/rds-bench-core")
OUT=${OUT:-/tmp/rds-eth-profile.$$}
TOP=${TOP:-25}
E="-l 0 --no-pci --no-huge -m 1024 --file-prefix ethprof$$"
WARM=1000	# steps of warm-up in the measured function (bench_*_loop)

mkdir -p "$OUT"

# name steps burst size [--raw]: instructions per message
cg() {
	local name=$1 n=$2 k=$3 s=$4 raw=${5:-} fn=bench_eth_loop ir
	[ -n "$raw" ] && fn=bench_raw_loop
	valgrind --tool=callgrind --toggle-collect=$fn \
		--callgrind-out-file="$OUT/cg.$name" \
		"$B" $E -- --msgs "$n" --burst "$k" --size "$s" --runs 1 $raw \
		> "$OUT/cg.$name.log" 2>&1
	ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/cg.$name.log")
	printf '%-28s %10.0f instructions/message\n' "$name" \
		"$(echo "$ir / (($n + $WARM) * $k)" | bc -l)"
}

echo "== instructions per message (callgrind)"
cg eth_64B_burst1 20000 1 64
cg raw_64B_burst1 20000 1 64 --raw
cg eth_64B_burst32 2000 32 64
cg raw_64B_burst32 2000 32 64 --raw
cg eth_64KiB_burst1 300 1 65536
cg raw_64KiB_burst1 300 1 65536 --raw
valgrind --tool=callgrind --toggle-collect=bench_loop \
	--callgrind-out-file="$OUT/cg.core_64B" "$C" $E -- --msgs 20000 \
	--runs 1 > "$OUT/cg.core_64B.log" 2>&1
printf '%-28s %10.0f instructions/message\n' "core_64B_loop_transport" \
	"$(echo "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' \
	"$OUT/cg.core_64B.log") / 21000" | bc -l)"

for name in eth_64B_burst1 eth_64KiB_burst1; do
	echo
	echo "== $name: top functions, inclusive instructions"
	callgrind_annotate --inclusive=yes "$OUT/cg.$name" 2>/dev/null |
		grep -E '^ *[0-9,]+ \(' | grep -v 'PROGRAM TOTALS\|libc-start\|below main\|eth_loop.c:main\|ld-linux' |
		sed 's/ \[[^]]*\]$//; s|[^ ]*/\([^/ ]*:[^ ]*\)$|\1|' |
		awk '!seen[$NF]++' | head -n "$TOP" | cut -c1-140
done

echo
echo "== time per message (median of 5 runs, ns)"
for a in "--size 64 --burst 1" "--size 64 --burst 32" "--size 65536 --burst 1 --msgs 2000"; do
	for raw in "" "--raw"; do
		"$B" $E -- --msgs 50000 $a --runs 5 $raw 2>/dev/null | grep '^{'
	done
done

if perf record -e cpu-clock -o "$OUT/perf.test" -- true > /dev/null 2>&1; then
	for s in 64 65536; do
		n=1000000
		[ $s = 65536 ] && n=20000
		echo
		echo "== RDS over eth, $s B, one at a time: self time by function (perf, cpu-clock, user space; the set-up is in it too)"
		perf record -e cpu-clock:u -F 4999 -o "$OUT/perf.$s" -- "$B" $E -- \
			--msgs $n --size $s --burst 1 --runs 1 > /dev/null 2>&1
		perf report -i "$OUT/perf.$s" --no-children --sort symbol \
			--stdio 2>/dev/null | grep '%' | head -n "$TOP"
	done
else
	echo "(perf cannot sample here: no time profile)"
fi
echo
echo "files in $OUT"
