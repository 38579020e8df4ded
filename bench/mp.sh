#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# One engine for many processes (rds-engined), against the in-process
# library, in the same run: the figures of doc/rds-perf.md, section
# "Multi-process".
#
#   bench/mp.sh [BUILD_DIR]        (default: build)
#
# The engine busy-polls core 1 in every case, and the application thread
# runs on core 0:
#   in-process    rds-perf -l 0-1 --engine lcore (--transport loop): the
#                 application on lcore 0, the engine on lcore 1
#   attach/lcore  rds-engined -l 0-1 --idle busy (its engine on lcore 1;
#                 its main thread serves the UNIX socket, asleep in
#                 poll(2)), and taskset -c 0 rds-perf --attach
#   attach/inline rds-engined -l 1 --idle busy (the engine inline on its
#                 main thread, which looks at the UNIX socket once a ms),
#                 and taskset -c 0 rds-perf --attach
# and for reference in-process/inline: rds-perf -l 0 --engine inline (one
# thread plays both sides and the engine: no core crossing).
# Both engines run for the whole script; the one not in use, and both
# during the in-process runs, are stopped (SIGSTOP), so that nothing else
# of ours polls core 1. Runs interleave (run i of every case, then run
# i + 1), so that the machine's noise falls on all of them.
#
# Measured:
#   (a) lat, 64 B: RTT p50/p99, medians of RUNS runs, and cross-process
#       minus in-process (paired: the median of run i's differences)
#   (b) attach time: rds-bench-attach time, ATTACHES attaches (attach;
#       attach + socket + bind; close + detach), for each engine
#   (c) memory per attached client: CLIENTS rds-bench-attach hold
#       processes (two sockets each, HOLD_MSGS 1 KiB messages sent
#       through: none, then 1000),
#       the engine's memory before, with them and after (smaps: the
#       regions, DPDK's memory, the rest), the DPDK heap (telemetry
#       /eal/heap_info), and each client's region mapping
#   (d) stream, one way (STREAM_SIZES, default 32 B): msgs/s received,
#       medians, and attached / in-process (lcore engine), paired by run
#   (e) optional (PRELOAD=1, default): test/rxe/krds_pingpong under
#       librte_rds_preload.so (64 B), client and server in two processes
#       of their own, beside kernel UDP on loopback (rds-bench-sockpp,
#       64 B lat) in the same placement, run i of each one after the
#       other, blocking and --busy, in two layouts:
#         own     the engine on a core of its own: rds-engined -l 0-1
#                 --idle busy (engine on lcore 1), callers on core 0
#         shared  the engine on the callers' core: rds-engined -l 0
#                 --idle yield --idle-polls 1 (inline engine on core 0,
#                 yielding at its first empty pass), callers on core 0
#       and the ratio preload p50 / UDP p50 (the median of run i's
#       ratios). No kernel RDS baseline (no rds module in this machine).
#       --busy puts two (own) or three (shared) pollers on one core: each
#       hop waits for the scheduler, for both, so few round trips
#       (PP_ITERS_BUSY; PP_ITERS blocking).
#
# Environment: RUNS=5 SECS=2 ATTACHES=200 CLIENTS=32 PRELOAD=1
#   STREAM_SIZES="32" (sizes of (d), e.g. "64 65536")
#   PARTS="a b c e" (which parts run; d runs with a)
#   PP_ITERS=20000 PP_ITERS_BUSY=300 PP_LAYOUTS="own shared"
#   HOLD_MSGS="0 1000" (messages each holding client sends itself)
#   QUIET_PCT=20 QUIET_WAIT=60: before each measurement, wait up to
#   QUIET_WAIT s until no other process took more than QUIET_PCT % of a
#   core over the last second (0: never wait); noise.log says what ran
#   OUT=DIR (default /tmp/rds-mp.PID): results.jsonl, cmds.txt,
#   noise.log, summary.md (printed at the end).

set -u

