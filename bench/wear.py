"""Rows W of `make bench` (issue 37, point 4): the bytes a run writes to the
block device, as a flash card under a signage player would be worn by them.

The cache lives on a 1 GiB ext4 filesystem on a loop device made for the
purpose (mounted with the defaults, `relatime`); the device's own counter
(field 7 of /sys/block/loopN/stat, sectors written) is read after a sync(1)
on both sides of each run, so journal, inode and directory blocks count with
the files' data. nginx serves the corpus three ways: as it does by default
(old Last-Modified, so a warm run asks nothing), with `Cache-Control:
max-age=1` (every warm run revalidates every asset and each 304 brings a new
lifetime to record) and with `no-cache` (every warm run revalidates, nothing
to record but that).

W  cold run: bytes written / bytes kept (`du` of objects/ and trees/),
   target <= 1.3; warm runs with nothing changed, the largest of three,
   target <= 256 KiB each way.

Needs root (losetup, mount); elsewhere the rows say so. Run alone with
`python3 bench/run.py --bin DIR --only-wear`.
"""

import json
import os
import shutil
import subprocess
import time

from harness import free_port, measure, write_inputs

IMAGE_BYTES = 1 << 30
WARM_RUNS = 3
WARM_TARGET = 256 * 1024
COLD_TARGET = 1.3


class LoopFilesystem:
    """A fresh ext4 filesystem on a loop device, mounted at `mountpoint`."""

    def __init__(self, work):
        self.image = os.path.join(work, "wear.img")
        self.mountpoint = os.path.join(work, "wear-mnt")
        os.makedirs(self.mountpoint, exist_ok=True)
        with open(self.image, "wb") as f:
            f.truncate(IMAGE_BYTES)
        self.device = subprocess.run(["losetup", "-f", "--show", self.image], check=True,
                                     capture_output=True, text=True).stdout.strip()
        try:
            # Inode tables and journal zeroed now, not by a kernel thread during the runs.
            subprocess.run(["mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", self.device], check=True)
            subprocess.run(["mount", self.device, self.mountpoint], check=True)
        except BaseException:
            subprocess.run(["losetup", "-d", self.device])
            raise
        self.stat = f"/sys/block/{os.path.basename(self.device)}/stat"

    def sectors_written(self):
        with open(self.stat) as f:
            return int(f.read().split()[6])

    def written_by(self, run):
        """Bytes the device took for `run()`, its writeback included."""
        os.sync()
        before = self.sectors_written()
        result = run()
        os.sync()
        return (self.sectors_written() - before) * 512, result

    def close(self):
        subprocess.run(["umount", self.mountpoint])
        subprocess.run(["losetup", "-d", self.device])
        os.unlink(self.image)


def kept_bytes(cache):
    """Disk blocks of the cache's content, as `du` counts them."""
    out = subprocess.run(["du", "-s", "--block-size=1", os.path.join(cache, "objects"), os.path.join(cache, "trees")],
                         check=True, capture_output=True, text=True).stdout
    return sum(int(line.split()[0]) for line in out.splitlines())


def run(bench, nginx_class, assets, www, log):
    if os.geteuid() != 0:
        bench.notes["W"] = "not run: needs root for losetup and mount"
        return
    work = os.path.join(bench.work, "wear")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    max_age = "\n    server {\n        listen 127.0.0.1:%d;\n        root %s;\n        add_header Cache-Control max-age=1;\n    }"
    port = free_port()
    nginx = nginx_class(work, www, extra_servers=max_age % (port, www), extra_ports=(port,))
    disk = LoopFilesystem(work)
    try:
        manifests, _ = write_inputs(work, assets, nginx)
        revalidated, _ = write_inputs(os.path.join(work, "max-age"), assets, ByBase(f"http://127.0.0.1:{port}"))
        bench.wear = {}
        for name, manifest in (("default", manifests["session"]), ("max-age", revalidated["session"]),
                               ("no-cache", manifests["session-no-cache"])):
            log(f"bench: W {name}: a cold run and {WARM_RUNS} warm runs on {disk.device}")
            bench.wear[name] = cold_and_warm(bench, disk, manifest, len(assets), name)
    finally:
        disk.close()
        nginx.stop()


class ByBase:
    """write_inputs' view of a server: only its base URL."""

    def __init__(self, base):
        self.base = base

    def url(self, no_cache=False):
        return self.base


def cold_and_warm(bench, disk, manifest, count, name):
    cache = os.path.join(disk.mountpoint, name)

    def prefetch():
        r = measure([bench.bin, "run", manifest, "--cache-dir", cache, "--json"])
        if r.status != 0:
            raise SystemExit(f"bench: W: prefetch run {manifest} exited {r.status}")
        totals = json.loads(r.stdout)["totals"]
        if totals["ready"] != count:
            raise SystemExit(f"bench: W: expected {count} ready, got {totals}")
        return json.loads(r.stdout)

    cold, _ = disk.written_by(prefetch)
    warm, outcomes = [], []
    for _ in range(WARM_RUNS):
        # A lifetime of one second has run out by the next run.
        time.sleep(1.1 if name == "max-age" else 0)
        written, report = disk.written_by(prefetch)
        warm.append(written)
        outcomes.append(report_outcomes(report))
    return {"cold": cold, "kept": kept_bytes(cache), "warm": warm, "outcomes": outcomes[-1],
            "state": os.path.getsize(os.path.join(cache, "state.json"))}


def report_outcomes(report):
    counts = {}
    for asset in report["assets"]:
        counts[asset["outcome"]] = counts.get(asset["outcome"], 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def rows(bench, row):
    wear = getattr(bench, "wear", None)
    if not wear:
        row("W  bytes written to the device", "not run", note=bench.notes.get("W", ""))
        return
    default = wear["default"]
    ratio = default["cold"] / default["kept"]
    row("W  cold run: device bytes / bytes kept", f"{ratio:.2f}", f"<= {COLD_TARGET}", ratio <= COLD_TARGET,
        f"{default['cold']:,} B written, {default['kept']:,} B kept (du of objects/ and trees/)")
    for name, what in (("default", "nothing asked (heuristic freshness)"), ("max-age", "every asset revalidated, 304 with max-age=1"),
                       ("no-cache", "every asset revalidated, 304 with no-cache")):
        most = max(wear[name]["warm"])
        row(f"W  warm run, {what}: device bytes", f"{most / 1024:.0f} KiB", "<= 256 KiB", most <= WARM_TARGET,
            f"the largest of {WARM_RUNS}: " + ", ".join(f"{b:,}" for b in wear[name]["warm"])
            + f" B; {wear[name]['outcomes']}; state.json {wear[name]['state']:,} B")
