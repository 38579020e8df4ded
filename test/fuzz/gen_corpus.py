#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_recv (test/fuzz/corpus/recv/seed-*).

Each seed is a short program in fuzz_recv's input format (see the op_*
functions of fuzz_recv.c; this file mirrors them and must change with
them): valid DATA frames, ACK-only frames, congestion maps, pings, the
duplicate rule, extension headers (RDMA keys of the live regions,
RDMA_DEST cookies), large frames, raw frames with their checksum, local
sends with ACKs and a reset, RDMA operations on every region, and wrong
keys past the library's limit.

Usage: gen_corpus.py [OUT_DIR]   (default: corpus/recv next to this file)
Files named seed-* are rewritten; others (crash reproducers) are kept.
"""

import os
import struct
import sys

# Opcodes (op % 16) and their variants.
OP_FRAME, OP_RAW, OP_POLL, OP_RECV, OP_SEND, OP_RDMA = 0, 7, 8, 10, 11, 12
OP_FREE, OP_RESET, OP_DELAY = 13, 13 | 0x80, 14

# Frame mode bits.
CSUM_OK, CSUM_ZERO, CSUM_BAD = 0, 2, 3
MSG = 4
LENMIS = 8
SEQ_NEXT, SEQ_SAME, SEQ_ANY, SEQ_BACK = 0x00, 0x10, 0x20, 0x30
ACK_ZERO, ACK_LAST, ACK_ANY, ACK_NEAR = 0x00, 0x40, 0x80, 0xc0

# Wire flags.
CONG, ACKREQ, RETRANS = 0x01, 0x02, 0x04

# Port selectors (pick_port): 4000, 4001, 4002, 4003 (unbound), 0, 1.
P4000, P4001, P4002, P4003, P0, P1 = 0, 1, 2, 3, 4, 5
P_RAW = 7
# Source port selectors: 6000, 6001, 0, raw.
S6000, S6001, S0, S_RAW = 0, 1, 2, 3

# Extension types.
EXT_VERSION, EXT_RDMA, EXT_RDMA_DEST, EXT_RDMA_BYTES = 1, 2, 3, 4
EXT_NPATHS, EXT_GEN_NUM, EXT_SPORT_IDX = 5, 6, 8

# RDMA kinds.
READ, WRITE, FADD, CSWP, MFADD, MCSWP = range(6)


def u8(v):
    return bytes([v & 0xff])


def u16(v):
    return struct.pack(">H", v & 0xffff)


def u32(v):
    return struct.pack(">I", v & 0xffffffff)


def u64(v):
    return struct.pack(">Q", v & 0xffffffffffffffff)


def ext_rdma(region):
    return u8(EXT_RDMA) + u8(region)


def ext_dest(region, offset):
    return u8(EXT_RDMA_DEST) + u8(region) + u32(offset)


def ext_raw(typ, data):
    return u8(typ) + data


def exts(*items):
    assert len(items) <= 3
    return u8(len(items)) + b"".join(items)


def exts_raw16(data):
    assert len(data) == 16
    return u8(4) + data


def pay_bytes(data):
    return u8(0) + u16(len(data)) + data


def pay_map(*ports):
    """A congestion map marking ports: selectors, or (P_RAW, port)."""
    out = u8(1 | (len(ports) << 2))
    for p in ports:
        out += u8(p) if isinstance(p, int) else u8(P_RAW) + u16(p[1])
    return out


def pay_big(length, seed):
    """A pattern payload of any length up to just over 1 MiB."""
    return u8(2) + u8(3 | (seed << 2)) + u32(length)


def pay_near_1m(delta, seed):
    """1 MiB - 8 + delta bytes (delta 0..16)."""
    return u8(2) + u8(2 | (seed << 2)) + u8(delta)


def pay_none():
    return u8(3)


def frame(flags=0, sport=S6000, dport=P4000, ext=None, payload=None,
          csum=CSUM_OK, seq=SEQ_NEXT, seq_arg=None, ack=ACK_ZERO,
          ack_arg=None, msg=False, lenmis=None, op=OP_FRAME):
    mode = csum | seq | ack | (MSG if msg else 0) | \
        (LENMIS if lenmis is not None else 0)
    out = u8(op) + u8(mode) + u8(flags)
    if seq == SEQ_ANY:
        out += u64(seq_arg)
    elif seq == SEQ_BACK:
        out += u8(seq_arg)
    if ack == ACK_ANY:
        out += u64(ack_arg)
    elif ack == ACK_NEAR:
        out += u8(ack_arg)
    out += u8(sport if isinstance(sport, int) and sport < 4 else S_RAW)
    if not (isinstance(sport, int) and sport < 4):
        out += u16(sport[1])
    out += u8(dport if isinstance(dport, int) else P_RAW)
    if not isinstance(dport, int):
        out += u16(dport[1])
    out += ext if ext is not None else exts()
    out += payload if payload is not None else pay_none()
    if lenmis is not None:
        out += u8(lenmis)
    if csum == CSUM_BAD:
        out += u8(0x10)
    return out


def csum16(b):
    s = 0
    for i in range(0, len(b), 2):
        s += (b[i] << 8) | b[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def raw(seq, ack, sport, dport, flags, payload=b"", hlen=None, ext=b"",
        csum=True, msg=False):
    """A raw frame: 48 header bytes exactly as on the wire."""
    hlen = len(payload) if hlen is None else hlen
    ext = (ext + bytes(16))[:16]
    h = bytearray(struct.pack(">QQIHHBB4sH", seq, ack, hlen, sport, dport,
                              flags, 0, bytes(4), 0) + ext)
    if csum:
        c = (~csum16(bytes(h))) & 0xffff
        h[30:32] = struct.pack(">H", c)
    return u8(OP_RAW) + u8(1 if msg else 0) + bytes(h) + \
        u16(len(payload)) + payload


def poll(n=1):
    return (u8(OP_POLL) if n == 1 else u8(OP_POLL | 0x10))


def recv(sock, n=1, mode=0, cap=None, ctl=None):
    b = (sock & 3) | (mode << 2) | ((n - 1) << 4)
    out = u8(OP_RECV) + u8(b)
    if mode == 1:
        out += u8(cap)
        out += b"".join(u8(ctl) for _ in range(n))
    elif mode == 2:
        out += u16(cap)
    return out


def send(sock, dport_sel, data):
    out = u8(OP_SEND) + u8(sock) + u8(dport_sel if dport_sel < 3 else 3)
    if dport_sel >= 3:
        out += u16(dport_sel)
    return out + u16(len(data)) + data


def rdma(kind, region, off, length, args=(0, 0, 0, 0), wseed=1,
         cookie_mode=0, cookie_arg=None):
    rs = (region << 3) | cookie_mode
    os_ = 0x80 if off > 0xffff else 0
    out = u8(OP_RDMA) + u8(kind) + u8(rs) + u8(os_)
    if cookie_mode == 1:
        out += u16(cookie_arg)
    elif cookie_mode == 2:
        out += u64(cookie_arg)
    out += u64(off) if os_ else u16(off)
    out += u16(length)
    if kind >= FADD:
        out += b"".join(u64(a) for a in args)
    return out + u8(wseed)


def free(region):
    return u8(OP_FREE) + u8(region)


def reset():
    return u8(OP_RESET)


def delay(units):
    return u8(OP_DELAY) + u8(units)


SEEDS = {
    # Messages to each socket, received every way there is.
    "data": frame(payload=pay_bytes(b"hello")) +
    frame(dport=P4001, payload=pay_bytes(b"to 4001"), ack=ACK_LAST) +
    frame(dport=P4002, sport=S6001, payload=pay_bytes(bytes(100))) +
    poll() + recv(0) + recv(1, mode=1, cap=3, ctl=0) +
    recv(2, mode=2, cap=200),
    "data_burst": b"".join(frame(payload=pay_bytes(bytes([i]) * i))
                           for i in range(1, 9)) + recv(0, n=8, mode=3),
    "ack_required": frame(flags=ACKREQ, payload=pay_bytes(b"ack me")) +
    poll(2) + recv(0),
    "delayed_ack": frame(payload=pay_bytes(b"later")) + delay(3) + poll(),
    "ack_only": frame(sport=S0, dport=P0, ack=ACK_ANY, ack_arg=0) +
    frame(sport=S0, dport=P0, flags=RETRANS | ACKREQ),
    "ping": frame(dport=P0) + frame(dport=P0, sport=S6001) + poll(2) +
    frame(dport=P0, sport=S0, payload=pay_bytes(b"p")),
    "probe_port": frame(dport=P1, sport=S0, payload=pay_bytes(b"hs")),
    "unbound": frame(dport=P4003, payload=pay_bytes(b"nobody")) +
    frame(dport=(P_RAW, 65535)),
    "dup_rule": frame(seq=SEQ_ANY, seq_arg=5, payload=pay_bytes(b"5")) +
    frame(seq=SEQ_SAME, flags=RETRANS, payload=pay_bytes(b"5")) +
    frame(seq=SEQ_BACK, seq_arg=1, payload=pay_bytes(b"4")) +
    frame(seq=SEQ_BACK, seq_arg=3, flags=RETRANS, payload=pay_bytes(b"2")) +
    frame(seq=SEQ_NEXT, flags=RETRANS, payload=pay_bytes(b"6")) +
    recv(0, n=4),
    "seq_wrap": frame(seq=SEQ_ANY, seq_arg=(1 << 64) - 1,
                      payload=pay_bytes(b"max")) +
    frame(seq=SEQ_ANY, seq_arg=0, flags=RETRANS, payload=pay_bytes(b"0")),
    "cong_map": frame(sport=S0, dport=P0, flags=CONG,
                      payload=pay_map((P_RAW, 7000))) +
    poll() + send(0, 0, b"x") +
    frame(sport=S0, dport=P0, flags=CONG, payload=pay_map()) +
    poll() + send(0, 0, b"y") + poll(),
    "cong_odd": frame(sport=S0, dport=P0, flags=CONG | ACKREQ,
                      payload=pay_map(P4000)) +
    frame(sport=S0, dport=P0, flags=CONG, payload=pay_bytes(b"short")) +
    frame(flags=CONG | RETRANS, payload=pay_bytes(b"odd")),
    "local_congestion": b"".join(frame(dport=P4001,
                                       payload=pay_big(3000, i))
                                 for i in range(3)) + poll(2) +
    recv(1, n=3) + poll(2),
    "rdma_ext_own": frame(ext=exts(ext_rdma(0)),
                          payload=pay_bytes(b"used R0")) +
    poll() + recv(0) + rdma(READ, 0, 0, 64),
    "rdma_ext_other": frame(dport=P4001, ext=exts(ext_rdma(0)),
                            payload=pay_bytes(b"R0 is not 4001's")) +
    frame(ext=exts(ext_rdma(4), ext_rdma(2))) + recv(1) + recv(0),
    "rdma_dest": frame(ext=exts(ext_dest(1, 0x123)),
                       payload=pay_bytes(b"cookie")) +
    frame(ext=exts(ext_dest(5, 0), ext_raw(EXT_VERSION, u32(0x301))),
          payload=pay_bytes(b"zero cookie")) + recv(0, n=2),
    "ext_mix": frame(ext=exts(ext_raw(EXT_NPATHS, u16(2)),
                              ext_raw(EXT_GEN_NUM, u32(7)),
                              ext_raw(EXT_SPORT_IDX, u8(1))),
                     payload=pay_bytes(b"mp")) +
    frame(ext=exts_raw16(bytes([EXT_RDMA_DEST]) + bytes(8) +
                         bytes([EXT_RDMA, 0, 0]) + bytes(4))) +
    frame(ext=exts_raw16(bytes([9, EXT_RDMA, 1, 2, 3, 4]) + bytes(10))) +
    recv(0, n=3),
    "big": frame(payload=pay_near_1m(8, 7), msg=True) +
    frame(payload=pay_near_1m(9, 8)) + frame(payload=pay_big(70000, 9)) +
    recv(0, mode=1, cap=16, ctl=0),
    "lenmis": frame(payload=pay_bytes(b"abc"), lenmis=3) +
    frame(payload=pay_bytes(b"abc"), lenmis=1) +
    frame(payload=pay_bytes(b"bad"), csum=CSUM_BAD) +
    frame(payload=pay_bytes(b"zero"), csum=CSUM_ZERO),
    "raw": raw(1, 0, 6000, 4000, 0, b"raw frame") +
    raw(2, 0, 6000, 4000, 0, b"no checksum", csum=False) +
    raw(3, 0, 6000, 4000, ACKREQ, b"handed over", msg=True) +
    raw(0, 0, 0, 0, CONG, bytes(8192)[:4096]) + poll() + recv(0, n=3),
    "send_ack_reset": send(0, 0, b"one") + send(1, 1, b"two") + poll() +
    send(2, 2, b"three") + poll() +
    frame(sport=S0, dport=P0, ack=ACK_NEAR, ack_arg=0xfe) +
    reset() + poll(2) +
    frame(sport=S0, dport=P0, ack=ACK_LAST) + reset() + poll(),
    "rdma_ops": rdma(READ, 1, 0, 4096) + rdma(WRITE, 1, 8, 100, wseed=3) +
    rdma(WRITE, 3, 0, 8) + rdma(READ, 3, 0, 200) +
    rdma(FADD, 1, 16, 8, (5, 0, 0, 0)) +
    rdma(CSWP, 1, 24, 8, (0, 9, 0, 0)) +
    rdma(MFADD, 1, 32, 8, (0x0101, 0x80, 0, 0)) +
    rdma(MCSWP, 1, 40, 8, (0, 0xff, 0xf0, 0x0f)) +
    rdma(READ, 2, 0, 64) + rdma(READ, 2, 0, 64) +
    rdma(WRITE, 0, 0, 8192) + rdma(READ, 4, 0, 16),
    "rdma_bounds": rdma(READ, 1, 4090, 16) + rdma(READ, 1, 0, 1,
                                                  cookie_mode=1,
                                                  cookie_arg=5000) +
    rdma(READ, 1, (1 << 64) - 8, 16) + rdma(FADD, 1, 3, 8) +
    rdma(READ, 0, 0, 8, cookie_mode=3) +
    rdma(READ, 0, 0, 8, cookie_mode=2, cookie_arg=0x1234),
    "free_mr": free(1) + rdma(READ, 1, 0, 8) + free(1) +
    frame(ext=exts(ext_rdma(0))) + free(0) + recv(0),
    # Wrong keys past the library's limit (16 per connection): the
    # connection is held off, and an operation with a good cookie may end
    # DROPPED; a freed region's key (stale) counts against nobody.
    "rdma_wrong_keys": free(3) + rdma(READ, 3, 0, 8) +
    b"".join(rdma(READ, 0, 0, 64, cookie_mode=2,
                  cookie_arg=0x1111111100000000 + 0x01010101 * i)
             for i in range(1, 16)) +
    rdma(READ, 0, 0, 8, cookie_mode=3) + rdma(READ, 1, 0, 64) +
    rdma(READ, 0, 0, 8, cookie_mode=2, cookie_arg=0) +
    rdma(WRITE, 1, 0, 64, wseed=5) + rdma(READ, 1, 0, 64),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "corpus", "recv")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.startswith("seed-"):
            os.unlink(os.path.join(out, name))
    for name, data in sorted(SEEDS.items()):
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(SEEDS), out))


if __name__ == "__main__":
    main()