BUILD=$(readlink -f "${1:-build}")
P=$BUILD/app/rds-perf/rds-perf
ENG=$BUILD/app/rds-engined/rds-engined
BA=$BUILD/bench/rds-bench-attach
PRE=$BUILD/lib/preload/librte_rds_preload.so
PP=$BUILD/test/rxe/krds_pingpong
RUNS=${RUNS:-5}
SECS=${SECS:-2}
ATTACHES=${ATTACHES:-200}
CLIENTS=${CLIENTS:-32}
PRELOAD=${PRELOAD:-1}
PARTS=${PARTS:-a b c e}
STREAM_SIZES=${STREAM_SIZES:-32}
PP_ITERS=${PP_ITERS:-20000}
PP_ITERS_BUSY=${PP_ITERS_BUSY:-300}
PP_LAYOUTS=${PP_LAYOUTS:-own shared}
SP=$BUILD/bench/rds-bench-sockpp
HOLD_MSGS=${HOLD_MSGS:-0 1000}
QUIET_PCT=${QUIET_PCT:-20}
QUIET_WAIT=${QUIET_WAIT:-60}
OUT=${OUT:-/tmp/rds-mp.$$}
IPA=10.9.0.1
IPB=10.9.0.2
EAL="--no-pci --no-huge -m 1024 --log-level=lib.eal:error"

for f in "$P" "$ENG" "$BA"; do
	[ -x "$f" ] || { echo "no $f (build first)" >&2; exit 2; }
done
mkdir -p "$OUT"
: > "$OUT/results.jsonl"
: > "$OUT/cmds.txt"
: > "$OUT/noise.log"
declare -A EPID ESOCK
HOLD=()

cleanup() {
	local p
	for p in "${HOLD[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${EPID[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap cleanup EXIT

log_cmd() { echo "$*" >> "$OUT/cmds.txt"; }

# busy_now and quiet (bench/quiet.sh), the benchmark's own processes
# left out.
HERE=$(dirname "$(readlink -f "$0")")
QUIET_SKIP="rds-perf rds-engined rds-bench-attac rds-bench-sockp krds_pingpong mp.sh python3 sleep timeout taskset"
. "$HERE/quiet.sh"

# has PART: is PART in PARTS?
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

# engine NAME EAL_LCORES [IDLE]: start rds-engined, wait for its socket,
# stop it.
engine() {
	local name=$1 lcores=$2 sock=$OUT/$1.sock
	local cmd="$ENG -l $lcores $EAL --file-prefix mp$1$$ -- --addr $IPA=loop --addr $IPB=loop --listen $sock --idle ${3:-busy}"
	log_cmd "engine $name: $cmd"
	$cmd > "$OUT/engine-$name.log" 2>&1 &
	EPID[$name]=$!
	ESOCK[$name]=$sock
	for _ in $(seq 100); do
		[ -S "$sock" ] && break
		sleep 0.1
	done
	[ -S "$sock" ] || { echo "rds-engined ($name) did not come up:" >&2;
			    cat "$OUT/engine-$name.log" >&2; exit 1; }
	kill -STOP "${EPID[$name]}"
}

# only NAME|none: the engine NAME runs, the others are stopped.
only() {
	local n
	for n in "${!EPID[@]}"; do
		if [ "$n" = "$1" ]; then
			kill -CONT "${EPID[$n]}"
		else
			kill -STOP "${EPID[$n]}"
		fi
	done
	sleep 0.2
}

# run CASE MODEARGS RUN: one rds-perf run -> a line of results.jsonl.
run() {
	local cs=$1 margs=$2 i=$3 cmd
	case $cs in
	in-lcore) only none
		cmd="$P -l 0-1 $EAL --file-prefix mpp$$ -- --engine lcore" ;;
	in-inline) only none
		cmd="$P -l 0 $EAL --file-prefix mpp$$ -- --engine inline" ;;
	at-lcore) only lcore
		cmd="taskset -c 0 $P --attach ${ESOCK[lcore]} --local $IPA --peer $IPB" ;;
	at-inline) only inline
		cmd="taskset -c 0 $P --attach ${ESOCK[inline]} --local $IPA --peer $IPB" ;;
	esac
	cmd="$cmd $margs --secs $SECS --json"
	log_cmd "$cs run $i: $cmd"
	quiet "$cs run $i"
	local j
	j=$(timeout 300 $cmd 2> "$OUT/err.log" | tail -1)
	if [ "${j:0:1}" != "{" ]; then
		echo "FAILED: $cs run $i: $cmd" >&2
		cat "$OUT/err.log" >&2
		j='{"failed":true}'
	fi
	echo "{\"case\":\"$cs\",\"m\":\"${margs// /}\",\"run\":$i,\"r\":$j}" >> "$OUT/results.jsonl"
	printf '%s %s run %s: %s\n' "$cs" "$margs" "$i" "$j"
}

