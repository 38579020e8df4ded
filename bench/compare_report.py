#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
#
# The report of bench/compare.sh: compare_report.py OUT ROOT WRITE_DOC
# reads OUT/results.jsonl, OUT/machine.txt, OUT/noise.log, OUT/scale/ and
# OUT/ib.log, prints OUT/summary.md (the tables, medians over the runs),
# draws OUT/img/compare-*.png (RTT CDFs, one a family, with gnuplot) and,
# with WRITE_DOC=1, copies them to ROOT/doc/img/ and replaces the section
# of ROOT/doc/perf.md between BEGIN and END below (appended when absent).

import glob, json, os, re, shutil, statistics, subprocess, sys

BEGIN, END = "<!-- compare:begin -->", "<!-- compare:end -->"
out, root, write_doc = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
rows = [json.loads(l) for l in open(out + "/results.jsonl") if l.strip()]
mach = dict(l.rstrip("\n").split("=", 1) for l in open(out + "/machine.txt") if "=" in l)

# path -> (label, floor path, kernel UDP reference prefix)
PATHS = [
    ("loop", "RDS, loop transport (rds-perf, engine on lcore 1)", "loop_floor", "klo_udp"),
    ("loop_floor", "floor: raw rte_ring (ping-pong x 4/2; one thread, bursts of 32)", None, None),
    ("ring", "RDS, eth over net_ring, one thread (rds-bench-eth)", "ring_floor", "klo_udp"),
    ("ring_floor", "floor: raw frames over net_ring (rds-bench-eth --raw)", None, None),
    ("memif", "RDS, eth over net_memif (rds-perf, 2 processes)", "memif_floor", "klo_udp"),
    ("memif_floor", "floor: raw frames over net_memif (rds-perf --raw)", None, None),
    ("af_packet", "RDS, eth over net_af_packet, veth pair", "af_packet_floor", "kveth_udp"),
    ("af_packet_floor", "floor: raw frames over net_af_packet (rds-perf --raw)", None, None),
]
for net, where in (("klo", "loopback"), ("kveth", "veth pair")):
    for proto in ("udp", "tcp"):
        for b, bl in (("block", "blocking"), ("busy", "busy-poll")):
            PATHS.append(("%s_%s_%s" % (net, proto, b),
                          "kernel %s, %s, %s (rds-bench-sockpp)" % (proto.upper(), where, bl),
                          None, None))

def fig(path, case, run_r):
    """The figures of one measurement: rtt50, rtt99, rate, mbps."""
    r = run_r
    if r.get("failed"):
        return {}
    f = {}
    if path == "loop_floor":
        if "raw_ring_mops" in r:
            # (pointers through the ring, nothing copied: no MB/s)
            if r["size"] == 64:
                f["rate"] = r["raw_ring_mops"] * 1e6
        return f
    if path.startswith("ring"):
        if r.get("ns_per_msg_median"):
            f["rate"] = 1e9 / r["ns_per_msg_median"]
            f["mbps"] = f["rate"] * r["size"] / 1e6
            f["ns"] = r["ns_per_msg_median"]
        return f
    if r.get("errors", 0) and case != "lat64" and not path.startswith("k"):
        return {}
    if case == "lat64":
        for k, n in (("rtt_ns_p50", "rtt50"), ("rtt_ns_p99", "rtt99"), ("msgs_per_s", "rtps")):
            if k in r:
                f[n] = r[k]
    else:
        if "msgs_per_s" in r:
            f["rate"] = r["msgs_per_s"]
            f["mbps"] = r["mb_per_s"]
    return f

def values(path, case, key):
    v = []
    for x in rows:
        if x["path"] == path and x["case"] == case:
            f = fig(path, case, x["r"])
            if key in f:
                v.append(f[key])
    # the loop's RTT floor comes from the loop runs (--raw-ring-pp)
    if path == "loop_floor" and case == "lat64":
        k = {"rtt50": "raw_ring_pp_floor_ns_p50", "rtt99": "raw_ring_pp_floor_ns_p99"}.get(key)
        v = [x["r"][k] for x in rows if x["path"] == "loop" and x["case"] == "lat64"
             and k and k in x["r"]]
    return v

def med(path, case, key):
    v = values(path, case, key)
    return statistics.median(v) if v else None

def figs(path):
    return {"rtt50": med(path, "lat64", "rtt50"), "rtt99": med(path, "lat64", "rtt99"),
            "rate": med(path, "stream64", "rate"), "mbps": med(path, "stream64k", "mbps")}

def num(x, prec=0):
    if x is None:
        return "-"
    if prec == 0:
        return "{:,.0f}".format(x)
    return "{:,.{p}f}".format(x, p=prec)

def ratio(a, b, invert=False):
    if a is None or b is None or not b:
        return None
    return a / b

