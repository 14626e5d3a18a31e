#!/usr/bin/env python3
"""A self-check of bench/linkem.py, the link under rows L (bench/link.py):

    python3 bench/linkem_check.py

Starts linkem as a process in front of a small TCP server of its own and checks
what rows L rely on: the rate of a shared link (two connections at once get the
link's rate between them, not each), the one-way delay (a request and its answer
take two of them), the byte counters, a peer that closes (the link stops
carrying), and an outage (an open connection is reset, a new one refused, and
one accepted again afterwards). About 6 seconds;
not part of `make test` (it measures time).
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time

import linkem

BENCH = os.path.dirname(os.path.abspath(__file__))
RATE = 4_000_000  # bit/s: 500,000 bytes a second
DELAY = 0.1
SIZE = 500_000


def server():
    """Answers every line it reads with SIZE bytes ("big") or one byte."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer(conn):
        # The outage check resets connections: a reset ends the answering quietly.
        try:
            with conn, conn.makefile("rb") as lines:
                for line in lines:
                    conn.sendall(b"x" * SIZE if line.strip() == b"big" else b".")
        except OSError:
            pass

    def accept():
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]


def fetch(port, request, size):
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request + b"\n")
        received = 0
        while received < size:
            data = sock.recv(65536)
            if not data:
                raise AssertionError(f"connection closed after {received} of {size} bytes")
            received += len(data)


def timed(action):
    started = time.monotonic()
    action()
    return time.monotonic() - started


def check(what, ok, detail):
    print(f"{'ok ' if ok else 'FAIL'} {what}: {detail}")
    return ok


def answer_to(sock, request, timeout):
    """What `sock` reads within `timeout` after sending `request`: bytes, b""
    for a close, "reset", or "nothing"."""
    sock.settimeout(timeout)
    try:
        sock.sendall(request)
        return sock.recv(65536)
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "nothing"


def outage_answers(port, control, kind, request, wait, then=b"small\n"):
    """Once a 1 s outage of `kind` began: what an open connection read after
    `then`, what a new one read after `request` (each within `wait`), and,
    when that was nothing, what the new one read next (within 2 s)."""
    with socket.create_connection(("127.0.0.1", port)) as open_one:
        answer_to(open_one, b"small\n", 2)
        control.outage(1.0, kind)
        was = answer_to(open_one, then, wait)
        with socket.create_connection(("127.0.0.1", port), timeout=1) as new_one:
            new = answer_to(new_one, request, wait)
            later = answer_to(new_one, b"", 2) if new == "nothing" else None
    return was, new, later


def check_kinds(port, control):
    """The outages other than `refuse`, one second each."""
    results = []
    answers = outage_answers(port, control, "silent", b"small\n", 0.4)
    results.append(check("silent outage holds every byte until it ends", answers == ("nothing", "nothing", b"."),
                         f"an open connection read {answers[0]!r}, a new one {answers[1]!r}, then {answers[2]!r}"))
    time.sleep(0.5)
    was, new, _ = outage_answers(port, control, "reset", b"small\n", 2)
    new = "reset" if new in ("reset", b"") else new
    results.append(check("reset outage: open connection reset, a new one accepted then reset", (was, new) == ("reset", "reset"),
                         f"open: {was!r}, new: {new!r}; {json.dumps(control.stats())}"))
    time.sleep(1.2)
    # Nothing sent on the open one: a line sent after the close would be
    # answered by the kernel with RST.
    was, new, _ = outage_answers(port, control, "gateway", b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", 2, then=b"")
    gateway = isinstance(new, bytes) and new.startswith(b"HTTP/1.1 502 Bad Gateway\r\n")
    results.append(check("gateway outage: open connection closed, a request answered 502", was == b"" and gateway,
                         f"open: {was!r}, new: {new[:40]!r}"))
    time.sleep(1.2)
    back = timed(lambda: fetch(port, b"small", 1))
    results.append(check("link back after each kind", back < 2 * DELAY + 0.15, f"a request took {back * 1000:.0f} ms"))
    return results


def main():
    upstream = server()
    process = subprocess.Popen([sys.executable, os.path.join(BENCH, "linkem.py"), "--upstream", f"127.0.0.1:{upstream}",
                                "--down", str(RATE), "--up", str(RATE), "--delay", f"{DELAY}s"],
                               stdout=subprocess.PIPE, text=True)
    try:
        ports = json.loads(process.stdout.readline())
        port, control = ports["listen"], linkem.Client(ports["control"])
        results = []

        rtt = timed(lambda: fetch(port, b"small", 1))
        # Connect (no delay: the proxy accepts locally) then the request and the answer.
        results.append(check("one-way delay", 2 * DELAY <= rtt <= 2 * DELAY + 0.15,
                             f"a request and its answer took {rtt * 1000:.0f} ms, 2 x {DELAY * 1000:.0f} ms expected"))

        control.reset_stats()
        pair = [threading.Thread(target=fetch, args=(port, b"big", SIZE)) for _ in range(2)]
        seconds = timed(lambda: [t.start() for t in pair] + [t.join() for t in pair])
        expected = 2 * SIZE / (RATE / 8) + 2 * DELAY
        results.append(check("shared rate", 0.9 * expected <= seconds <= 1.2 * expected,
                             f"two connections moved 2 x {SIZE} bytes in {seconds:.2f} s, {expected:.2f} s expected "
                             f"({RATE / 1e6:.0f} Mbit/s for both)"))
        stats = control.stats()
        results.append(check("byte counters", stats["down_bytes"] == 2 * SIZE and stats["up_bytes"] == 8
                             and stats["connections"] == 2, json.dumps(stats)))

        # A client that stops reading a big answer and closes: the link carries
        # what the server sent until the close reached it (one delay), not the
        # rest of the answer the server would go on writing.
        control.reset_stats()
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"big\n")
            sock.recv(1)
        time.sleep(SIZE / (RATE / 8) + 2 * DELAY)
        carried = control.stats()["down_bytes"]
        bound = 3 * DELAY * RATE / 8
        results.append(check("a closed peer stops the link", carried <= bound,
                             f"{carried} of {SIZE} bytes carried after the client closed, at most {bound:.0f} "
                             f"(the bytes in flight for three delays)"))

        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"small\n")
            sock.recv(1)
            control.outage(1.0)
            try:
                sock.settimeout(2)
                reset = sock.recv(1) == b"" and "closed"
            except ConnectionResetError:
                reset = "reset"
            except OSError as error:
                reset = str(error)
        results.append(check("outage resets an open connection", reset == "reset", f"the open connection was {reset}"))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            refused = "accepted"
        except ConnectionRefusedError:
            refused = "refused"
        results.append(check("outage refuses a new connection", refused == "refused", f"a new connection was {refused}"))
        time.sleep(1.2)
        back = timed(lambda: fetch(port, b"small", 1))
        results.append(check("link back after the outage", back < 2 * DELAY + 0.15, f"a request took {back * 1000:.0f} ms"))
        results.append(check("outage counted", control.stats()["outages"] == 1, json.dumps(control.stats())))
        results += check_kinds(port, control)
    finally:
        process.terminate()
        process.wait(10)
    if not all(results):
        sys.exit(1)


if __name__ == "__main__":
    main()
