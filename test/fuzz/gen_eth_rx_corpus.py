#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_eth_rx (test/fuzz/corpus/eth_rx/seed-*).

Each seed is a program in fuzz_eth_rx's input format (the prologue and
op_* functions of fuzz_eth_rx.c; this file mirrors them and must change
with them): messages in one frame and fragmented, in order and out of
order, duplicates, a 1 MiB message, every fault of a frame step, a
restarted peer, stale frames, bare ACKs with SACK bits, socket sends.

Usage: gen_eth_rx_corpus.py [OUT_DIR]   (default: corpus/eth_rx here)
Files named seed-* are rewritten; others (crash reproducers) are kept.
"""

import os
import struct
import sys

OP_FRAME, OP_BURST, OP_POLL, OP_RECV = 0, 2, 3, 4
OP_RESTART, OP_STALE, OP_ACK, OP_SEND, OP_SLEEP = 5, 6, 7, 8, 9
M_BAD_CRC, M_FLAGS, M_OFF, M_SHORT = 0x01, 0x02, 0x04, 0x08
M_TYPE, M_DST, M_BYTE = 0x10, 0x20, 0x40


def prologue(epoch, frag, lens):
    """frag: payload bytes per frame (48..1400); lens: u16 codes (bit 15:
    large, ((v & 0xff) + 1) * 4096 - (v >> 8 & 0x7f))."""
    b = struct.pack(">IBH", epoch, len(lens) - 1, frag - 48)
    for v in lens:
        b += struct.pack(">H", v)
    return b


def frame(d=0, mut=0, arg=0):
    b = bytes([OP_FRAME, d & 0xff, mut])
    if mut & 0x7f:
        b += bytes([arg])
    return b


def burst(n):
    return bytes([OP_BURST, n - 1])


def poll():
    return bytes([OP_POLL])


def recv(n=8):
    return bytes([OP_RECV, n - 1])


def restart(a, frm):
    return bytes([OP_RESTART, a, frm])


def stale(seq):
    return bytes([OP_STALE, seq])


def ack(flags, a, sack, wnd):
    return bytes([OP_ACK, flags, a]) + struct.pack(">QH", sack, wnd)


def send(n):
    return bytes([OP_SEND]) + struct.pack(">H", n)


def sleep(u):
    return bytes([OP_SLEEP, u])


def seeds():
    s = {}
    s["small-in-order"] = (prologue(0x1234, 1400, [10, 0, 100]) +
                           burst(3) + poll() + recv())
    s["frag-in-order"] = (prologue(0x99, 200, [1000, 2999]) + burst(40) +
                          poll() + recv())
    s["frag-reorder"] = (prologue(0x77, 100, [700]) + frame(1) + frame(3) +
                         frame(2) + frame(0) + poll() + burst(16) + poll() +
                         recv())
    s["dup"] = (prologue(0x55, 64, [300]) + frame(0) + frame(0) + frame(-1) +
                frame(1) + frame(1) + burst(16) + poll() + recv())
    s["large-1mib"] = (prologue(0x4242, 1400, [0x80ff]) + burst(128) * 7 +
                       poll() + recv(1))
    s["large-odd"] = (prologue(0x4243, 1337, [0x8f10, 5]) + burst(128) +
                      poll() + recv())
    for name, m in (("bad-crc", M_BAD_CRC), ("flags", M_FLAGS),
                    ("off", M_OFF), ("short", M_SHORT), ("type", M_TYPE),
                    ("dst", M_DST), ("byte", M_BYTE)):
        s["fault-" + name] = (prologue(0x31, 100, [450, 20]) + frame(0) +
                              frame(0, m, 3) + frame(1, m, 7) + burst(16) +
                              poll() + recv())
    # LAST on a middle fragment (arg 2: only LAST flipped): a partial unit.
    s["fault-last-early"] = (prologue(0x33, 100, [450]) + frame(0) +
                             frame(0, M_FLAGS, 2) + burst(16) + poll() +
                             recv())
    # FIRST off the first fragment (arg 1), then the whole stream again.
    s["fault-first-off"] = (prologue(0x35, 100, [450]) +
                            frame(0, M_FLAGS, 1) + burst(16) + poll() +
                            restart(0, 0) + burst(16) + poll() + recv())
    s["restart"] = (prologue(0x21, 100, [250, 400, 30]) + burst(2) + poll() +
                    restart(0, 0) + burst(20) + poll() + recv() +
                    stale(1) + stale(3) + poll() + recv())
    s["restart-forget"] = (prologue(0x23, 100, [250, 400]) + burst(4) +
                           restart(1, 1) + burst(20) + poll() + recv())
    s["acks"] = (prologue(0x41, 300, [100]) + send(100) + send(3000) +
                 poll() + ack(0, 1, 0x5, 64) + ack(0, 0, 0xffffffffffffffff,
                                                  0) + sleep(255) + poll() +
                 ack(8, 0, 0, 8) + burst(2) + poll() + recv())
    s["window"] = (prologue(0x61, 48, [2000]) + frame(9) + frame(11) +
                   frame(7) + burst(64) + poll() + recv())
    # The driver's messages acknowledged frame by frame (window 8: its
    # congestion map is frames 0-5, then 100 B in 6, 3000 B in 7-9, 20 B
    # in 10): a message's earlier frames, its last one selectively, then
    # cumulatively.
    s["send-acked"] = (prologue(0x71, 100, [10]) + send(100) + send(3000) +
                       send(20) + poll() + ack(0, 7, 0, 8) + poll() +
                       ack(0, 8, 0x2, 8) + poll() + ack(0, 10, 0, 8) +
                       poll() + ack(0, 11, 0, 8) + poll())
    # A reset of the driver's stream after 100 B is acknowledged, 3000 B
    # not all: the 3000 B message alone goes again, marked.
    s["send-reset"] = (prologue(0x73, 100, [10]) + send(100) + send(3000) +
                       poll() + ack(0, 7, 0, 8) + poll() + ack(8, 0, 0, 8) +
                       poll() + poll() + ack(0, 9, 0, 8) + poll())
    # The peer restarts and forgets the driver's stream (restart a=1):
    # the driver starts its own again and resends what was not
    # acknowledged.
    s["send-restart-forget"] = (prologue(0x75, 100, [10, 20]) + send(500) +
                                send(40) + poll() + ack(0, 7, 0, 8) + poll() +
                                restart(1, 0) + burst(2) + poll() + poll() +
                                recv())
    return s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "corpus", "eth_rx")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("seed-"):
            os.unlink(os.path.join(out, f))
    for name, b in seeds().items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(b)


if __name__ == "__main__":
    main()
