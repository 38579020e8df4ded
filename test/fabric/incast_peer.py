#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the incast (test/fabric/incast.sh): a 64-byte ping-pong
over RDS (AF_RDS, run under librte_rds_preload.so against an engine) or
kernel TCP, and kernel TCP's sink and sources for the TCP comparison.

  incast_peer.py rds-echo LOCAL PORT SECS     answer every message
  incast_peer.py rds-ping LOCAL PEER PORT SECS  64 B round trips
  incast_peer.py tcp-echo LOCAL PORT SECS
  incast_peer.py tcp-ping PEER PORT SECS
  incast_peer.py tcp-sink LOCAL PORT N        N connections, each read
                                              to its end
  incast_peer.py tcp-src PEER PORT BYTES SIZE  BYTES in SIZE-byte writes

rds-ping and tcp-ping print "rtt: N samples, median U us, p99 U us";
tcp-sink prints "conn I: B bytes in T ms" per connection (from the
moment all N are connected and told to go, to its end).
"""
import socket
import statistics
import sys
import threading
import time

RDS_SIZE = 64


def rds_sock(local, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.bind((local, port))
    return s


def rtt_report(samples):
    if not samples:
        print("rtt: 0 samples")
        sys.exit(1)
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print("rtt: %d samples, median %.0f us, p99 %.0f us" %
          (len(samples), statistics.median(samples), p99), flush=True)


def rds_echo(local, port, secs):
    s = rds_sock(local, int(port))
    s.settimeout(float(secs))
    # Bound: a message to a port nobody has bound is dropped, the
    # caller starts the ping only after this line.
    print("ready", flush=True)
    end = time.monotonic() + float(secs)
    while time.monotonic() < end:
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            break
        s.sendto(data, peer)


def rds_ping(local, peer, port, secs):
    s = rds_sock(local, int(port))
    s.settimeout(10.0)
    msg = b"p" * RDS_SIZE
    samples = []
    # One exchange first, not counted (the connection, the echo's
    # process under load).
    s.sendto(msg, (peer, int(port)))
    s.recvfrom(65536)
    end = time.monotonic() + float(secs)
    while time.monotonic() < end:
        t0 = time.monotonic_ns()
        s.sendto(msg, (peer, int(port)))
        try:
            data, _ = s.recvfrom(65536)
        except socket.timeout:
            print("rds-ping: no answer in 10 s")
            sys.exit(1)
        if data != msg:
            print("rds-ping: a different answer")
            sys.exit(1)
        samples.append((time.monotonic_ns() - t0) / 1000.0)
    rtt_report(samples)


def tcp_echo(local, port, secs):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((local, int(port)))
    ls.listen(1)
    ls.settimeout(float(secs))
    c, _ = ls.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        data = c.recv(RDS_SIZE)
        if not data:
            break
        c.sendall(data)


def tcp_ping(peer, port, secs):
    end = time.monotonic() + 10
    while True:
        try:
            c = socket.create_connection((peer, int(port)), timeout=5)
            break
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    msg = b"p" * RDS_SIZE
    samples = []
    end = time.monotonic() + float(secs)
    while time.monotonic() < end:
        t0 = time.monotonic_ns()
        c.sendall(msg)
        got = b""
        while len(got) < RDS_SIZE:
            d = c.recv(RDS_SIZE - len(got))
            if not d:
                print("tcp-ping: closed")
                sys.exit(1)
            got += d
        samples.append((time.monotonic_ns() - t0) / 1000.0)
    c.close()
    rtt_report(samples)


def tcp_sink(local, port, n):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((local, int(port)))
    ls.listen(64)
    conns = [ls.accept()[0] for _ in range(int(n))]
    res = {}

    def reader(i, c):
        total = 0
        while True:
            d = c.recv(1 << 20)
            if not d:
                break
            total += len(d)
        res[i] = (total, (time.monotonic_ns() - t0) / 1e6)

    # Every sender connected: all go at once (a byte each), the time
    # from here.
    t0 = time.monotonic_ns()
    ths = [threading.Thread(target=reader, args=(i, c))
           for i, c in enumerate(conns)]
    for t in ths:
        t.start()
    for c in conns:
        c.sendall(b"g")
    for t in ths:
        t.join()
    for i in sorted(res):
        print("conn %d: %d bytes in %.0f ms" % (i, res[i][0], res[i][1]))


def tcp_src(peer, port, nbytes, size):
    end = time.monotonic() + 10
    while True:
        try:
            c = socket.create_connection((peer, int(port)), timeout=60)
            break
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)
    size, left = int(size), int(nbytes)
    buf = b"x" * size
    if c.recv(1) != b"g":
        sys.exit(1)
    while left > 0:
        c.sendall(buf[:min(size, left)])
        left -= size
    c.close()


CMDS = {"rds-echo": rds_echo, "rds-ping": rds_ping, "tcp-echo": tcp_echo,
        "tcp-ping": tcp_ping, "tcp-sink": tcp_sink, "tcp-src": tcp_src}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CMDS:
        print(__doc__)
        sys.exit(2)
    CMDS[sys.argv[1]](*sys.argv[2:])
