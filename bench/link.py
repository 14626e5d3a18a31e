"""Rows L of `make bench` (issue 29): a device's link, emulated by bench/linkem.py
between the tools and nginx, on an LTE-like link (20 Mbit/s down, 5 up, 60 ms
one way) and a 3G-like one (2 and 0.5 Mbit/s, 300 ms). Each link carries its
own corpus: the first assets of bench/corpus.py's session of at most 320 KiB
(60 assets, ~4.6 MB, on LTE; the first 25 of those, ~1.6 MB, on 3G), one
message per asset, the last at session start. For each link, in one run:

- `curl --parallel --parallel-max 8` downloading those files (bench/baseline.sh
  --download-only) and a cold `prefetch run` of their manifest, alternating, and
  a cold run of the session-start message alone: ROUNDS of each, medians.
  Rows: all ready / curl (wall clock, spawn to exit); the session-start
  message's `ready_ms` in the full run / alone; bytes through the link (linkem's
  counters, both directions: response headers and requests included) / the
  corpus's bytes.
- cold runs with an outage of 5 s, and of 30 s, started at 0.4 x curl's
  median time on that link, of each of linkem's four kinds (`outage SECONDS
  KIND` on its control port): connects refused (every connection reset, new
  ones refused), nothing answered (no byte crosses either way), accepted then
  reset (a first hop whose uplink is gone), and a gateway on the LAN answering
  `502 Bad Gateway` to every request: every message ready in that same run? bytes
  delivered / corpus (what the link had in flight as it dropped, lost whatever
  the client, is in the note with the bytes the link took);
  time / (curl + outage), whose target is curl + outage + 3 s. When a run ends
  with messages not ready, the note says what a second run (the same cache, link
  up) then moved. Bytes and time count as met only when the run made every
  message ready: an incomplete run moves fewer bytes by not finishing.
- a cold run with `--max-download-bytes` at 40% of the corpus: bytes from the
  server (headers included) against the budget + the largest asset (one
  transfer in flight). A build without the option prints "not available in
  this build".
- a cold run watched by a stand-in display app (issue 40): `prefetch ready`
  run every 50 ms beside it, and `prefetch ready OPENER --wait 60` started
  with it. When the app first sees each message ready, against the run's
  `ready_ms` of that message: the session-start one within 1.2 x ready_ms +
  100 ms, every other within ready_ms + 1 s + one commit window (1 s); the
  wait's return within the session-start bound. Then a warm run of the same
  manifest, which changes no verdict: `readiness.json` keeps its inode and
  mtime.

Run alone with `python3 bench/run.py --bin DIR --only-link` (~9 minutes); the
numbers measure whatever binary DIR holds, pass or miss. `--link-outages
KIND,...`, `--link-outage-seconds N,...` and `--link-profiles LTE,3G` narrow
the outage rows (and the links), `--only-outages` runs only the outage rows
(and the curl rounds their targets need).
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

import delta
import linkem
from harness import BENCH, measure, message, write_json

MAX_ASSET = 320 * 1024
ROUNDS = 3
OUTAGES = (5, 30)
# linkem's kinds of outage (bench/linkem.py), as the rows name them.
OUTAGE_KINDS = {
    "refuse": "connects refused",
    "silent": "nothing answered",
    "reset": "accepted then reset",
    "gateway": "gateway answering 502",
}
OUTAGE_AT = 0.4
OUTAGE_SLACK = 3.0
BUDGET_SHARE = 0.4


class Profile:
    def __init__(self, name, down, up, delay, assets):
        self.name, self.down, self.up, self.delay, self.assets = name, down, up, delay, assets

    def describe(self):
        return f"{self.down}/{self.up} {self.delay}"


LINKS = (
    Profile("LTE", "20mbit", "5mbit", "60ms", 60),
    Profile("3G", "2mbit", "0.5mbit", "300ms", 25),
)


class Selection:
    """What run.py's options leave of rows L (every row by default)."""

    def __init__(self, kinds=tuple(OUTAGE_KINDS), seconds=OUTAGES, profiles=tuple(p.name for p in LINKS),
                 outages_only=False):
        unknown = [k for k in kinds if k not in OUTAGE_KINDS] + [p for p in profiles if p not in [l.name for l in LINKS]]
        if unknown:
            raise SystemExit(f"bench: unknown outage kind or link: {', '.join(unknown)} "
                             f"(kinds: {', '.join(OUTAGE_KINDS)}; links: {', '.join(l.name for l in LINKS)})")
        self.kinds, self.seconds, self.profiles, self.outages_only = kinds, seconds, profiles, outages_only