engine lcore 0-1
engine inline 1
if has e && [ "$PRELOAD" = 1 ]; then
	case " $PP_LAYOUTS " in *" shared "*) engine shared 0 "yield --idle-polls 1" ;; esac
fi

has a && echo "== (a) lat 64 B and (d) stream $STREAM_SIZES B, $RUNS runs of $SECS s each"
has a && for i in $(seq 1 "$RUNS"); do
	for cs in in-lcore at-lcore at-inline in-inline; do
		run $cs "--mode lat --size 64" "$i"
		for sz in $STREAM_SIZES; do
			run $cs "--mode stream --size $sz" "$i"
		done
	done
done

has b && echo "== (b) attach time, $ATTACHES attaches"
has b && for n in lcore inline; do
	only $n
	cmd="taskset -c 0 $BA time ${ESOCK[$n]} $IPA $ATTACHES"
	quiet "attach $n"
	log_cmd "attach $n: $cmd"
	$cmd | tee "$OUT/attach-$n.txt"
done

# mem PID: the engine's memory, as JSON (KiB, and the DPDK heap's bytes).
mem() {
	python3 - "$1" "$OUT/$2.tel" <<'PY'
import json, os, socket, sys
pid, tel = sys.argv[1], sys.argv[2]
cat = {"region": 0, "dpdk": 0, "anon": 0, "file": 0}
n_reg = 0
cur = None
for l in open("/proc/%s/smaps" % pid):
    f = l.split()
    if not f[0].endswith(":") and "-" in f[0]:
        name = f[5] if len(f) > 5 else ""
        if "rds-region" in l:
            cur = "region"; n_reg += 1
        elif "nohuge" in l or "rte" in name or "dpdk" in name:
            cur = "dpdk"
        elif name == "" or name.startswith("["):
            cur = "anon"
        else:
            cur = "file"
    elif f[0] == "Rss:":
        cat[cur] += int(f[1])
st = {}
for l in open("/proc/%s/status" % pid):
    k, v = l.split(":", 1)
    if k in ("VmRSS", "RssAnon", "RssShmem", "RssFile"):
        st[k] = int(v.split()[0])
heap = {}
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(tel)
    s.recv(65536)
    s.send(b"/eal/heap_info,0")
    heap = json.loads(s.recv(65536).decode())["/eal/heap_info"]
except Exception as e:
    heap = {"error": str(e)}
print(json.dumps({"regions": n_reg, "rss_kib": cat, "status_kib": st,
                  "heap_alloc": heap.get("Alloc_size"),
                  "heap_count": heap.get("Alloc_count")}))
PY
}

