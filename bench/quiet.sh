# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced by the benchmark scripts: wait for a quiet machine and log its
# noise, so that figures of one run can be read beside what else ran.
#
#   busy_now LIMIT   prints "name(pct%) ..." for every process that took
#                    more than LIMIT % of a core over the last second
#                    (those named in QUIET_SKIP, the benchmark's own, left
#                    out)
#   quiet [LABEL]    waits until nothing is over QUIET_PCT (for at most
#                    QUIET_WAIT s; QUIET_PCT=0: never waits), then appends
#                    a line to $OUT/noise.log: the time, LABEL, the load
#                    average, how long it waited, what was busy (over 10 %
#                    with QUIET_PCT=0)

: "${QUIET_SKIP:=python3 sleep timeout taskset}"

busy_now() {
	QUIET_SKIP="$QUIET_SKIP" python3 - "$1" <<'PY'
import os, sys, time
lim = float(sys.argv[1])
skip = set(os.environ.get("QUIET_SKIP", "").split())
def sample():
    d = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            t = open("/proc/%s/stat" % p).read()
        except OSError:
            continue
        name = t[t.index("(") + 1:t.rindex(")")]
        f = t[t.rindex(")") + 2:].split()
        d[p] = (name, int(f[11]) + int(f[12]))
    return d
a = sample(); time.sleep(1); b = sample()
hz = os.sysconf("SC_CLK_TCK")
out = []
for p, (name, t) in b.items():
    if p in a and name not in skip:
        pct = 100.0 * (t - a[p][1]) / hz
        if pct > lim:
            out.append((pct, name))
print(" ".join("%s(%.0f%%)" % (n, c) for c, n in sorted(out, reverse=True)))
PY
}

quiet() {
	local t0=$SECONDS busy
	while :; do
		busy=$(busy_now "$QUIET_PCT")
		if [ "$QUIET_PCT" = 0 ] || [ -z "$busy" ] ||
		   [ $((SECONDS - t0)) -ge "$QUIET_WAIT" ]; then
			[ "$QUIET_PCT" = 0 ] && busy=$(busy_now 10)
			echo "$(date +%T) ${1:+$1: }load $(cut -d' ' -f1-3 /proc/loadavg) waited $((SECONDS - t0)) s; busy: ${busy:-none}" >> "$OUT/noise.log"
			return
		fi
	done
}