def rtxt(parts):
    t = [("%s %.2fx" if q >= 0.1 else "%s %.3fx") % (n, q) for n, q in parts if q is not None]
    return ", ".join(t) if t else "-"

present = {x["path"] for x in rows}
nruns = max([x["run"] for x in rows] or [0])
lines = []
p = lines.append
p("Medians of %d runs of %s s each (%s); RTT: 64 B `--mode lat`, p50 and p99 in ns; "
  "msgs/s: 64 B one way, counted by the receiver; MB/s: 64 KiB one way (kernel UDP: "
  "65,507 B). Ratios: this path's median over its floor's, and over kernel UDP "
  "blocking / busy-poll on the same network (loopback for loop, net_ring and memif; "
  "the veth pair for af_packet): RTT ratios above 1 are slower, rate ratios above 1 "
  "faster. `-`: not measured on that path." % (nruns, mach.get("secs", "?"),
                                               "runs interleaved, every other run in reverse order"))
p("")
def cg_ir(log):
    try:
        return int(re.search(r"Collected : (\d+)", open(log).read()).group(1))
    except Exception:
        return None

def instr(path):
    """Instructions per 64 B message one way (callgrind), or None."""
    if path == "loop":
        for d in (out + "/scale", out + "/instr/core"):
            a, b = cg_ir("%s/cg.0.20000.log" % d), cg_ir("%s/cg.0.40000.log" % d)
            if a is not None and b is not None:
                return (b - a) / 20000.0
        return None
    if path == "ring":
        ir = cg_ir(out + "/instr/eth.1.log")
        return ir / 21000.0 if ir is not None else None  # 20,000 + 1,000 warm-up steps
    return None

def instr32():
    ir = cg_ir(out + "/instr/eth.32.log")
    return ir / (3000.0 * 32) if ir is not None else None

p("| path | RTT p50 | RTT p99 | msgs/s 64 B | MB/s 64 KiB | instructions/msg | vs its floor | vs kernel UDP blocking | vs kernel UDP busy-poll |")
p("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |")
for path, label, floor, kref in PATHS:
    if path not in present and not (path == "loop_floor" and "loop" in present):
        continue
    f = figs(path)
    cols = [label, num(f["rtt50"]), num(f["rtt99"]), num(f["rate"]), num(f["mbps"], 1),
            num(instr(path), 1)]
    if floor:
        g = figs(floor)
        cols.append(rtxt([("p50", ratio(f["rtt50"], g["rtt50"])),
                          ("64 B", ratio(f["rate"], g["rate"])),
                          ("64 KiB", ratio(f["mbps"], g["mbps"]))]))
    else:
        cols.append("")
    for suffix in ("block", "busy"):
        if kref and (kref + "_" + suffix) in present:
            k = figs(kref + "_" + suffix)
            cols.append(rtxt([("p50", ratio(f["rtt50"], k["rtt50"])),
                              ("64 B", ratio(f["rate"], k["rate"])),
                              ("64 KiB", ratio(f["mbps"], k["mbps"]))]))
        else:
            cols.append("")
    p("| " + " | ".join(cols) + " |")
p("")
p("instructions/msg: callgrind, 64 B one way (loop: `bench/core.sh` PARTS=cg, case 0; "
  "net_ring: `rds-bench-eth` one at a time, retransmit timers out; in bursts of 32: %s). "
  "memif and af_packet run net_ring's driver code (and their PMD's own); two processes "
  "are not counted. `-`: not counted (valgrind missing, or the path has none)." %
  num(instr32(), 1))
fails = [x for x in rows if x["r"].get("failed")]
p("")
p("Failed measurements: %d%s" % (len(fails), "".join(
    " (%s %s run %d)" % (x["path"], x["case"], x["run"]) for x in fails)))
if "ring" in present:
    p("")
    p("net_ring has no round trip: one thread sends, polls the engine and receives, "
      "so msgs/s is 1 / (time per message): %s ns (RDS) against %s ns (raw) for 64 B." % (
          num(med("ring", "stream64", "ns"), 1), num(med("ring_floor", "stream64", "ns"), 1)))

