#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rds-perf with a size list and --tasks 2 over loop (suite 'loop').

Runs rds-perf briefly (no timing is asserted) and checks its JSON lines:
one per size, in the order given, each with its size, nonzero messages,
tasks 2, no errors, and p50 <= p90 <= p99 <= p99.9 <= max where there are
RTTs; the --histogram file holds one CDF block per size ending at 1;
--progress writes its line on stderr, never into stdout's JSON;
--rds-stress-columns prints rds-stress's header and a row per size that
agrees with the JSON; over
eth (net_memif, two processes) the client's size list is served run
after run by one server, over RDS and as plain frames (--raw).
Usage: perf_sizes.py PATH/TO/rds-perf
"""
import json
import os
import subprocess
import sys
import tempfile

PERF = sys.argv[1]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def run(tag, eal, args):
    cmd = [PERF] + eal + ["--no-pci", "--no-huge", "-m", "512",
                          "--file-prefix=perfsz%d%s" % (os.getpid(), tag),
                          "--"] + args + ["--json"]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    check(p.returncode == 0, "%s: exit status %d" % (tag, p.returncode))
    if p.returncode != 0:
        sys.stdout.write(p.stdout[-3000:])
        sys.stdout.write(p.stderr[-3000:])
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    return [json.loads(l) for l in lines], p


def check_lines(tag, objs, sizes, mode, tasks):
    check(len(objs) == len(sizes),
          "%s: %d JSON lines, expected %d" % (tag, len(objs), len(sizes)))
    for o, size in zip(objs, sizes):
        t = "%s size %d" % (tag, size)
        check(o.get("size") == size, "%s: size field %s" % (t, o.get("size")))
        check(o.get("mode") == mode, "%s: mode %s" % (t, o.get("mode")))
        check(o.get("msgs", 0) > 0, "%s: msgs %s" % (t, o.get("msgs")))
        check(o.get("msgs_per_s", 0) > 0, "%s: msgs_per_s" % t)
        check(o.get("errors") == 0, "%s: errors %s" % (t, o.get("errors")))
        check(o.get("tasks", 1) == tasks, "%s: tasks %s" % (t, o.get("tasks")))
        if mode != "stream":
            p = [o.get(k, -1) for k in ("rtt_ns_p50", "rtt_ns_p90",
                                        "rtt_ns_p99", "rtt_ns_p999",
                                        "rtt_ns_max")]
            check(0 < p[0] and p == sorted(p), "%s: percentiles %s" % (t, p))


def two_processes(d, tag, extra):
    """eth over net_memif, two processes: the client says hello once per
    size, the server serves run after run, both print a line per size.
    extra: more arguments for both sides (e.g. --raw)."""
    sock = os.path.join(d, tag + ".sock")
    mem = ["--no-pci", "--no-huge", "-m", "512"]
    srv_cmd = [PERF, "-l", "1"] + mem + [
        "--file-prefix=perfsz%d%ss" % (os.getpid(), tag),
        "--vdev=net_memif0,role=server,socket=" + sock, "--",
        "--transport", "eth", "--role", "server", "--local", "10.9.0.2",
        "--peer", "10.9.0.1", "--wait", "30", "--json"] + extra
    cli_cmd = [PERF, "-l", "0"] + mem + [
        "--file-prefix=perfsz%d%sc" % (os.getpid(), tag),
        "--vdev=net_memif0,role=client,socket=" + sock, "--",
        "--transport", "eth", "--role", "client", "--local", "10.9.0.1",
        "--peer", "10.9.0.2", "--wait", "30", "--mode", "bw",
        "--size", "64,4k,64k", "--secs", "0.3", "--json"] + extra
    print("$ " + " ".join(srv_cmd) + " &\n$ " + " ".join(cli_cmd), flush=True)
    srv = subprocess.Popen(srv_cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
    try:
        cli = subprocess.run(cli_cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=120)
        srv_out, _ = srv.communicate(timeout=60)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    check(cli.returncode == 0, "%s client: exit status %d" % (tag, cli.returncode))
    check(srv.returncode == 0, "%s server: exit status %d" % (tag, srv.returncode))
    if cli.returncode != 0 or srv.returncode != 0:
        sys.stdout.write(cli.stdout[-3000:] + srv_out[-3000:])
    objs = [json.loads(l) for l in cli.stdout.splitlines()
            if l.startswith("{")]
    check_lines(tag + " client", objs, [64, 4096, 65536], "bw", 1)
    check(all(o.get("raw", False) == ("--raw" in extra) for o in objs),
          "%s client: raw field %s" % (tag, [o.get("raw") for o in objs]))
    sobjs = [json.loads(l) for l in srv_out.splitlines() if l.startswith("{")]
    check([o.get("size") for o in sobjs] == [64, 4096, 65536] and
          all(o.get("role") == "server" and o.get("errors") == 0 and
              o.get("requests", 0) > 0 for o in sobjs),
          "%s server: JSON lines %s" % (tag, sobjs))


with tempfile.TemporaryDirectory() as d:
    hist = os.path.join(d, "cdf.dat")
    # 64, 4 KiB, then the sweep 1, 4, 16: five runs.
    sizes = [64, 4096, 1, 4, 16]
    objs, p = run("a", ["-l", "0"],
                  ["--mode", "lat", "--size", "64,4k,1:16:x4", "--tasks", "2",
                   "--secs", "0.3", "--histogram", hist])
    check_lines("lat inline", objs, sizes, "lat", 2)
    check("round-trip latency" in p.stdout, "lat inline: no final table")
    blocks = []
    if os.path.exists(hist):
        with open(hist) as f:
            for l in f:
                if l.startswith("# size "):
                    blocks.append([])
                elif l.strip() and not l.startswith("#") and blocks:
                    ns, frac = l.split()
                    blocks[-1].append((int(ns), float(frac)))
    check(len(blocks) == len(sizes),
          "histogram: %d blocks, expected %d" % (len(blocks), len(sizes)))
    for b in blocks:
        check(len(b) > 0 and abs(b[-1][1] - 1.0) < 1e-9 and
              b == sorted(b), "histogram: a block is not a CDF ending at 1")

    # The engine on its own lcore, bw, stream.
    objs, _ = run("b", ["-l", "0-1"],
                  ["--mode", "bw", "--engine", "lcore", "--size", "32,1k",
                   "--tasks", "2", "--secs", "0.3"])
    check_lines("bw lcore", objs, [32, 1024], "bw", 2)
    objs, _ = run("c", ["-l", "0"],
                  ["--mode", "stream", "--size", "1k:4k:+1k", "--tasks", "2",
                   "--secs", "0.3"])
    check_lines("stream inline", objs, [1024, 2048, 3072, 4096], "stream", 2)

    # --progress: a line on stderr after a second, the JSON intact.
    objs, p = run("d", ["-l", "0"],
                  ["--size", "64", "--secs", "1.5", "--progress"])
    check_lines("progress", objs, [64], "lat", 1)
    check("rds-perf: size 64 (1 of 1)" in p.stderr,
          "progress: no progress line on stderr")
    check("(1 of 1)" not in p.stdout, "progress: a progress line on stdout")

    # --rds-stress-columns: rds-stress's header and a row per size, whose
    # figures agree with the JSON line of the same run.
    objs, p = run("e", ["-l", "0"],
                  ["--mode", "rdma-write", "--size", "4k,64k", "--tasks", "2",
                   "--secs", "0.3", "--rds-stress-columns"])
    check_lines("stress columns", objs, [4096, 65536], "rdma-write", 2)
    hdr = ("tsks   tx/s   rx/s  tx+rx K/s    mbi K/s    mbo K/s tx us/c"
           "   rtt us cpu %")
    out = p.stdout.splitlines()
    rows = [out[i + 1].split() for i, l in enumerate(out[:-1]) if l == hdr]
    check(len(rows) == 2, "stress columns: %d header+row pairs, expected 2"
          % len(rows))
    for r, o in zip(rows, objs):
        t = "stress columns size %d" % o.get("size", -1)
        try:
            v = [float(x) for x in r]
        except ValueError:
            check(False, "%s: row %s" % (t, r))
            continue
        check(len(v) == 9 and v[0] == 2, "%s: row %s" % (t, r))
        if len(v) != 9:
            continue
        rate = o.get("msgs_per_s", 0)
        check(abs(v[2] - rate) <= 1 + rate * 0.001,
              "%s: rx/s %s, JSON msgs_per_s %s" % (t, v[2], rate))
        # rdma-write: the RDMA payload comes into the client's memory.
        want = rate * o["size"] / 1024.0
        check(abs(v[4] - want) <= 0.01 + want * 0.001 and v[5] == 0,
              "%s: mbi %s mbo %s, want mbi %.2f" % (t, v[4], v[5], want))
        check(v[6] > 0 and v[7] > 0 and v[8] > 0,
              "%s: tx us/c, rtt us, cpu %% %s" % (t, v[6:]))
        check(v[7] * 1000 >= o.get("rtt_ns_p50", 0) * 0.5,
              "%s: rtt us %s against p50 %s ns" % (t, v[7],
                                                   o.get("rtt_ns_p50")))

    # Over eth between two processes, over RDS and as plain frames
    # (--raw, the floor): a size list served run after run.
    two_processes(d, "eth", [])
    two_processes(d, "raw", ["--raw"])

if FAILS:
    print("%d checks failed" % len(FAILS))
    sys.exit(1)
print("all checks passed")
