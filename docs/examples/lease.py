#!/usr/bin/env python3
"""A display app's lease on what it shows (docs/cache-format.md#leases).

    python3 lease.py LEASE_FILE PATH [LEASE_FILE PATH ...]

For each asset, LEASE_FILE is its "lease" from readiness.json and PATH the file
or folder to show. Prints "leased" once it holds every lease and has every PATH
open, then shows them until it is killed: the kernel drops the leases with the
process, however it ends. Exits 3 when a PATH is gone (it was removed before
the lease was taken: read readiness.json again)."""
import fcntl
import os
import signal
import sys

held = []
arguments = sys.argv[1:]
for lease_file, path in zip(arguments[0::2], arguments[1::2]):
    try:
        # 1. The lease first: read access is all it needs (the file is 0444).
        lease = os.open(lease_file, os.O_RDONLY | os.O_NOFOLLOW)
        fcntl.flock(lease, fcntl.LOCK_SH)
        if os.fstat(lease).st_nlink == 0:  # unlinked by a writer while we waited
            raise FileNotFoundError(f"{lease_file} was removed")
        # 2. Then the files; one that is missing went before the lease was taken.
        held += [lease, os.open(path, os.O_RDONLY)]
    except OSError as error:
        print(f"{error}; read readiness.json again", file=sys.stderr)
        sys.exit(3)
print("leased", flush=True)
# 3. Show. Closing the lease descriptors, or exiting, releases them.
while True:
    signal.pause()