has c && echo "== (c) memory per attached client, $CLIENTS clients"
has c && for n in lcore inline; do
for msgs in $HOLD_MSGS; do
	only $n
	pid=${EPID[$n]}
	tel=/var/run/dpdk/mp$n$$/dpdk_telemetry.v2
	[ -S "$tel" ] || tel=$XDG_RUNTIME_DIR/dpdk/mp$n$$/dpdk_telemetry.v2
	ln -sf "$tel" "$OUT/$n.tel"
	quiet "memory $n"
	before=$(mem "$pid" "$n")
	log_cmd "memory $n: $CLIENTS x $BA hold ${ESOCK[$n]} $IPA $IPB $msgs"
	HOLD=()
	for c in $(seq 1 "$CLIENTS"); do
		"$BA" hold "${ESOCK[$n]}" $IPA $IPB "$msgs" > "$OUT/hold-$c.log" 2>&1 &
		HOLD+=($!)
	done
	for c in $(seq 1 "$CLIENTS"); do
		for _ in $(seq 300); do
			grep -q ready "$OUT/hold-$c.log" 2>/dev/null && break
			sleep 0.1
		done
		grep -q ready "$OUT/hold-$c.log" ||
			{ echo "client $c not ready:" >&2; cat "$OUT/hold-$c.log" >&2; }
	done
	sleep 0.5
	with=$(mem "$pid" "$n")
	region=$(sed -n 's/^region \([0-9]*\) KiB/\1/p' "$OUT/hold-1.log")
	for p in "${HOLD[@]}"; do kill "$p"; done
	wait "${HOLD[@]}" 2>/dev/null
	HOLD=()
	sleep 1.5
	after=$(mem "$pid" "$n")
	echo "{\"case\":\"mem-$n\",\"msgs\":$msgs,\"clients\":$CLIENTS,\"client_region_kib\":${region:-0},\"before\":$before,\"with\":$with,\"after\":$after}" >> "$OUT/results.jsonl"
	echo "$n: before $before"
	echo "$n: with   $with"
	echo "$n: after  $after"
done
done

# pp_run LAYOUT MODE RUN: krds_pingpong under the preload, then kernel
# UDP (rds-bench-sockpp) in the same placement -> two lines of
# results.jsonl.
pp_run() {
	local lay=$1 mode=$2 i=$3 eng cpus iters s c p50 p99 j
	case $lay in
	own) eng=lcore ;;
	shared) eng=shared ;;
	esac
	cpus=0
	iters=$PP_ITERS
	[ -n "$mode" ] && iters=$PP_ITERS_BUSY
	only $eng
	s="env RTE_RDS_ENGINE=${ESOCK[$eng]} LD_PRELOAD=$PRE taskset -c $cpus $PP server $IPB --no-pin $mode --wait 30"
	c="env RTE_RDS_ENGINE=${ESOCK[$eng]} LD_PRELOAD=$PRE taskset -c $cpus $PP client $IPA $IPB --no-pin $mode --iters $iters --wait 30"
	log_cmd "preload-$lay$mode run $i: server: $s"
	log_cmd "preload-$lay$mode run $i: client: $c"
	quiet "preload $lay$mode run $i"
	$s > "$OUT/pp-s.log" 2>&1 &
	sp=$!
	timeout 120 $c > "$OUT/pp-c.log" 2>&1
	wait $sp
	p50=$(sed -n 's/^rtt p50: *\([0-9]*\) ns/\1/p' "$OUT/pp-c.log")
	p99=$(sed -n 's/^rtt p99: *\([0-9]*\) ns/\1/p' "$OUT/pp-c.log")
	[ -n "$p50" ] || { echo "FAILED: preload $lay$mode run $i:" >&2; cat "$OUT/pp-c.log" >&2; }
	echo "{\"case\":\"preload-$lay${mode:+-busy}\",\"m\":\"lat64\",\"run\":$i,\"r\":{\"rtt_ns_p50\":${p50:-null},\"rtt_ns_p99\":${p99:-null}}}" >> "$OUT/results.jsonl"
	echo "preload $lay${mode:+ busy} run $i: p50 ${p50:-?} ns p99 ${p99:-?} ns"
	# Kernel UDP on loopback, the same cores (the engine still up: it
	# shares the machine as it did).
	s="$SP --role server --local 127.0.0.1 --port 18790 --cpu $cpus"
	c="$SP --role client --local 127.0.0.1 --peer 127.0.0.1 --port 18790 --cpu $cpus --proto udp --mode lat --size 64 --secs $SECS $mode --json"
	log_cmd "udp-$lay$mode run $i: server: $s"
	log_cmd "udp-$lay$mode run $i: client: $c"
	$s > "$OUT/sp-s.log" 2>&1 &
	sp=$!
	sleep 0.2
	j=$(timeout 120 $c 2> "$OUT/err.log" | tail -1)
	wait $sp
	if [ "${j:0:1}" != "{" ]; then
		echo "FAILED: udp $lay$mode run $i: $c" >&2
		cat "$OUT/err.log" >&2
		j='{"failed":true}'
	fi
	echo "{\"case\":\"udp-$lay${mode:+-busy}\",\"m\":\"lat64\",\"run\":$i,\"r\":$j}" >> "$OUT/results.jsonl"
	echo "udp $lay${mode:+ busy} run $i: $j"
}

