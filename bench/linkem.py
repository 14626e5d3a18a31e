#!/usr/bin/env python3
"""A device's link, emulated in userspace: a TCP proxy on loopback.

    python3 bench/linkem.py --listen PORT --upstream HOST:PORT \
        --down 20mbit --up 5mbit --delay 60ms [--control PORT]

Every connection made to PORT is carried to HOST:PORT through one link:

- a token bucket per direction, shared by every connection (a modem's
  bandwidth is the link's, not each connection's), with a burst of 10 ms of
  the rate: bytes leave in FIFO order at the link's rate;
- a one-way delay per direction, after the bucket (propagation);
- outages on command, of four kinds (KINDS), each for a number of seconds:
  `refuse`: every open connection is reset (the kernel sends RST, so a client
  reads "Connection reset by peer", as at a cell handover) and the listening
  socket is closed (a new connection is refused); `silent`: nothing crosses
  the link either way, open connections and new ones alike (packets dropped:
  TCP holds them and retransmits, so what was sent arrives once the link is
  back, unless its receiver closed meanwhile); `reset`: open connections are reset and a new one is accepted, then
  reset before a byte is carried (a modem or NAT box whose uplink is gone, a
  VPN endpoint); `gateway`: open connections are closed and every request on
  a new one is answered `502 Bad Gateway` at once, nothing carried (a caching
  proxy on the LAN whose uplink is down: its answers do not cross the link,
  so they are not in the byte counters);
- byte counters per direction: bytes the link took (`down_bytes`,
  `up_bytes`: what a carrier bills at its gateway) and bytes it delivered to
  the far end (`down_delivered`, `up_delivered`: less by what an outage
  dropped in flight), and a count of connections;
- a peer that closes its connection stops the other side as a real link
  does: the far sender learns of it one delay later (the RST's trip) and the
  link carries what it sent meanwhile, nothing after. Without this the proxy
  would read a refused body to its end from the server and count it.

No kernel qdisc (tc/netem) is needed, so it runs on any CI and in containers.
What it does not emulate: loss and reordering (TCP would hide both as delay),
and a queue limit (the bucket's wait back-pressures the sender instead: a
connection's reader does not read the next segment until the link took the
last one, so at most delay × rate bytes are in flight per direction).

The control port (127.0.0.1 only) takes one command per line and answers one
JSON line: `stats`, `reset-stats`, `outage SECONDS [KIND]`, and `outage-after
BYTES SECONDS [KIND]`, which arms one outage to begin once the link has
delivered BYTES more towards the client: the cut lands mid-transfer by the
link's own count, however late a busy machine would let a watcher send
`outage`. KIND is `refuse` when not given; one outage at a time.

Used by bench/link.py (the link rows of `make bench`) and by the tests of
issue 29, which start it as a process.
"""

import argparse
import asyncio
import json
import re
import socket
import struct
import sys
import time

SEGMENT = 4096
KINDS = ("refuse", "silent", "reset", "gateway")
GATEWAY_BODY = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\r\n"


def parse_rate(text):
    """`20mbit`, `500kbit`, `2000000` (bit/s) → bytes per second."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(kbit|mbit|gbit)?", text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"not a rate: {text!r} (say 20mbit, 500kbit or bits per second)")
    scale = {None: 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[match.group(2)]
    return float(match.group(1)) * scale / 8


def parse_delay(text):
    """`60ms`, `0.3s`, `300` (ms) → seconds."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s)?", text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"not a delay: {text!r} (say 60ms or 0.3s)")
    value = float(match.group(1))
    return value if match.group(2) == "s" else value / 1000


class Bucket:
    """One direction of the link: segments leave one after the other at `rate`
    bytes a second. A virtual clock (`free_at`) rather than a token count, so
    waiting senders are served in the order they arrived. The clock may lag
    `now` by up to SLACK: a sender woken late by the event loop does not lose
    the link's time (without it a 20 Mbit/s link carried 13)."""

    SLACK = 0.01

    def __init__(self, rate):
        self.rate = rate
        self.free_at = 0.0
        self.bytes = 0
        self.delivered = 0

    async def send(self, size):
        now = time.monotonic()
        start = max(now - self.SLACK, self.free_at)
        self.free_at = start + size / self.rate
        self.bytes += size
        await asyncio.sleep(self.free_at - now)


