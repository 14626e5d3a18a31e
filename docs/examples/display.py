#!/usr/bin/env python3
"""A display app that knows nothing of prefetch but its readiness index.

    [LEASE_WAIT=SECONDS] python3 display.py CACHE_DIR MESSAGE_ID [SECONDS]

With SECONDS, first waits up to that long for MESSAGE_ID to be ready, across a
run in progress, with `prefetch ready MESSAGE_ID --wait SECONDS` (which waits
by inotify; the session-start loop of the README). Then reads
CACHE_DIR/readiness.json, and if MESSAGE_ID is ready: takes the lease of
each of its assets, opens what it would show (an image's file, a bundle's
index.html), prints "showing" and each path, and shows them until it is
killed. Exits 1 when the message is not ready, 3 when a file went away before
its lease was taken (read the index again), 4 when another process held a lease
file exclusively for all of LEASE_WAIT seconds (10 by default), as lease.py
does. The leases end with the process, however it ends: nothing is left behind."""
import fcntl
import json
import os
import signal
import subprocess
import sys


class HeldExclusively(Exception):
    pass


def on_alarm(number, frame):
    raise HeldExclusively  # ends the flock that waits too long


signal.signal(signal.SIGALRM, on_alarm)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})  # a parent may have blocked it
wait = int(os.environ.get("LEASE_WAIT", "10"))
cache, wanted = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3:
    # 0 ready, 1 decided not to be, 75 not yet: the index below says which.
    subprocess.run(["prefetch", "ready", wanted, "--wait", sys.argv[3], "--quiet", "--cache-dir", cache])
with open(os.path.join(cache, "readiness.json"), "rb") as index:
    messages = {message["id"]: message for message in json.load(index)["messages"]}
message = messages.get(wanted)
if message is None or message["status"] != "ready":
    print(f"{wanted}: not ready", file=sys.stderr)
    sys.exit(1)

held, shown = [], []
for asset in message["assets"]:
    try:
        # The lease first (read access is enough), then the files.
        lease = os.open(asset["lease"], os.O_RDONLY | os.O_NOFOLLOW)
        signal.alarm(wait)  # a writer holds it only while it removes the asset
        try:
            fcntl.flock(lease, fcntl.LOCK_SH if wait else fcntl.LOCK_SH | fcntl.LOCK_NB)
        finally:
            signal.alarm(0)
        if os.fstat(lease).st_nlink == 0:  # unlinked by a writer while we waited
            raise FileNotFoundError(f"{asset['lease']} was removed")
        path = asset.get("entry") or asset["path"]
        held += [lease, os.open(path, os.O_RDONLY)]
        shown.append(path)
    except (HeldExclusively, BlockingIOError):
        print(f"lease {asset['lease']}: held exclusively by another process for {wait} s; try again later", file=sys.stderr)
        sys.exit(4)
    except OSError as error:
        print(f"{error}; read readiness.json again", file=sys.stderr)
        sys.exit(3)
print("showing", *shown, sep="\n", flush=True)
while True:
    signal.pause()