SELECTION = Selection()


def select(selection):
    global SELECTION
    SELECTION = selection


class Emulator:
    """bench/linkem.py as a process in front of nginx."""

    def __init__(self, profile, upstream_port):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(BENCH, "linkem.py"), "--upstream", f"127.0.0.1:{upstream_port}",
             "--down", profile.down, "--up", profile.up, "--delay", profile.delay],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("bench: linkem.py did not start")
        ports = json.loads(line)
        self.port = ports["listen"]
        self.control = linkem.Client(ports["control"])

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def wait_up(self, until):
        """After an outage: linkem says it is over (its listening socket
        reopened for `refuse`, bytes carried again for `silent`)."""
        time.sleep(max(0.0, until - time.monotonic()))
        deadline = time.monotonic() + 10
        while self.control.stats().get("down_kind") is not None:
            if time.monotonic() > deadline:
                raise SystemExit("bench: linkem did not come back after its outage")
            time.sleep(0.1)

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


def corpus(assets, count):
    return [a for a in assets if a["bytes"] <= MAX_ASSET][:count]


def write_inputs(folder, chosen, base):
    """The full manifest (the last message at session start), that message
    alone, and curl's list."""
    os.makedirs(folder, exist_ok=True)
    last = len(chosen) - 1
    triggers = [message(f"l{i:03d}", a, base, urgent=(i == last), index=i) for i, a in enumerate(chosen)]
    lists = os.path.join(folder, "lists")
    os.makedirs(lists, exist_ok=True)
    with open(os.path.join(lists, "curl.cfg"), "w") as f:
        for a in chosen:
            f.write(f'url = "{base}/{a["path"]}"\noutput = "{a["path"]}"\n')
    return {
        "full": write_json(os.path.join(folder, "full.json"), {"triggers": triggers}),
        "alone": write_json(os.path.join(folder, "alone.json"), {"triggers": [triggers[last]]}),
        "lists": lists,
        "opener": triggers[last]["id"],
    }


class Run:
    def __init__(self, seconds, status, report, stderr, link_bytes):
        self.seconds, self.status, self.report, self.stderr = seconds, status, report, stderr
        self.down, self.up = link_bytes["down_bytes"], link_bytes["up_bytes"]
        # What reached the far ends: less, by what an outage dropped in flight.
        self.delivered = link_bytes.get("down_delivered", self.down) + link_bytes.get("up_delivered", self.up)
        self.link_stats = link_bytes

    def ready(self):
        return self.report["totals"]["ready"] if self.report else 0

    def ready_ms(self, id):
        """Seconds; NaN when the message is not ready (the report has no ready_ms then): a missed row."""
        value = next(m.get("ready_ms") for m in self.report["messages"] if m["id"] == id)
        return float("nan") if value is None else value / 1000


