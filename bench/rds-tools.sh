#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# oracle/rds-tools' own programs (rds-ping, rds-info, rds-stress), built
# from a checkout of their public source that you provide (never part of
# this tree), run unmodified through librte_rds_preload.so against an
# rds-engined of this build serving two loop addresses. Not a test: `make
# test` runs programs of our own (test/multiproc/mp_preload.sh); this is
# the check that the real tools work too, and prints their figures.
#
#   git clone https://github.com/oracle/rds-tools /tmp/rds-tools
#   (cd /tmp/rds-tools && ./configure && make)
#   bench/rds-tools.sh /tmp/rds-tools [BUILD_DIR]
#
# rds-stress binds its TCP control socket to the RDS addresses, so the
# programs run in a network namespace (rdstools) whose loopback carries
# 10.9.0.1 and 10.9.0.2; the engine's UNIX socket is reached from there.
# Needs root (the namespace; RDMA across processes: ptrace rights).
# Environment: SECS=5 (each rds-stress run), TASKS=2, DEPTH=4, NS=rdstools
# (the namespace's name).
#
# Last, RDMA attached against in-process in the same run: the MB/s of
# `rds-stress -D 65536` above (RDMA WRITEs of 64 KiB from an attached
# process, tx/s x 65536) and of `rds-perf --attach --mode rdma-write
# --size 65536` against the same engine, beside `rds-perf --mode
# rdma-write --size 65536` in one process on the same loop transport
# (the engine stopped meanwhile), all with as many tasks and the same
# depth, and their ratios.

set -u
TOOLS=${1:?usage: rds-tools.sh RDS_TOOLS_DIR [BUILD_DIR]}
BUILD=$(readlink -f "${2:-build}")
SECS=${SECS:-5}
TASKS=${TASKS:-2}
DEPTH=${DEPTH:-4}
ENGINED=$BUILD/app/rds-engined/rds-engined
PRELOAD=$BUILD/lib/preload/librte_rds_preload.so
NS=${NS:-rdstools}
IPA=10.9.0.1
IPB=10.9.0.2
TMP=$(mktemp -d /tmp/rds-tools.XXXXXX)
SOCK=$TMP/engine.sock
epid=
fail=0

for f in "$TOOLS/rds-ping" "$TOOLS/rds-info" "$TOOLS/rds-stress" \
	 "$ENGINED" "$PRELOAD"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "rds-tools: no $f" >&2; exit 2; }
done

cleanup() {
	[ -n "$epid" ] && kill "$epid" 2>/dev/null
	ip netns del $NS 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add $NS || exit 2
ip netns exec $NS ip link set lo up
ip netns exec $NS ip addr add $IPA/32 dev lo
ip netns exec $NS ip addr add $IPB/32 dev lo

"$ENGINED" -l 0 --no-pci --no-huge -m 1024 --file-prefix "rdstools$$" \
	--log-level=lib.eal:error -- --addr $IPA=loop --addr $IPB=loop \
	--listen "$SOCK" > "$TMP/engine.log" 2>&1 &
epid=$!
for _ in $(seq 100); do
	[ -S "$SOCK" ] && break
	sleep 0.1
done
[ -S "$SOCK" ] || { cat "$TMP/engine.log"; echo "rds-tools: no engine"; exit 1; }

run() {	# run CMD...: in the namespace, under the preload
	ip netns exec $NS env RTE_RDS_ENGINE="$SOCK" LD_PRELOAD="$PRELOAD" "$@"
}

step() {
	local name=$1
	shift
	echo "=== $name: $*"
	if "$@"; then
		echo "=== $name: ok"
	else
		echo "=== $name: FAIL"
		fail=1
	fi
}

stress() {	# stress PORT [rds-stress client options]
	local port=$1
	shift
	run timeout $((SECS + 30)) "$TOOLS/rds-stress" -r $IPB -p "$port" \
		> "$TMP/stress-srv.log" 2>&1 &
	local sp=$!
	sleep 1
	run timeout $((SECS + 30)) "$TOOLS/rds-stress" -r $IPA -s $IPB \
		-p "$port" -t "$TASKS" -d "$DEPTH" -T "$SECS" "$@" \
		> "$TMP/stress-cli.log" 2>&1
	local rc=$?
	wait $sp
	local src=$?
	grep -E '^ *tsks|average' "$TMP/stress-cli.log"
	[ $rc -eq 0 ] && [ $src -eq 0 ] || {
		tail -n 5 "$TMP/stress-cli.log" "$TMP/stress-srv.log"
		return 1
	}
}

step rds-ping run timeout 20 "$TOOLS/rds-ping" -c 5 -I $IPA $IPB
step rds-info run timeout 20 "$TOOLS/rds-info" -c -k -n
step "rds-stress (messages)" stress 4000
step "rds-stress (RDMA, 64 KiB)" stress 4001 -D 65536
cp "$TMP/stress-cli.log" "$TMP/stress-rdma.log"

# RDMA attached against in-process, in the same run.
PERF=$BUILD/app/rds-perf/rds-perf
if [ -x "$PERF" ]; then
	echo "=== rds-perf --mode rdma-write --size 65536, in-process"
	kill -STOP "$epid"
	"$PERF" -l 0 --no-pci --no-huge -m 512 --file-prefix "rdstools-perf$$" \
		--log-level=lib.eal:error -- --mode rdma-write --size 65536 \
		--tasks "$TASKS" --depth "$DEPTH" --secs "$SECS" \
		> "$TMP/perf-rdma.log" 2>&1
	grep -E '^MB/s' "$TMP/perf-rdma.log"
	kill -CONT "$epid"
	echo "=== rds-perf --attach --mode rdma-write --size 65536"
	"$PERF" --attach "$SOCK" --local $IPA --peer $IPB --mode rdma-write \
		--size 65536 --tasks "$TASKS" --depth "$DEPTH" --secs "$SECS" \
		> "$TMP/perf-att.log" 2>&1
	grep -E '^MB/s' "$TMP/perf-att.log"
	python3 - "$TMP/stress-rdma.log" "$TMP/perf-rdma.log" \
		"$TMP/perf-att.log" <<'PY'
import re, sys
stress = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in stress if re.match(r'^\s*\d+\s+\d', l)]
def mbs(f):
    m = re.search(r'^MB/s:\s+([0-9.]+)', open(f).read(), re.M)
    return float(m.group(1)) if m else None
p, att = mbs(sys.argv[2]), mbs(sys.argv[3])
if not rows or p is None:
    print("rdma: no figures (rds-stress rows %d, rds-perf %s)" %
          (len(rows), p))
    sys.exit(0)
tx = sorted(float(r[1]) for r in rows)[len(rows) // 2]
a = tx * 65536 / 1e6
print("rdma: rds-stress -D 65536 (attached) %.1f MB/s (median of %d "
      "rows: %.0f tx/s x 64 KiB), rds-perf rdma-write in-process %.1f "
      "MB/s: %.2fx" % (a, len(rows), tx, p, a / p))
if att is not None:
    print("rdma: rds-perf --attach rdma-write %.1f MB/s: %.2fx in-process"
          % (att, att / p))
PY
fi
[ $fail -eq 0 ] && echo "rds-tools: PASS" || echo "rds-tools: FAIL"
exit $fail