# ---- scale (bench/core.sh's files)
sc = out + "/scale"
if os.path.isdir(sc):
    cases = ["0", "100", "1000", "10000", "60000", "p4", "p16", "p64"]
    def ipm(c):
        def ir(n):
            try:
                t = open("%s/cg.%s.%d.log" % (sc, c, n)).read()
                return int(re.search(r"Collected : (\d+)", t).group(1))
            except Exception:
                return None
        logs = glob.glob("%s/cg.%s.*.log" % (sc, c))
        ns = sorted(int(x.split(".")[-2]) for x in logs)
        if len(ns) < 2 or ir(ns[0]) is None or ir(ns[1]) is None:
            return None
        return (ir(ns[1]) - ir(ns[0])) / ns[0]
    def tpm(c, k="ns_per_msg_median"):
        v = []
        for fn in glob.glob("%s/time.%s.*.json" % (sc, c)):
            try:
                v.append(json.loads(open(fn).read())[k])
            except Exception:
                pass
        return statistics.median(v) if v else None
    base_i, base_t = ipm("0"), tpm("0")
    p("")
    p("Scale: the inline loop over loop (`rds-bench-core`, one thread: send 64 B, "
      "poll the engine, receive), per message; instructions by callgrind "
      "((Ir(2N) - Ir(N)) / N), time the median of %d runs (one process a case "
      "and run, cases round-robin); the floor is the same loop through a plain "
      "rte_ring, timed in the same runs." % nruns)
    p("")
    p("| case | sockets | connections carrying the messages | instructions/msg | x case 1 | ns/msg | x case 1 | floor ns/msg |")
    p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for c in cases:
        i, t = ipm(c), tpm(c)
        if i is None and t is None:
            continue
        if c.startswith("p"):
            name, socks, conns = "%s peers" % c[1:], 1 + int(c[1:]), c[1:]
        else:
            name = "1 pair + %s idle sockets" % c if c != "0" else "1 pair (case 1)"
            socks, conns = 2 + int(c), "1"
        p("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, num(socks), conns, num(i, 1),
            "%.2fx" % (i / base_i) if i and base_i else "-", num(t, 1),
            "%.2fx" % (t / base_t) if t and base_t else "-",
            num(tpm(c, "floor_ns_per_msg_median"), 1)))

# ---- noise
loads, waits, busy = [], [], {}
for l in open(out + "/noise.log"):
    m = re.search(r"load (\S+) \S+ \S+ waited (\d+) s; busy: (.*)", l)
    if m:
        loads.append(float(m.group(1)))
        waits.append(int(m.group(2)))
        for n, pct in re.findall(r"(\S+)\(([\d.]+)%\)", m.group(3)):
            busy[n] = max(busy.get(n, 0.0), float(pct))
for d in glob.glob(out + "/eth.*/noise.log"):
    for l in open(d):
        m = re.search(r"load (\S+) \S+ \S+ waited (\d+) s", l)
        if m:
            loads.append(float(m.group(1)))
            waits.append(int(m.group(2)))
noise = "-"
qenv = dict(kv.split("=", 1) for kv in mach.get("quiet", "").split() if "=" in kv)
if loads:
    noise = ("1-min load average %.2f-%.2f (median %.2f) at the %d measurements' starts; "
             "waited for quiet (bench/quiet.sh, no other process over %s %% of a core, at most "
             "%s s each) %d s in all; busiest others at a start: %s" % (
                 min(loads), max(loads), statistics.median(loads), len(loads),
                 qenv.get("QUIET_PCT", "?"), qenv.get("QUIET_WAIT", "?"),
                 sum(waits), ", ".join("%s (%.0f%%)" % kv for kv in sorted(
                     busy.items(), key=lambda kv: -kv[1])[:6]) or "none"))

# ---- --vm
ib = []
if os.path.exists(out + "/ib.log"):
    t = open(out + "/ib.log").read().splitlines()
    k = [i for i, l in enumerate(t) if l.startswith("==== bench-ib summary")]
    ib = t[k[0]:] if k else ["(bench-ib.sh printed no summary; last lines:)"] + t[-15:]