if has e && [ "$PRELOAD" = 1 ] && [ -e "$PRE" ] && [ -x "$PP" ] && [ -x "$SP" ]; then
	echo "== (e) krds_pingpong under the preload beside kernel UDP ($PP_LAYOUTS)"
	for i in $(seq 1 "$RUNS"); do
		for lay in $PP_LAYOUTS; do
			for mode in "" "--busy"; do
				pp_run "$lay" "$mode" "$i"
			done
		done
	done
fi
only none

python3 - "$OUT" "$RUNS" "$SECS" "$ATTACHES" "$STREAM_SIZES" <<'PY' | tee "$OUT/summary.md"
import json, re, statistics as st, sys
out, runs, secs, natt, ssz = sys.argv[1:6]
ssz = ssz.split()
rows = [json.loads(l) for l in open(out + "/results.jsonl")]
def v(cs, m, key):
    return {r["run"]: r["r"][key] for r in rows if r["case"] == cs and
            r.get("m") == m and key in r.get("r", {})
            and r["r"][key] is not None}
def med(d):
    return st.median(d.values()) if d else None
names = {"in-lcore": "in-process, engine on lcore 1 (rds-perf --engine lcore)",
         "at-lcore": "cross-process, rds-engined -l 0-1 (engine on lcore 1)",
         "at-inline": "cross-process, rds-engined -l 1 (engine inline, core 1)",
         "in-inline": "in-process, engine inline (one thread, reference)",
}
lat = "--modelat--size64"
streams = ["--modestream--size" + z for z in ssz]
print("## rds-engined against in-process: medians of %s runs of %s s\n" % (runs, secs))
print("| path | lat 64 B RTT p50 | p99 | p50 - in-process (paired) | %s |" %
      " | ".join("stream %s B msgs/s (/ in-process, paired)" % z for z in ssz))
print("|---|---|---|---|%s" % ("---|" * len(ssz)))
base = v("in-lcore", lat, "rtt_ns_p50")
for cs in ["in-lcore", "at-lcore", "at-inline", "in-inline"]:
    m = lat
    p50, p99 = v(cs, m, "rtt_ns_p50"), v(cs, m, "rtt_ns_p99")
    if not p50:
        continue
    scol = []
    for stream in streams:
        s = v(cs, stream, "msgs_per_s")
        sb = v("in-lcore", stream, "msgs_per_s")
        r = [s[i] / sb[i] for i in s if i in sb and sb[i]]
        scol.append((("%.2f M" % (med(s) / 1e6) if med(s) >= 1e5 else "%.1f K" % (med(s) / 1e3)) if s else "") +
                    (" (%.2fx)" % st.median(r) if r and cs.startswith("at") else ""))
    d = [p50[i] - base[i] for i in p50 if i in base]
    diff = "%+.0f ns" % st.median(d) if d and cs.startswith("at") else ""
    nrun = sum(1 for r in rows if r["case"] == cs and r.get("m") == m)
    bad = nrun - len(p50)
    print("| %s%s | %.0f ns | %.0f ns | %s | %s |" % (
        names[cs], " (%d of %d runs failed)" % (bad, nrun) if bad else "",
        med(p50), med(p99), diff, " | ".join(scol)))