def run_prefetch(bench, emulator, argv, cache, during=None):
    """One `prefetch … --json` through the link: wall time, exit status, report,
    stderr and the link's byte counts. `during` starts beside the process."""
    os.sync()
    emulator.control.reset_stats()
    started = time.perf_counter()
    child = subprocess.Popen([bench.bin] + argv + ["--cache-dir", cache, "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if during:
        during()
    out, err = child.communicate()
    seconds = time.perf_counter() - started
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    return Run(seconds, child.returncode, report, err.decode(errors="replace"), emulator.control.stats())


def checked(run, what):
    if run.report is None:
        raise SystemExit(f"bench: {what} exited {run.status} without a report: {run.stderr.strip()[-1000:]}")
    return run


def run_link(bench, profile, nginx, assets, log):
    chosen = corpus(assets, profile.assets)
    total = sum(a["bytes"] for a in chosen)
    key = f"L_{profile.name}_"
    emulator = Emulator(profile, nginx.port)
    try:
        inputs = write_inputs(os.path.join(bench.work, "link", profile.name), chosen, emulator.url())
        bench.notes[key + "corpus"] = (len(chosen), total, max(a["bytes"] for a in chosen))
        log(f"bench: L {profile.name} ({profile.describe()}): {len(chosen)} assets, {total / 1e6:.2f} MB, "
            f"{ROUNDS} rounds of curl, a cold run and the session-start message alone")

        def curl():
            emulator.control.reset_stats()
            r = measure(["bash", os.path.join(BENCH, "baseline.sh"), "curl", inputs["lists"],
                         bench.scratch.new(f"link-{profile.name}-curl"), "--download-only"])
            if r.status != 0:
                raise SystemExit(f"bench: curl over the {profile.name} link exited {r.status}")
            stats = emulator.control.stats()
            bench.add(key + "curl", r.seconds)
            bench.add(key + "curl_bytes", stats["down_bytes"] + stats["up_bytes"])

        def full():
            r = checked(run_prefetch(bench, emulator, ["run", inputs["full"]], bench.scratch.new(f"link-{profile.name}")),
                        "a cold run")
            bench.add(key + "all", r.seconds)
            bench.add(key + "ready", r.ready())
            bench.add(key + "bytes", r.down + r.up)
            bench.add(key + "down", r.down)
            bench.add(key + "F", r.ready_ms(inputs["opener"]))

        def alone():
            r = checked(run_prefetch(bench, emulator, ["run", inputs["alone"]],
                                     bench.scratch.new(f"link-{profile.name}-alone")), "the session-start message alone")
            bench.add(key + "F_alone", r.ready_ms(inputs["opener"]))

        jobs = [curl] if SELECTION.outages_only else [curl, full, alone]
        for number in range(ROUNDS):
            for job in jobs[number % len(jobs):] + jobs[:number % len(jobs)]:
                job()
        expected = statistics.median(bench.samples[key + "curl"])
        if not SELECTION.outages_only:
            display_run(bench, emulator, profile, inputs, log)
        for seconds in SELECTION.seconds:
            for kind in SELECTION.kinds:
                outage_run(bench, emulator, profile, inputs["full"], (seconds, kind), expected, len(chosen), log)
        if not SELECTION.outages_only:
            budget_run(bench, emulator, profile, inputs["full"], total, log)
    finally:
        emulator.stop()


POLL = 0.05
COMMIT_WINDOW = 1.0


def display_run(bench, emulator, profile, inputs, log):
    """A cold run watched by a stand-in display app polling `prefetch ready`
    every 50 ms, and a `ready OPENER --wait` started with it; then a warm run.
    Times count from the run's own start, as its ready_ms do: `started_at` in
    the cache's running.json, which the run writes before anything else (its
    offset from the spawn, process start-up, is in the note)."""
    key = f"L_{profile.name}_display_"
    log(f"bench: L {profile.name}: a cold run watched by a display app polling prefetch ready every 50 ms")
    cache = bench.scratch.new(f"link-{profile.name}-display")
    seen, waited, stop, state = {}, {}, threading.Event(), {"threads": []}

    def look():
        now = time.time()
        if "run_started" not in state:
            try:
                with open(os.path.join(cache, "running.json")) as f:
                    state["run_started"] = json.load(f)["started_at"]
            except (OSError, ValueError, KeyError):
                pass
        out = subprocess.run([bench.bin, "ready", "--cache-dir", cache], capture_output=True, text=True)
        for line in out.stdout.splitlines():
            fields = line.split("\t")
            if len(fields) > 1 and fields[1] == "ready":
                seen.setdefault(fields[0], now)

    def poll():
        tick = time.monotonic()
        while not stop.is_set():
            look()
            tick += POLL
            stop.wait(max(0, tick - time.monotonic()))
        look()  # once more after the run: what its last rewrite says

    def wait():
        r = subprocess.run([bench.bin, "ready", inputs["opener"], "--wait", "60", "--quiet", "--cache-dir", cache])
        waited["at"], waited["status"] = time.time(), r.returncode

    def during():
        state["spawned"] = time.time()
        for job in (poll, wait):
            thread = threading.Thread(target=job, daemon=True)
            thread.start()
            state["threads"].append(thread)

    r = checked(run_prefetch(bench, emulator, ["run", inputs["full"]], cache, during=during), "the watched cold run")
    stop.set()
    for thread in state["threads"]:
        thread.join(70)
    zero = state.get("run_started", state["spawned"])
    bench.notes[key + "startup"] = zero - state["spawned"]
    worst_urgent, worst_other, missing = 0.0, float("-inf"), []
    for m in r.report["messages"]:
        if m.get("ready_ms") is None:
            continue
        ready = m["ready_ms"] / 1000
        if m["id"] not in seen:
            missing.append(m["id"])
            continue
        lag = seen[m["id"]] - zero
        if m["id"] == inputs["opener"]:
            bench.notes[key + "urgent"] = (lag, ready)
        else:
            worst_other = max(worst_other, lag - (ready + 1 + COMMIT_WINDOW))
    bench.notes[key + "missing"] = missing
    bench.add(key + "other_over", worst_other)
    opener_ready = next(m["ready_ms"] for m in r.report["messages"] if m["id"] == inputs["opener"]) / 1000
    bench.notes[key + "wait"] = (waited.get("at", float("nan")) - zero, waited.get("status"), opener_ready)
    index = os.path.join(cache, "readiness.json")
    before = os.stat(index)
    warm = checked(run_prefetch(bench, emulator, ["run", inputs["full"]], cache), "the warm run")
    after = os.stat(index)
    bench.notes[key + "warm"] = ((before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns), warm.status,
                                 warm.report["totals"]["ready"])


def display_rows(s, notes, row, name, key):
    """The display app's rows of one link."""
    key += "display_"
    if key + "other_over" not in s:
        return
    missing = notes.get(key + "missing") or []
    seen, ready = notes.get(key + "urgent", (float("nan"), float("nan")))
    bound = 1.2 * ready + 0.1
    startup = notes.get(key + "startup", float("nan"))
    row(f"{name}: a polling display app sees session-start ready", f"{seen * 1000:.0f} ms", f"<= {bound * 1000:.0f} ms",
        seen <= bound and not missing,
        f"ready_ms {ready * 1000:.0f}; prefetch ready every 50 ms; from the run's start (running.json's started_at, "
        f"{startup * 1000:.0f} ms after the spawn)")
    over = s[key + "other_over"]
    row(f"{name}: a polling display app sees every other message ready", f"{over * 1000:+.0f} ms", "<= +0 ms",
        over <= 0 and not missing, "worst of (seen - (ready_ms + 1 s + 1 s commit window))"
        + (f"; never seen ready: {', '.join(missing)}" if missing else ""))
    seconds, status, opener = notes[key + "wait"]
    bound = 1.2 * opener + 0.1
    row(f"{name}: ready --wait started with the run returns", f"{seconds * 1000:.0f} ms", f"<= {bound * 1000:.0f} ms",
        status == 0 and seconds <= bound, f"exit {status}; ready_ms {opener * 1000:.0f}")
    untouched, status, ready_count = notes[key + "warm"]
    row(f"{name}: warm run leaves readiness.json untouched", "yes" if untouched else "no", "yes", untouched,
        f"same inode and mtime; warm run exit {status}, {ready_count} ready")


def outage_key(profile, seconds, kind):
    return f"L_{profile.name}_out{seconds}_{kind}_"


def outage_run(bench, emulator, profile, manifest, outage, expected, count, log):
    """A cold run with `outage` (seconds, linkem's kind) at 0.4 x curl's time."""
    seconds, kind = outage
    key = outage_key(profile, seconds, kind)
    at = OUTAGE_AT * expected
    log(f"bench: L {profile.name}: a cold run with a {seconds} s outage ({OUTAGE_KINDS[kind]}) at {at:.1f} s")
    fired = []

    def drop():
        fired.append(time.monotonic())
        emulator.control.outage(seconds, kind)

    timer = threading.Timer(at, drop)
    cache = bench.scratch.new(f"link-{profile.name}-outage{seconds}-{kind}")
    r = checked(run_prefetch(bench, emulator, ["run", manifest], cache, during=timer.start), f"the run with a {seconds} s outage")
    timer.cancel()
    if fired:
        emulator.wait_up(fired[0] + seconds)
    bench.add(key + "time", r.seconds)
    bench.add(key + "ready", r.ready())
    bench.add(key + "bytes", r.down + r.up)
    bench.add(key + "delivered", r.delivered)
    stats = r.link_stats
    notes = [f"exit {r.status}, {r.seconds:.1f} s" + ("" if fired else ", ended before the outage")
             + f"; link down {r.report.get('link', {}).get('outages', 0)} time(s), "
             f"{r.report.get('link', {}).get('down_seconds', 0):.1f} s by the report"
             + (f"; the gateway answered {stats.get('gateway_answers', 0)} requests" if kind == "gateway" else "")
             + (f"; {stats.get('resets', 0)} connections accepted then reset" if kind == "reset" else "")]
    if r.ready() < count:
        errors = {}
        for asset in r.report["assets"]:
            if asset.get("error"):
                kind = asset["error"].get("kind", "?")
                errors[kind] = errors.get(kind, 0) + 1
        if errors:
            notes.append("errors: " + ", ".join(f"{n} {k}" for k, n in sorted(errors.items())))
        again = checked(run_prefetch(bench, emulator, ["run", manifest], cache), "the run after an outage")
        notes.append(f"a second run (link up) made {again.ready()} of {count} ready, "
                     f"{(r.down + r.up + again.down + again.up) / bench.notes[f'L_{profile.name}_corpus'][1]:.3f}x "
                     f"the corpus over both runs")
    bench.notes[key] = "; ".join(notes)


def budget_run(bench, emulator, profile, manifest, total, log):
    key = f"L_{profile.name}_budget"
    budget = int(total * BUDGET_SHARE)
    log(f"bench: L {profile.name}: a cold run with --max-download-bytes {budget}")
    r = run_prefetch(bench, emulator, ["run", manifest, "--max-download-bytes", str(budget)],
                     bench.scratch.new(f"link-{profile.name}-budget"))
    if r.report is None and r.status == 2 and "max-download-bytes" in r.stderr and "unknown option" in r.stderr.lower():
        bench.notes[key] = "not available in this build"
        return
    checked(r, "the run with --max-download-bytes")
    bench.add(key, r.down)
    t = r.report["totals"]
    bench.notes[key] = (budget, f"exit {r.status}; {t['ready']} ready, {t.get('deferred', 0)} deferred, "
                                f"{t.get('downloaded_bytes', 0)} body bytes by the report")


def run(bench, nginx_class, assets, www, log):
    nginx = nginx_class(os.path.join(bench.work, "link"), www)
    try:
        for profile in LINKS:
            if profile.name not in SELECTION.profiles:
                continue
            run_link(bench, profile, nginx, assets, log)
            if SELECTION.outages_only:
                continue
            # Rows D (bench/delta.py): bundles updated by delta over the same link;
            # every update case on the LTE-like link, the one-file update on both.
            delta.run_profile(bench, profile, Emulator, nginx, www, log, matrix=profile is LINKS[0])
    finally:
        nginx.stop()


def run_delta(bench, nginx_class, www, log):
    """Rows D alone (run.py --only-delta): the bundle's folder under `www`."""
    os.makedirs(www, exist_ok=True)
    nginx = nginx_class(os.path.join(bench.work, "link"), www)
    try:
        for profile in LINKS:
            delta.run_profile(bench, profile, Emulator, nginx, www, log, matrix=profile is LINKS[0])
    finally:
        nginx.stop()


def profile_bdp(profile):
    """Bytes a link holds in flight one way: its down rate x its one-way delay."""
    return linkem.parse_rate(profile.down) * linkem.parse_delay(profile.delay)


def outage_rows(s, notes, row, profile, outage, count, total):
    """The three rows of one outage run (a kind, a length) on one link."""
    seconds, kind = outage
    key, out = f"L_{profile.name}_", outage_key(profile, seconds, kind)
    if out + "time" not in s:
        return
    name = f"L  {profile.name} ({profile.describe()}): {seconds} s outage, {OUTAGE_KINDS[kind]}"
    all_ready = s[out + "ready"] >= count
    row(f"{name}, at 40%: all ready in the run",
        f"{'yes' if all_ready else 'no'} ({s[out + 'ready']:.0f} of {count})", "yes", all_ready, notes.get(out, ""))
    # Through the link: what reached the device and the server. What was
    # in flight when the link dropped (its rate x one-way delay) is lost
    # whatever the client does; the note shows it, and what the link took.
    through = s.get(out + "delivered", s[out + "bytes"])
    ratio = through / total
    dropped = s[out + "bytes"] - through
    lost = (f"{dropped / 1e3:.0f} kB were in flight when it dropped (rate x delay {profile_bdp(profile) / 1e3:.0f} kB)"
            if kind != "silent" else f"{dropped / 1e3:.0f} kB held for connections the client closed in the silence, "
                                     f"never delivered")
    row(f"{name}: bytes / corpus", f"{ratio:.3f}", "<= 1.02", all_ready and ratio <= 1.02,
        f"delivered down + up; the link took {s[out + 'bytes'] / total:.3f}x: {lost}"
        + ("" if all_ready else "; not every message ready: the bytes of an unfinished run"))
    curl = s.get(key + "curl", float("nan"))
    base = curl + seconds
    ratio = s[out + "time"] / base
    limit = (base + OUTAGE_SLACK) / base
    row(f"{name}: time / (curl + outage)", f"{ratio:.2f}",
        f"<= {limit:.2f} (+{OUTAGE_SLACK:.0f} s)", all_ready and ratio <= limit,
        f"{s[out + 'time']:.1f} s against {curl:.1f} + {seconds} s"
        + ("" if all_ready else "; not every message ready"))


def rows(s, notes, row):
    """The table's rows L, from the samples `run` added."""
    for profile in LINKS:
        key = f"L_{profile.name}_"
        if key + "corpus" not in notes:
            continue
        count, total, largest = notes[key + "corpus"]
        name = f"L  {profile.name} ({profile.describe()})"
        if key + "all" in s:
            link_rows(s, notes, row, profile, key)
        for seconds in OUTAGES:
            for kind in OUTAGE_KINDS:
                outage_rows(s, notes, row, profile, (seconds, kind), count, total)
        budget_note = notes.get(key + "budget")
        what = f"{name}: --max-download-bytes {BUDGET_SHARE:.0%} of the corpus: bytes down"
        if isinstance(budget_note, tuple):
            budget, note = budget_note
            moved = s[key + "budget"]
            row(what, f"{moved / 1e6:.2f} MB", f"<= {(budget + largest) / 1e6:.2f} MB", moved <= budget + largest,
                f"budget {budget / 1e6:.2f} MB + the largest asset {largest / 1e3:.0f} kB (one transfer in flight); {note}")
        elif budget_note:
            row(what, budget_note, "<= budget + largest asset", note="the binary has no --max-download-bytes")
    delta.rows(notes, LINKS, row)


def link_rows(s, notes, row, profile, key):
    """The rows of one link while it is up."""
    count, total, _ = notes[key + "corpus"]
    name = f"L  {profile.name} ({profile.describe()})"
    ratio = s[key + "all"] / s[key + "curl"]
    row(f"{name}: all ready / curl", f"{ratio:.2f}", "<= 1.05", ratio <= 1.05 and s[key + "ready"] >= count,
        f"{count} assets, {total / 1e6:.2f} MB: prefetch {s[key + 'all']:.2f} s ({s[key + 'ready']:.0f} ready), "
        f"curl --parallel-max 8 {s[key + 'curl']:.2f} s")
    ratio = s[key + "F"] / s[key + "F_alone"]
    row(f"{name}: session-start ready, full / alone", f"{ratio:.2f}", "<= 1.1", ratio <= 1.1,
        f"ready_ms {s[key + 'F'] * 1000:.0f} in the full run, {s[key + 'F_alone'] * 1000:.0f} alone")
    display_rows(s, notes, row, name, key)
    ratio = s[key + "bytes"] / total
    row(f"{name}: bytes through the link / corpus", f"{ratio:.3f}", "<= 1.01", ratio <= 1.01,
        f"down + up (headers, requests); down only {s[key + 'down'] / total:.3f}, curl's down + up "
        f"{s[key + 'curl_bytes'] / total:.3f}")
