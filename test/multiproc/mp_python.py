# SPDX-License-Identifier: BSD-3-Clause
"""CPython's own socket.AF_RDS under librte_rds_preload.so (mp_python.sh).

    python3 mp_python.py IP_A IP_B

Run by the python3 of the distribution (/usr/bin/python3), under the
preload, against an rds-engined serving IP_A and IP_B over loop. One line
per check ("ok ..." / "FAIL ..."); exit status 0 when all passed.

- sendto/recvfrom of 0 B to 1 MiB (SO_SNDBUF and SO_RCVBUF raised, as the
  kernel's RDS needs for a message larger than half the send buffer);
- settimeout: a recv that times out (TimeoutError, after the timeout) and
  one that gets its message;
- select, poll, epoll, selectors and asyncio (loop.sock_sendto,
  loop.sock_recvfrom, add_reader) on sets that mix RDS and TCP sockets;
- os.fork: the inherited socket is not the child's (EBADF), a socket the
  child makes works;
- multiprocessing children, fork and spawn: each makes its socket and
  sends; an RDS socket handed to a spawn child arrives as the descriptor
  of its wake-up socket (an AF_UNIX SOCK_SEQPACKET one: sendto
  BrokenPipeError, bind EINVAL), as librte_rds_preload(7) says, and the
  parent's socket is unharmed;
- subprocess (a vfork child closing every descriptor) leaves the
  parent's sockets working.
"""
import asyncio
import errno
import multiprocessing
import os
import select
import selectors
import socket
import subprocess
import sys
import time

A, B = sys.argv[1], sys.argv[2]
BIG = 4 << 20
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        fails += 1


def rds(ip, port, bufs=False):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    if bufs:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BIG)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BIG)
    s.bind((ip, port))
    return s


def tcp_pair():
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    c = socket.create_connection(lst.getsockname())
    s, _ = lst.accept()
    lst.close()
    return c, s


def errno_of(fn):
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def sizes():
    a, b = rds(A, 5000, True), rds(B, 5001, True)
    for n in (0, 1, 100, 1400, 4096, 65535, 65536, 262144, 1 << 20):
        data = os.urandom(n)
        a.sendto(data, (B, 5001))
        got, frm = b.recvfrom((1 << 20) + 1)
        check(got == data and frm == (A, 5000),
              "sendto/recvfrom %d bytes, from %s:%d" % (n, A, 5000))
    check(errno_of(lambda: a.sendto(b"x" * ((1 << 20) + 1), (B, 5001)))
          == errno.EMSGSIZE, "1 MiB + 1: EMSGSIZE")
    a.close()
    b.close()


def timeouts():
    a, b = rds(A, 5010), rds(B, 5011)
    b.settimeout(0.2)
    t0 = time.monotonic()
    try:
        b.recv(16)
        timed_out = False
    except TimeoutError:
        timed_out = True
    dt = time.monotonic() - t0
    check(timed_out and 0.15 < dt < 3.0,
          "settimeout(0.2): recv times out after %.3f s" % dt)
    a.sendto(b"late", (B, 5011))
    check(b.recv(16) == b"late", "settimeout: recv gets a message")
    check(b.gettimeout() == 0.2, "settimeout: gettimeout")
    a.close()
    b.close()


def waits():
    a, b = rds(A, 5020), rds(B, 5021)
    c, s = tcp_pair()
    r, _, _ = select.select([b, s], [], [], 0.05)
    check(r == [], "select: nothing ready on RDS and TCP")
    c.send(b"t")
    r, _, _ = select.select([b, s], [], [], 5)
    check(r == [s], "select: the TCP socket, not the RDS one")
    s.recv(1)
    a.sendto(b"r", (B, 5021))
    r, _, _ = select.select([b, s], [], [], 5)
    check(r == [b], "select: the RDS socket readable")
    _, w, _ = select.select([], [b, c], [], 5)
    check(w == [b, c], "select: both writable")
    b.recv(1)

    p = select.poll()
    p.register(b, select.POLLIN)
    p.register(s, select.POLLIN)
    check(p.poll(50) == [], "poll: nothing ready")
    a.sendto(b"r", (B, 5021))
    c.send(b"t")
    got = {}
    t_end = time.monotonic() + 5
    while len(got) < 2 and time.monotonic() < t_end:
        for fd, ev in p.poll(1000):
            got[fd] = ev
    check(got.get(b.fileno(), 0) & select.POLLIN and
          got.get(s.fileno(), 0) & select.POLLIN,
          "poll: both readable")
    b.recv(1)
    s.recv(1)

    ep = select.epoll()
    ep.register(b, select.EPOLLIN)
    ep.register(s, select.EPOLLIN)
    check(ep.poll(0.05) == [], "epoll: nothing ready")
    a.sendto(b"r", (B, 5021))
    ev = ep.poll(5)
    check([fd for fd, _ in ev] == [b.fileno()], "epoll: the RDS socket")
    b.recv(1)
    ep.modify(b, select.EPOLLIN | select.EPOLLET)
    a.sendto(b"1", (B, 5021))
    check([fd for fd, _ in ep.poll(5)] == [b.fileno()],
          "epoll EPOLLET: an event for a message")
    check(ep.poll(0.1) == [], "epoll EPOLLET: none more while it is unread")
    b.recv(1)
    ep.close()

    sel = selectors.DefaultSelector()
    sel.register(b, selectors.EVENT_READ, "rds")
    sel.register(s, selectors.EVENT_READ, "tcp")
    check(sel.select(0.05) == [], "selectors: nothing ready")
    c.send(b"t")
    a.sendto(b"r", (B, 5021))
    seen = set()
    t_end = time.monotonic() + 5
    while len(seen) < 2 and time.monotonic() < t_end:
        for key, _ in sel.select(1):
            seen.add(key.data)
    check(seen == {"rds", "tcp"}, "selectors (%s): both, with their data"
          % type(sel).__name__)
    sel.close()
    for x in (a, b, c, s):
        x.close()