# ---- plots
FAMILIES = [
    ("loop", "loop transport and kernel loopback UDP", ["loop", "klo_udp_block", "klo_udp_busy"]),
    ("memif", "net_memif: RDS and raw frames", ["memif", "memif_floor", "klo_udp_busy"]),
    ("veth", "veth pair: net_af_packet and kernel sockets",
     ["af_packet", "af_packet_floor", "kveth_udp_block", "kveth_udp_busy", "kveth_tcp_block", "kveth_tcp_busy"]),
    ("kernel-lo", "kernel sockets over loopback",
     ["klo_udp_block", "klo_udp_busy", "klo_tcp_block", "klo_tcp_busy"]),
]
label = {pp: l for pp, l, _, _ in PATHS}
os.makedirs(out + "/img", exist_ok=True)
pngs = []
have_gp = shutil.which("gnuplot") is not None
for name, title, members in FAMILIES:
    curves = []
    for m in members:
        runs = [(x["r"].get("rtt_ns_p50"), x["run"]) for x in rows
                if x["path"] == m and x["case"] == "lat64" and "rtt_ns_p50" in x["r"]
                and os.path.exists("%s/cdf.%s.lat64.%d.txt" % (out, m, x["run"]))]
        if not runs:
            continue
        runs.sort()
        r = runs[len(runs) // 2][1]	# the run of the median p50
        curves.append(("%s/cdf.%s.lat64.%d.txt" % (out, m, r), "%s (run %d)" % (label[m], r)))
    if not curves or not have_gp:
        continue
    png = "%s/img/compare-%s.png" % (out, name)
    cmd = ("set terminal png size 1000,600 noenhanced; set output '%s'; set logscale x; "
           "set xlabel 'RTT, ns (full round trip, 64 B)'; set ylabel 'fraction of round trips'; "
           "set key bottom right; set grid; set yrange [0:1]; set title 'RTT CDF: %s'; plot %s" % (
               png, title, ", ".join("'%s' using 1:2 with lines lw 2 title '%s'" % (f, t.replace("'", ""))
                                     for f, t in curves)))
    if subprocess.run(["gnuplot", "-e", cmd]).returncode == 0:
        pngs.append((name, title, png))
if not have_gp:
    lines.append("\n(gnuplot is missing: no CDF plots; Debian: apt-get install gnuplot-nox)")

summary = "\n".join(lines)
cmds = [l.rstrip() for l in open(out + "/cmds.txt")]
open(out + "/summary.md", "w").write(summary + "\n\nmachine noise: " + noise + "\n" +
                                     ("\n".join(ib) + "\n" if ib else ""))
print(summary)
print("\nmachine noise: " + noise)
if ib:
    print("\n".join(ib))
print("\nfiles in %s (commands: cmds.txt; plots: img/)" % out)

if write_doc:
    img = os.path.join(root, "doc", "img")
    os.makedirs(img, exist_ok=True)
    for name, title, png in pngs:
        shutil.copy(png, os.path.join(img, os.path.basename(png)))
    # the command templates of run 1 (one a kind), PIDs and paths generalised
    seen, tmpl = set(), []
    for c in cmds:
        c = re.sub(r"/tmp/rds-compare\.\d+|" + re.escape(out), "OUT", c)
        c = c.replace(root + "/", "").replace(os.path.realpath(root) + "/", "")
        c = re.sub(r"(cmp|ecs|ecc|core)\d+", r"\1PID", c)
        c = re.sub(r"(/tmp/rds-eth-compare)\.\d+", r"\1.PID", c)
        c = re.sub(r"(server|client):  +", r"\1: ", c)
        c = re.sub(r"\.\d+\.txt", ".RUN.txt", c)
        c = re.sub(r"eth\.(\w+)\.\d+", r"eth.\1.RUN", c)
        if c not in seen and not re.match(r"\S+ \S+ raw=\d run=\d+$", c):
            seen.add(c)
            tmpl.append(c)
    sec = [BEGIN, "", "## Comparison: every path against its floor and kernel sockets", "",
           "`bench/compare.sh BUILD_DIR [--vm] [--runs N] [--secs S] [--out DIR] [--write-doc]` "
           "(its header has every option; `ninja -C build bench-compare` runs it with the "
           "defaults) measures every path of this machine in one run and rewrites this "
           "section with `--write-doc`: the figures below are that run's.", "",
           "### Machine", "",
           "* %s, %s cores (`nproc`), %s, kernel %s" % (mach.get("cpu"), mach.get("cores"),
                                                     mach.get("mem"), mach.get("kernel")),
           "* measured %s at commit %s: `%s bench/compare.sh %s`" % (
               mach.get("date"), mach.get("commit"), mach.get("quiet", ""),
               mach.get("args", "")),
           "* load: %s (1/5/15-min load average at the start %s, at the end %s)" % (
               noise, mach.get("load_start"), mach.get("load_end")), "",
           "### Figures", "", summary, ""]
    if ib:
        sec += ["### ib over rxe (`--vm`, test/rxe/bench-ib.sh)", "", "```"] + ib + ["```", ""]
    else:
        sec += ["`--vm` (ib over rxe against ib_send_lat/ib_send_bw and the kernel's RDS, "
                "test/rxe/bench-ib.sh) was not part of this run; its figures are in "
                "[ib.md](ib.md).", ""]
    if pngs:
        sec += ["### RTT CDFs (64 B, the run of the median p50 of each path)", ""]
        sec += ["![%s](img/%s)" % (t, os.path.basename(f)) for _, t, f in pngs] + [""]
    sec += ["### Commands", "", "Every command of the run, one of each kind (OUT: the "
            "output directory; PID: the script's; RUN: the run's number):", "", "```sh"] + \
           tmpl + ["```", "", END]
    doc = os.path.join(root, "doc", "perf.md")
    t = open(doc).read()
    new = "\n".join(sec)
    if BEGIN in t and END in t:
        t = t[:t.index(BEGIN)] + new + t[t.index(END) + len(END):]
    else:
        t = t.rstrip("\n") + "\n\n" + new + "\n"
    open(doc, "w").write(t)
    print("wrote %s and %d plots in %s" % (doc, len(pngs), img))
