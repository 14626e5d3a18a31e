#!/usr/bin/env python3
"""A display app's lease on what it shows (docs/cache-format.md#leases).

    [LEASE_WAIT=SECONDS] python3 lease.py LEASE_FILE PATH [LEASE_FILE PATH ...]

For each asset, LEASE_FILE is its "lease" from readiness.json and PATH the file
or folder to show. Prints "leased" once it holds every lease and has every PATH
open, then shows them until it is killed: the kernel drops the leases with the
process, however it ends. Exits 3 when a PATH is gone (it was removed before
the lease was taken: read readiness.json again), 4 when another process held a
LEASE_FILE exclusively for all of LEASE_WAIT seconds (10 by default; 0 does not
wait): a writer holds one only while it removes that asset, so try again later."""
import fcntl
import os
import signal
import sys


class HeldExclusively(Exception):
    pass


def on_alarm(number, frame):
    raise HeldExclusively  # ends the flock that waits too long


signal.signal(signal.SIGALRM, on_alarm)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})  # a parent may have blocked it
wait = int(os.environ.get("LEASE_WAIT", "10"))
held = []
arguments = sys.argv[1:]
for lease_file, path in zip(arguments[0::2], arguments[1::2]):
    try:
        # 1. The lease first: read access is all it needs (the file is 0444).
        lease = os.open(lease_file, os.O_RDONLY | os.O_NOFOLLOW)
        signal.alarm(wait)
        try:
            fcntl.flock(lease, fcntl.LOCK_SH if wait else fcntl.LOCK_SH | fcntl.LOCK_NB)
        finally:
            signal.alarm(0)
        if os.fstat(lease).st_nlink == 0:  # unlinked by a writer while we waited
            raise FileNotFoundError(f"{lease_file} was removed")
        # 2. Then the files; one that is missing went before the lease was taken.
        held += [lease, os.open(path, os.O_RDONLY)]
    except (HeldExclusively, BlockingIOError):
        print(f"lease {lease_file}: held exclusively by another process for {wait} s; try again later", file=sys.stderr)
        sys.exit(4)
    except OSError as error:
        print(f"{error}; read readiness.json again", file=sys.stderr)
        sys.exit(3)
print("leased", flush=True)
# 3. Show. Closing the lease descriptors, or exiting, releases them.
while True:
    signal.pause()