class Link:
    def __init__(self, upstream, down, up, delay):
        self.upstream = upstream
        self.down = Bucket(down)
        self.up = Bucket(up)
        self.delay = delay
        self.connections = set()
        self.accepted = 0
        self.outages = 0
        # Outages that cut the open connections (every kind but `silent`): a
        # pipe stops when this moves.
        self.cuts = 0
        # The kind of the outage under way, or None.
        self.down_kind = None
        # Set while the link carries bytes; a `silent` outage clears it.
        self.carrying = None
        self.gateway_answers = 0
        self.resets = 0
        # (delivered-bytes mark, seconds, kind) of an armed outage, or None.
        self.armed = None
        self.server = None
        self.listen = None

    async def start(self, host, port):
        self.carrying = asyncio.Event()
        self.carrying.set()
        self.server = await asyncio.start_server(self.carry, host, port, reuse_address=True)
        # The port it got, not the 0 it may have been asked for: an outage
        # reopens the listening socket on this same port.
        self.listen = (host, self.server.sockets[0].getsockname()[1])
        return self.listen[1]

    async def carry(self, client_reader, client_writer):
        self.accepted += 1
        if self.down_kind == "reset":
            self.resets += 1
            reset(client_writer)
            return
        if self.down_kind == "gateway":
            await self.answer_gateway(client_reader, client_writer)
            return
        # A connection made during a silent outage reaches the far end once
        # the link is back (its SYN retransmitted).
        await self.carrying.wait()
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            reset(client_writer)
            return
        pair = (client_writer, server_writer)
        self.connections.add(pair)
        # When either end is gone (it closed, or a write to it failed): the
        # other end's pipe stops reading one delay after, the time the news
        # takes to cross the link.
        gone = Gone()
        try:
            await asyncio.gather(
                self.pipe(client_reader, server_writer, self.up, gone),
                self.pipe(server_reader, client_writer, self.down, gone),
            )
        finally:
            self.connections.discard(pair)
            for writer in pair:
                writer.close()

    async def pipe(self, reader, writer, bucket, gone):
        """Read a segment, let the link take it, deliver it `delay` later. The
        delivery runs beside the reading so one-way delay does not limit the
        rate (a link carries delay × rate bytes at once)."""
        queue = asyncio.Queue()

        async def deliver():
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not self.carrying.is_set():
                    await self.carrying.wait()
                    # After a silence the sender's TCP, its window collapsed by
                    # the retransmission timeout, resends one segment; a peer
                    # that closed meanwhile answers it with RST, and nothing
                    # more of what was held crosses.
                    if gone.at is not None:
                        break
                try:
                    writer.write(data)
                    await writer.drain()
                except (ConnectionError, RuntimeError):
                    gone.mark()
                    break
                bucket.delivered += len(data)
                if bucket is self.down:
                    self.fire_armed()
            if writer.can_write_eof() and not writer.is_closing():
                try:
                    writer.write_eof()
                except OSError:
                    pass

        delivery = asyncio.ensure_future(deliver())
        # An outage aborts the sockets, but the reader still holds what the
        # kernel had handed over (up to ~128 KiB per connection): that never
        # crossed the link and must not be counted as if it had.
        cuts = self.cuts
        try:
            while True:
                if gone.since(self.delay):
                    break
                try:
                    data = await reader.read(SEGMENT)
                except (ConnectionError, OSError):
                    gone.mark()
                    break
                if not data:
                    # The sender closed: for HTTP over this link that is the
                    # end of the connection (neither curl nor libcurl sends a
                    # half close), so the other side stops too.
                    gone.mark()
                    break
                if self.cuts != cuts or gone.since(self.delay):
                    break
                # Silent: the segment waits, as TCP would retransmit it.
                await self.carrying.wait()
                if self.cuts != cuts:
                    break
                await bucket.send(len(data))
                queue.put_nowait((time.monotonic() + self.delay, data))
        finally:
            queue.put_nowait((0, None))
            await delivery

    def arm(self, after_bytes, seconds, kind="refuse"):
        self.armed = (self.down.delivered + after_bytes, seconds, kind)

    def fire_armed(self):
        if self.armed and self.down.delivered >= self.armed[0]:
            _, seconds, kind = self.armed
            self.armed = None
            asyncio.ensure_future(self.outage(seconds, kind))

    async def outage(self, seconds, kind="refuse"):
        """Drop the link in the way `kind` says (the module's docstring), then
        come back."""
        self.outages += 1
        self.down_kind = kind
        if kind == "refuse":
            self.server.close()
        if kind == "silent":
            self.carrying.clear()
        else:
            self.cuts += 1
            for pair in list(self.connections):
                for writer in pair:
                    # A gateway closes its side; a link that drops resets.
                    if kind == "gateway":
                        writer.close()
                    else:
                        reset(writer)
            self.connections.clear()
        await asyncio.sleep(seconds)
        if kind == "refuse":
            self.server = await asyncio.start_server(self.carry, *self.listen, reuse_address=True)
        self.carrying.set()
        # Last: `stats` says the link is back only once it is, in every way.
        self.down_kind = None

    async def answer_gateway(self, reader, writer):
        """A request on a connection made to a gateway whose uplink is down:
        `502 Bad Gateway` (no body to a HEAD), then the connection closes."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            body = b"" if head.startswith(b"HEAD ") else GATEWAY_BODY
            self.gateway_answers += 1
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nServer: linkem\r\nContent-Type: text/html\r\n"
                         b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(GATEWAY_BODY) + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, OSError):
            pass
        writer.close()

    def stats(self):
        return {
            "down_bytes": self.down.bytes,
            "up_bytes": self.up.bytes,
            "down_delivered": self.down.delivered,
            "up_delivered": self.up.delivered,
            "connections": self.accepted,
            "outages": self.outages,
            "down_kind": self.down_kind,
            "gateway_answers": self.gateway_answers,
            "resets": self.resets,
        }

    def reset_stats(self):
        self.down.bytes = self.up.bytes = self.accepted = self.outages = 0
        self.gateway_answers = self.resets = 0
        self.down.delivered = self.up.delivered = 0


class Gone:
    """When one end of a connection went away, shared by its two pipes."""

    def __init__(self):
        self.at = None

    def mark(self):
        if self.at is None:
            self.at = time.monotonic()

    def since(self, seconds):
        """Has the other end known for `seconds` (the delay the news takes)?"""
        return self.at is not None and time.monotonic() >= self.at + seconds


def reset(writer):
    """Close with RST (SO_LINGER 0), as a link that drops does to the peer."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


