"""Rows V of `make bench` (issue 37): the free-space floor on a small, shared
file system.

V  a 400 MiB ext4 file system on a loop device (a tmpfs of that size where no
   loop device can be set up), 250 MiB of it another program's file, and a
   cold `prefetch run` of the session (bench/corpus.py, ~190 MB of assets and
   their unpacked trees) into a cache there, at the default --min-free: the
   smaller of 10% and 500 MiB, 40 MiB here. A thread samples the file
   system's free space (statvfs f_bavail, what other programs may take) every
   millisecond while the run goes, and keeps the least it saw. Then the other
   file is cut to nothing and the next run fetches what the first deferred.
   Targets: the least free space seen >= the floor; the session-start message
   ready; no message discarded (what does not fit is deferred, storage_low);
   every message ready after the other file shrank.

Needs root (mount, losetup). Run alone with
`python3 bench/run.py --bin DIR --only-floor`.
"""

import json
import os
import shutil
import subprocess
import threading
import time

from harness import measure, opener_id, write_inputs

FILE_SYSTEM = 400 << 20
OTHER_PROGRAM = 250 << 20


class SmallFileSystem:
    """An ext4 file system in an image on a loop device, else a tmpfs."""

    def __init__(self, work, log):
        self.mount = os.path.join(work, "mnt")
        self.image = os.path.join(work, "fs.img")
        self.loop = None
        os.makedirs(self.mount, exist_ok=True)
        try:
            with open(self.image, "wb") as f:
                f.truncate(FILE_SYSTEM)
            self.loop = subprocess.run(["losetup", "--find", "--show", self.image], check=True,
                                       capture_output=True, text=True).stdout.strip()
            subprocess.run(["mkfs.ext4", "-q", "-F", self.loop], check=True, capture_output=True)
            subprocess.run(["mount", self.loop, self.mount], check=True, capture_output=True)
            self.kind = "ext4 on a loop device"
        except (OSError, subprocess.CalledProcessError) as error:
            log(f"bench: V: no loop device ({error}); a tmpfs instead")
            self.release_loop()
            result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={FILE_SYSTEM}", "tmpfs", self.mount],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise SystemExit(f"bench: V needs root to mount a small file system: {result.stderr.strip()}")
            self.kind = "tmpfs"

    def free(self):
        info = os.statvfs(self.mount)
        return info.f_bavail * info.f_frsize

    def release_loop(self):
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop], capture_output=True)
            self.loop = None

    def close(self):
        subprocess.run(["umount", self.mount], capture_output=True)
        self.release_loop()
        if os.path.exists(self.image):
            os.remove(self.image)


class Watch:
    """The least free space seen, sampled every millisecond on a thread."""

    def __init__(self, fs):
        self.fs, self.lowest, self.samples = fs, None, 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while not self.stopping.is_set():
            free = self.fs.free()
            self.lowest = free if self.lowest is None else min(self.lowest, free)
            self.samples += 1
            time.sleep(0.001)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        return self.lowest, self.samples


def write_other_program(path, size):
    chunk = b"\xa5" * (1 << 20)
    with open(path, "wb") as f:
        for _ in range(size // len(chunk)):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


def run_json(bench, manifest, cache):
    """A run and its report; a run that failed (74: the disk was full) is a
    row that misses its target, not the end of the bench."""
    r = measure([bench.bin, "run", manifest, "--cache-dir", cache, "--json"])
    try:
        return r, json.loads(r.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"bench: V: prefetch run exited {r.status} without a report")


def default_floor(fs):
    """The default --min-free on this file system, for a build whose report has no free_space."""
    info = os.statvfs(fs.mount)
    return min(-(-info.f_blocks * info.f_frsize // 10), 500 << 20)


def run(bench, nginx_class, assets, www, log):
    work = os.path.join(bench.work, "floor")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    nginx = nginx_class(work, www)
    fs = SmallFileSystem(work, log)
    try:
        manifests, _ = write_inputs(work, assets, nginx)
        other = os.path.join(fs.mount, "other-program.db")
        write_other_program(other, OTHER_PROGRAM)
        cache = os.path.join(fs.mount, "cache")
        log(f"bench: V, a cold run into {FILE_SYSTEM >> 20} MiB ({fs.kind}) with {OTHER_PROGRAM >> 20} MiB taken, "
            f"{fs.free() >> 20} MiB free")
        watch = Watch(fs)
        cold, report = run_json(bench, manifests["session"], cache)
        lowest, samples = watch.stop()
        floor = report.get("free_space", {}).get("min_free_bytes", default_floor(fs))
        statuses = {}
        for m in report["messages"]:
            key = m["status"] + (f":{m['reason']}" if m["status"] == "deferred" else "")
            statuses[key] = statuses.get(key, 0) + 1
        opener = next(m for m in report["messages"] if m["id"] == opener_id(assets))
        bench.add("V_lowest", lowest)
        bench.add("V_floor", floor)
        bench.add("V_opener_ready", 1 if opener["status"] == "ready" else 0)
        bench.add("V_discarded", report["totals"]["discarded"])
        bench.add("V_deferred", statuses.get("deferred:storage_low", 0))
        bench.add("V_ready", report["totals"]["ready"])
        bench.add("V_status", cold.status)
        bench.notes["V"] = (f"{fs.kind}; {samples} samples over {cold.seconds:.1f} s; exit {cold.status}; "
                            + ", ".join(f"{n} {k}" for k, n in sorted(statuses.items()))
                            + f"; {report.get('free_space', {}).get('evicted_refs', 0)} refs evicted")
        os.truncate(other, 0)
        later, again = run_json(bench, manifests["session"], cache)
        bench.add("V_later_ready", again["totals"]["ready"])
        bench.notes["V later"] = f"{later.seconds:.1f} s, {again['totals']['deferred']} deferred, {again['totals']['discarded']} discarded"
    finally:
        nginx.stop()
        fs.close()
    shutil.rmtree(work, ignore_errors=True)


def rows(samples, notes, row, messages):
    if "V_lowest" not in samples:
        return
    mb = lambda b: f"{b / 1048576:.1f} MiB"
    floor = samples["V_floor"]
    row("V  floor: least free space during a cold run, 400 MiB fs, 250 MiB taken", mb(samples["V_lowest"]),
        f">= {mb(floor)} (--min-free)", samples["V_lowest"] >= floor, notes.get("V", ""))
    row("V  floor: session-start message ready", "yes" if samples["V_opener_ready"] else "no", "yes",
        samples["V_opener_ready"] == 1)
    row("V  floor: messages discarded / deferred storage_low", f"{samples['V_discarded']:.0f} / {samples['V_deferred']:.0f}",
        "0 discarded", samples["V_discarded"] == 0, f"{samples['V_ready']:.0f} ready")
    row("V  floor: the cold run's exit status", f"{samples['V_status']:.0f}", "0", samples["V_status"] == 0)
    row("V  floor: next run once the other file shrank: ready", f"{samples['V_later_ready']:.0f} of {messages}",
        f"{messages}", samples["V_later_ready"] == messages, notes.get("V later", ""))