lays = {"own": "engine on its own core (rds-engined -l 0-1, lcore 1), callers on core 0",
        "shared": "engine on the callers' core (rds-engined -l 0 --idle yield --idle-polls 1), callers on core 0"}
pp = [(l, b) for l in lays for b in ("", "-busy")
      if v("preload-" + l + b, "lat64", "rtt_ns_p50") or v("udp-" + l + b, "lat64", "rtt_ns_p50")]
if pp:
    print("\n## krds_pingpong under the preload against kernel UDP on loopback, 64 B (medians of %s runs)\n" % runs)
    print("| layout | receive | preload RTT p50 | p99 | UDP RTT p50 | p99 | preload / UDP p50 (paired) |")
    print("|---|---|---|---|---|---|---|")
    for l, b in pp:
        a50, a99 = v("preload-" + l + b, "lat64", "rtt_ns_p50"), v("preload-" + l + b, "lat64", "rtt_ns_p99")
        u50, u99 = v("udp-" + l + b, "lat64", "rtt_ns_p50"), v("udp-" + l + b, "lat64", "rtt_ns_p99")
        r = [a50[i] / u50[i] for i in a50 if i in u50 and u50[i]]
        f = lambda d: "%.0f ns" % med(d) if d else "failed"
        print("| %s | %s | %s | %s | %s | %s | %s |" % (lays[l], "busy-poll" if b else "blocking",
              f(a50), f(a99), f(u50), f(u99), "%.2fx (%s)" % (st.median(r), ", ".join("%.2f" % x for x in r)) if r else ""))
print("\n## attach (rds-bench-attach time, %s attaches, p50)\n" % natt)
for n in ("lcore", "inline"):
    try:
        t = open("%s/attach-%s.txt" % (out, n)).read()
    except OSError:
        continue
    print("- engine %s: %s" % (n, t.strip().splitlines()[-1]))
print("\n## memory per attached client\n")
for r in rows:
    if not r["case"].startswith("mem-"):
        continue
    b, w, a, n = r["before"], r["with"], r["after"], r["clients"]
    def per(k):
        return (w["rss_kib"][k] - b["rss_kib"][k]) / n
    hb, hw = b.get("heap_alloc"), w.get("heap_alloc")
    print("- %s, %d msgs each: %d clients; per client: RSS %+.0f KiB (regions %+.0f, DPDK memory %+.0f, anon %+.0f); DPDK heap %s; region mapped %d KiB per client (%d regions mapped with them, %d after); VmRSS before/with/after %d/%d/%d KiB" % (
        r["case"], r["msgs"], n, (w["status_kib"]["VmRSS"] - b["status_kib"]["VmRSS"]) / n,
        per("region"), per("dpdk"), per("anon"),
        "%+.0f B" % ((hw - hb) / n) if hb is not None and hw is not None else "n/a",
        r["client_region_kib"], w["regions"], a["regions"],
        b["status_kib"]["VmRSS"], w["status_kib"]["VmRSS"], a["status_kib"]["VmRSS"]))
nl = open(out + "/noise.log").read().splitlines()
loads = [float(re.search(r": load ([0-9.]+)", l).group(1)) for l in nl]
waits = [int(re.search(r" waited ([0-9]+) s", l).group(1)) for l in nl]
noisy = sum(1 for l in nl if not l.endswith("busy: none"))
if loads:
    print("\nmachine noise: 1-min load average %.2f-%.2f (median %.2f) at the measurements' starts; waited %d s in all for quiet; %d of %d started with another process over the threshold (noise.log)" % (
        min(loads), max(loads), st.median(loads), sum(waits), noisy, len(nl)))
print("\ncommands: %s/cmds.txt" % out)
PY