async def control(link, reader, writer):
    while line := await reader.readline():
        words = line.decode(errors="replace").split()
        if words[:1] == ["stats"]:
            answer = link.stats()
        elif words[:1] == ["reset-stats"]:
            link.reset_stats()
            answer = link.stats()
        elif words[:1] == ["outage"] and len(words) in (2, 3) and kind_of(words[2:]):
            seconds, kind = float(words[1]), kind_of(words[2:])
            asyncio.ensure_future(link.outage(seconds, kind))
            answer = {"outage": seconds, "kind": kind}
        elif words[:1] == ["outage-after"] and len(words) in (3, 4) and kind_of(words[3:]):
            kind = kind_of(words[3:])
            link.arm(int(words[1]), float(words[2]), kind)
            answer = {"outage-after": int(words[1]), "seconds": float(words[2]), "kind": kind}
        else:
            answer = {"error": "commands: stats, reset-stats, outage SECONDS [KIND], outage-after BYTES SECONDS [KIND]; "
                               "KIND: " + ", ".join(KINDS)}
        writer.write((json.dumps(answer) + "\n").encode())
        await writer.drain()
    writer.close()


def kind_of(words):
    """The optional KIND of an outage command: `refuse` when absent, None when unknown."""
    if not words:
        return "refuse"
    return words[0] if words[0] in KINDS else None


async def serve(args):
    host, _, port = args.upstream.rpartition(":")
    link = Link((host or "127.0.0.1", int(port)), args.down, args.up, args.delay)
    listen = await link.start("127.0.0.1", args.listen)
    control_server = await asyncio.start_server(lambda r, w: control(link, r, w), "127.0.0.1", args.control)
    control_port = control_server.sockets[0].getsockname()[1]
    # One line on stdout says where it listens, so a caller waits for it (an
    # event) rather than sleeping.
    print(json.dumps({"listen": listen, "control": control_port}), flush=True)
    await asyncio.Event().wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=int, default=0, help="port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--upstream", required=True, help="HOST:PORT the link leads to")
    parser.add_argument("--down", type=parse_rate, required=True, help="server to client rate, e.g. 20mbit")
    parser.add_argument("--up", type=parse_rate, required=True, help="client to server rate, e.g. 5mbit")
    parser.add_argument("--delay", type=parse_delay, default=0.0, help="one-way delay, e.g. 60ms")
    parser.add_argument("--control", type=int, default=0, help="control port on 127.0.0.1 (0: any free one)")
    try:
        asyncio.run(serve(parser.parse_args()))
    except KeyboardInterrupt:
        sys.exit(130)


class Client:
    """The control port from Python: `Client(port).outage(5)`."""

    def __init__(self, port):
        self.port = port

    def ask(self, command):
        with socket.create_connection(("127.0.0.1", self.port)) as sock:
            sock.sendall((command + "\n").encode())
            return json.loads(sock.makefile().readline())

    def stats(self):
        return self.ask("stats")

    def reset_stats(self):
        return self.ask("reset-stats")

    def outage(self, seconds, kind="refuse"):
        return self.ask(f"outage {seconds} {kind}")


if __name__ == "__main__":
    main()
