"""Where bench/run.py's runs write: a new directory for every run, and no
deletion within a minute of a measured run.

On ext4 without a journal (this machine's root file system: no jbd2), creating
a file skips, one by one, every inode of its block group freed in the last 60 s
(recently_deleted() in fs/ext4/ialloc.c; 5 more minutes while the inode table
block is dirty), each skip a buffer-cache lookup. A cold run creates ~3,800
files (objects, unpacked trees, refs), the pipeline's runs ~3,300: deleting one
such directory just before the next run added 1-3.5 s of system time to that
run, growing with every deletion in the window (five cold runs in a row, each
after deleting its predecessor's cache: 1.5, 2.2, 3.1, 3.4, 3.9 s of system
time, against 0.3-0.5 s into a new directory). Which run paid depended on what
ran before it, so A, A', T and D were each inflated by a different amount. The
sync(1) before each run does not help: it only makes the window 60 s instead of
6 minutes.

So runs write into new directories, and the directories are deleted only
between rounds (when they hold more than `budget` bytes) and at the end, each
time followed by a pause of `SETTLE` seconds before the next measured run."""

import os
import shutil
import time

SETTLE = 65  # recently_deleted()'s 60 s window, and a margin


class Scratch:
    def __init__(self, root, budget, log, legacy=()):
        self.root = root
        self.budget = budget
        self.log = log
        self.count = 0
        self.deleted_at = None
        # Leftovers of an earlier bench (an interrupted one, or the layout
        # before this one: caches/ and baseline/ reused from run to run).
        self.clear(*legacy)

    def new(self, name):
        """A directory path no run has used; the run creates it."""
        self.count += 1
        return os.path.join(self.root, f"{self.count:04d}-{name}")

    def clear(self, *others):
        present = [p for p in (self.root, *others) if os.path.lexists(p)]
        for path in present:
            shutil.rmtree(path, ignore_errors=True)
        os.makedirs(self.root, exist_ok=True)
        if present:
            os.sync()
            self.deleted_at = time.monotonic()

    def settle(self):
        """Waits until no deletion of ours is recent enough to slow a file's creation."""
        if self.deleted_at is None:
            return
        wait = self.deleted_at + SETTLE - time.monotonic()
        if wait > 0:
            self.log(f"bench: waiting {wait:.0f} s after deleting earlier runs' files (bench/scratch.py)")
            time.sleep(wait)

    def between_rounds(self):
        if self.used() > self.budget:
            self.clear()
            self.settle()

    def used(self):
        total = 0
        for top, _, files in os.walk(self.root):
            for name in files:
                try:
                    total += os.lstat(os.path.join(top, name)).st_blocks * 512
                except OSError:
                    pass
        return total