async def aio_main():
    loop = asyncio.get_running_loop()
    a, b = rds(A, 5030), rds(B, 5031)
    a.setblocking(False)
    b.setblocking(False)

    async def echo(reader, writer):
        writer.write(await reader.read(100))
        await writer.drain()
        writer.close()

    srv = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]

    async def tcp_round():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"over tcp")
        await writer.drain()
        data = await reader.read(100)
        writer.close()
        return data

    async def rds_rounds():
        out = []
        for i in range(20):
            await loop.sock_sendto(a, b"m%d" % i, (B, 5031))
            out.append(await loop.sock_recvfrom(b, 64))
        return out

    tcp, msgs = await asyncio.wait_for(
        asyncio.gather(tcp_round(), rds_rounds()), 10)
    check(tcp == b"over tcp", "asyncio: a TCP echo alongside")
    check([m for m, _ in msgs] == [b"m%d" % i for i in range(20)] and
          all(f == (A, 5030) for _, f in msgs),
          "asyncio: 20 messages by sock_sendto/sock_recvfrom")
    fut = loop.create_future()
    loop.add_reader(b.fileno(), lambda: fut.done() or fut.set_result(True))
    await loop.sock_sendto(a, b"rd", (B, 5031))
    ready = await asyncio.wait_for(fut, 5)
    loop.remove_reader(b.fileno())
    check(ready and b.recv(16) == b"rd", "asyncio: add_reader on an RDS "
          "socket")
    srv.close()
    await srv.wait_closed()
    a.close()
    b.close()


def forks():
    a, b = rds(A, 5040), rds(B, 5041)
    pid = os.fork()
    if pid == 0:
        code = 0
        if errno_of(lambda: a.sendto(b"x", (B, 5041))) != errno.EBADF:
            code = 3
        try:
            mine = rds(A, 5042)
            mine.sendto(b"from the child", (B, 5041))
        except OSError:
            code = 4
        os._exit(code)
    _, st = os.waitpid(pid, 0)
    check(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0,
          "os.fork: the inherited socket is EBADF in the child, its own "
          "works (exit %d)" % os.WEXITSTATUS(st))
    b.settimeout(5)
    check(b.recvfrom(64) == (b"from the child", (A, 5042)),
          "os.fork: the parent gets the child's message")
    a.sendto(b"p", (B, 5041))
    check(b.recv(4) == b"p", "os.fork: the parent's socket works")
    a.close()
    b.close()


def mp_sender(dst_ip, dst_port, src_port):
    s = rds(A, src_port)
    s.sendto(b"mp %d" % src_port, (dst_ip, dst_port))
    s.close()


def mp_bare(s, q):
    """What a spawn child sees of an RDS socket it was handed."""
    seen = {"domain": s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN),
            "type": s.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE),
            "sendto": errno_of(lambda: s.sendto(b"x", (B, 5051))),
            "bind": errno_of(lambda: s.bind((A, 5059)))}
    q.put(seen)


def mp_children():
    b = rds(B, 5051)
    b.settimeout(10)
    for i, method in enumerate(("fork", "spawn")):
        ctx = multiprocessing.get_context(method)
        p = ctx.Process(target=mp_sender, args=(B, 5051, 5052 + i))
        p.start()
        p.join(30)
        check(p.exitcode == 0, "multiprocessing %s: the child exits 0"
              % method)
        check(b.recvfrom(64) == (b"mp %d" % (5052 + i), (A, 5052 + i)),
              "multiprocessing %s: its message arrives" % method)
    a = rds(A, 5050)
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=mp_bare, args=(a, q))
    p.start()
    seen = q.get(timeout=30)
    p.join(30)
    print("spawn child handed an RDS socket sees:", seen, flush=True)
    check(seen == {"domain": socket.AF_UNIX, "type": socket.SOCK_SEQPACKET,
                   "sendto": errno.EPIPE, "bind": errno.EINVAL},
          "multiprocessing spawn, a socket handed over: the wake-up "
          "socket (AF_UNIX SOCK_SEQPACKET, sendto EPIPE, bind EINVAL)")
    a.sendto(b"still", (B, 5051))
    check(b.recvfrom(64) == (b"still", (A, 5050)),
          "multiprocessing spawn: the parent's socket is unharmed")
    a.close()
    b.close()


def subprocesses():
    a, b = rds(A, 5060), rds(B, 5061)
    r = subprocess.run(["true"], close_fds=True)
    check(r.returncode == 0, "subprocess.run(close_fds=True)")
    a.sendto(b"sp", (B, 5061))
    b.settimeout(5)
    check(b.recv(4) == b"sp", "subprocess: the parent's sockets work after "
          "the child closed every descriptor")
    a.close()
    b.close()


def main():
    check(socket.AF_RDS == 21 and socket.PF_RDS == 21, "socket.AF_RDS")
    sizes()
    timeouts()
    waits()
    asyncio.run(aio_main())
    forks()
    mp_children()
    subprocesses()
    print("mp_python: %d failure(s)" % fails, flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
