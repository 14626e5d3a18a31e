"""Rows I and J of `make bench` (issue 19): what a run may cost, by design.

I  peak RSS of `prefetch run --json` (report to /dev/null) over manifests of
   10,000 and 100,000 assets that nginx answers with 404, ten `asset_urls` per
   HTML message so that 100,000 fit the 8 MiB manifest limit. Measured by
   /usr/bin/time -v around the prefetch process itself. Target: 64 MiB + 1 KiB
   per asset.
J  100 assets on a fixture-server route that trickles 1,200 B/s, just above
   the stall limit (under 1 KiB/s for 15 s), every limit at its default: the
   run's wall time and the requests the server saw. Each request would run into
   --max-time (120 s) and be retried three times; a host given up after its
   second timeout ends the run after one round. Target: 2 x --max-time.

Run alone with `python3 bench/run.py --bin DIR --only-bounds`.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

ASSET_COUNTS = (10_000, 100_000)
URLS_PER_MESSAGE = 10
SLOW_ASSETS = 100
SLOW_RATE = 1200
MAX_TIME = 120


def timed(argv, stdout=os.devnull):
    """Wall seconds, peak RSS (KiB) and exit status of one process, as
    /usr/bin/time -v reports them for that process alone."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report, open(stdout, "wb") as out:
        started = time.perf_counter()
        status = subprocess.run(["/usr/bin/time", "-v", "-o", report.name] + argv, stdout=out, stderr=subprocess.PIPE).returncode
        seconds = time.perf_counter() - started
        fields = dict(line.strip().rsplit(": ", 1) for line in report.read().splitlines() if ": " in line)
    return seconds, int(fields["Maximum resident set size (kbytes)"]), status


def manifest_of_missing(path, base, count):
    """`count` URLs that do not exist, in HTML messages of URLS_PER_MESSAGE each."""
    triggers = []
    for first in range(0, count, URLS_PER_MESSAGE):
        urls = [f"{base}/missing/{n}.png" for n in range(first, min(count, first + URLS_PER_MESSAGE))]
        triggers.append({"id": f"h{first}", "type": "inapp", "data": {"type": "HTML", "asset_urls": urls}})
    with open(path, "w") as f:
        json.dump({"triggers": triggers}, f, separators=(",", ":"))
    return path


def memory_rows(bench, nginx_class, log):
    """I: one run per manifest size into an empty cache."""
    work = os.path.join(bench.work, "bounds")
    www = os.path.join(work, "www")
    os.makedirs(www, exist_ok=True)
    nginx = nginx_class(work, www)
    try:
        for count in ASSET_COUNTS:
            manifest = manifest_of_missing(os.path.join(work, f"missing-{count}.json"), nginx.url(), count)
            cache = os.path.join(work, "cache")
            shutil.rmtree(cache, ignore_errors=True)
            log(f"bench: I, {count:,} assets answered 404")
            seconds, kib, status = timed([bench.bin, "run", manifest, "--cache-dir", cache, "--json"])
            if status != 1:
                raise SystemExit(f"bench: prefetch run over {count} missing assets exited {status}, not 1")
            bench.add(f"I{count}", kib)
            bench.notes[f"I{count}"] = f"wall {seconds:.1f} s"
            shutil.rmtree(cache, ignore_errors=True)
    finally:
        nginx.stop()


def slow_host_row(bench, fixture_server, log):
    """J: one run against a host that never quite stalls."""
    work = os.path.join(bench.work, "slow-host")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "www"))
    with open(os.path.join(work, "www", "slow.bin"), "wb") as f:
        f.write(os.urandom(1024 * 1024))
    requests = os.path.join(work, "requests.jsonl")
    server = subprocess.Popen([fixture_server, "--root", os.path.join(work, "www"), "--log", requests],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = server.stdout.readline().strip()
        if not base.startswith("http://"):
            raise SystemExit("bench: fixture-server did not start")
        triggers = [{"id": f"s{n}", "type": "inapp", "data": {"type": "MODAL", "image_url": f"{base}/slow.bin?rate={SLOW_RATE}&n={n}"}}
                    for n in range(SLOW_ASSETS)]
        manifest = os.path.join(work, "slow.json")
        with open(manifest, "w") as f:
            json.dump({"triggers": triggers}, f)
        log(f"bench: J, {SLOW_ASSETS} assets at {SLOW_RATE} B/s (about {MAX_TIME} s)")
        report = os.path.join(work, "report.json")
        seconds, _, status = timed([bench.bin, "run", manifest, "--cache-dir", os.path.join(work, "cache"), "--json"], stdout=report)
        if status != 1:
            raise SystemExit(f"bench: prefetch run against the slow host exited {status}, not 1")
        with open(report) as f:
            kinds = {}
            for asset in json.load(f)["assets"]:
                kind = (asset["error"] or {}).get("kind", asset["outcome"])
                kinds[kind] = kinds.get(kind, 0) + 1
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    with open(requests) as f:
        made = sum(1 for _ in f)
    bench.add("J", seconds)
    bench.notes["J"] = (f"{made} requests; " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
                        + f"; before the host was given up: up to 4 requests x {MAX_TIME} s per asset, 6 at a time"
                        + f" (~{SLOW_ASSETS / 6 * 4 * MAX_TIME / 3600:.1f} h)")


def run(bench, nginx_class, log):
    memory_rows(bench, nginx_class, log)
    slow_host_row(bench, os.path.join(os.path.dirname(bench.bin), "fixture-server"), log)


def rows(samples, notes, row, mib):
    """The table's rows for I and J, from the samples `run` added."""
    for count in ASSET_COUNTS:
        key = f"I{count}"
        if key in samples:
            limit = 64 * 1024 + count
            row(f"I  peak RSS, run over {count:,} assets (404)", mib(samples[key]), f"<= {limit / 1024:.1f} MiB",
                samples[key] <= limit, notes.get(key, ""))
    if "J" in samples:
        row(f"J  slow host: {SLOW_ASSETS} assets at {SLOW_RATE} B/s", f"{samples['J']:.0f} s", f"<= {2 * MAX_TIME} s",
            samples["J"] <= 2 * MAX_TIME, notes.get("J", ""))
