#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a hop of krds_pingpong under the preload spends its time, from
the table bench/wake-trace.patch's scratch build fills
(/dev/shm/rds-wk-trace; doc/perf.md, "Multi-process", "Blocking callers").

  python3 bench/wake-trace.py FIRST_SEQ END_SEQ   (e.g. 200 5200: the
  measured round trips of --warmup 200 --iters 5000)
"""
import struct, sys, statistics as st
N=32768; F=10
d=open('/dev/shm/rds-wk-trace','rb').read()
a=struct.unpack('%dQ'%(2*N*F), d)
def row(dr,i): return a[(dr*N+i)*F:(dr*N+i+1)*F]
lo, hi = int(sys.argv[1]), int(sys.argv[2])
names=['0 peer sendmsg entry','1 engine deliver','2 wake send() start','3 wake send() end','4 poll() return','5 recv return','6 recv entry']
for dr in (0,1):
    rows=[row(dr,i) for i in range(lo,hi)]
    rows=[r for r in rows if r[0] and r[1] and r[5]]
    slept=[r for r in rows if r[2] and r[4] and r[4]>r[3]]
    print("dir %d (%s): %d hops, %d with a wake byte and a poll return after it" % (dr, "requests, to the server" if dr==0 else "replies, to the client", len(rows), len(slept)))
    def q(v):
        v=sorted(v); n=len(v)
        return "p50 %6.0f  p90 %6.0f  p99 %7.0f" % (v[n//2], v[int(n*.9)], v[int(n*.99)]) if n else "-"
    print("  all hops: sendmsg entry -> engine deliver   ", q([r[1]-r[0] for r in rows]))
    print("  all hops: engine deliver -> recv return      ", q([r[5]-r[1] for r in rows]))
    print("  all hops: sendmsg entry -> recv return       ", q([r[5]-r[0] for r in rows]))
    if slept:
        print("  woken hops: deliver -> wake send() start     ", q([r[2]-r[1] for r in slept]))
        print("  woken hops: wake send() (the syscall)        ", q([r[3]-r[2] for r in slept]))
        print("  woken hops: send() end -> poll() return      ", q([r[4]-r[3] for r in slept]))
        print("  woken hops: poll() return -> recv return     ", q([r[5]-r[4] for r in slept]))
        print("  woken hops: deliver -> recv return           ", q([r[5]-r[1] for r in slept]))
for dr in (0,1):
    rows=[row(dr,i) for i in range(lo,hi)]
    rows=[r for r in rows if r[0] and r[7]]
    v=sorted(r[7]-r[0] for r in rows); n=len(v)
    if n: print("dir %d: sendmsg entry -> sendmsg return p50 %.0f p90 %.0f p99 %.0f" % (dr, v[n//2], v[int(n*.9)], v[int(n*.99)]))
for dr in (0,1):
    rows=[row(dr,i) for i in range(lo,hi)]
    rows=[r for r in rows if r[7] and r[8] and r[1]]
    v=sorted(r[8]-r[7] for r in rows); w=sorted(r[1]-r[8] for r in rows); n=len(v)
    if n: print("dir %d: sendmsg return -> engine take p50 %.0f p90 %.0f; engine take -> deliver p50 %.0f p90 %.0f" % (dr, v[n//2], v[int(n*.9)], w[n//2], w[int(n*.9)]))
r=row(0,N-1); print("engine wake send() calls: %d, %.0f ns each on average" % (r[0], r[1]/max(r[0],1)))
