#!/usr/bin/env python3
"""The benchmark of issue 6: `prefetch` against curl, aria2 and a real web server.

    python3 bench/run.py --bin DIR [--rounds 5] [--no-big] [--work DIR]

Run through `make bench`, which installs the tools and builds `prefetch` in
release mode first. Generates the corpus (bench/corpus.py), starts nginx on
127.0.0.1 with a configuration of its own, runs every measurement once per round
in an order that rotates from round to round, prints one table of medians and
writes it into BENCHMARKS.md between the bench:begin/end markers (the notes
around them are kept).

A  cold `prefetch run` of the 600-message session into an empty cache
B  the same manifest again (warm); nginx's Last-Modified is old, so every asset
   has heuristic freshness and B makes no request
A' B'  the same pair from a server that adds `Cache-Control: no-cache`, so B'
   revalidates every asset (600 conditional GETs, 304s)
C  `prefetch plan --json` over 1,000 and 10,000 messages reusing the 600 cached assets;
   `prefetch plan` (text) of the 10,000 beside Python's json.load of the same file
D  curl --parallel --parallel-max 8, then pngcheck, djpeg, giftext -p, dwebp and
   unzip (bench/baseline.sh)
E  aria2c -j 8, then the same checks
F  ready_ms of the session-start message, whose asset is the last of the 600,
   against ready_ms of a cold run of that message alone
G  peak RSS (wait4 ru_maxrss) of A, and of a run whose only asset is a 1 GiB ZIP
   of stored data
T  a cold run of the session over HTTPS/1.1 and over HTTPS/2 (nginx `http2`, a
   private CA made by openssl, --cacert), with the connections each opened
   (bench/tls.py)
H  `prefetch run --limit-rate 200K` of 2 MiB in 8 assets from fixture-server: body
   bytes over the time from the first request's arrival to the last response's
   end, both from the server's --log, against the limit for the whole run
I J  peak RSS over 10,000 and 100,000 assets, and a slow host's hold on a run:
   run once, after the rounds (bench/bounds.py)
K  fsync, fdatasync and syncfs calls of a cold run (strace -f -c), and D0: D
   without its checks (curl download only)
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

import bounds
import tls

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(TOP, "bench")
BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"


def log(text):
    print(text, file=sys.stderr, flush=True)


class Result:
    def __init__(self, seconds, rss_kib, status, stdout, cpu_seconds=0.0):
        self.seconds = seconds
        self.rss_kib = rss_kib
        self.status = status
        self.stdout = stdout
        self.cpu_seconds = cpu_seconds


def measure(argv, stdout_file=None, env=None):
    """Wall time and peak RSS of one child, from wait4. Every measured run starts
    after a sync(1), so that none pays for the writeback (or the discards of
    deleted files) left over by the run before it."""
    os.sync()
    out = open(stdout_file, "wb") if stdout_file else subprocess.PIPE
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env)
    captured = b""
    if stdout_file is None:
        captured = child.stdout.read()
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if stdout_file:
        out.close()
    if err.strip():
        log(err.decode(errors="replace").strip()[:2000])
    return Result(seconds, usage.ru_maxrss, child.returncode, captured, usage.ru_utime + usage.ru_stime)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- nginx --------------------------------------------------------------------


class Nginx:
    """nginx in the foreground on two loopback ports over the corpus: the first as
    nginx serves files by default (ETag, Last-Modified), the second adding
    `Cache-Control: no-cache`."""

    def __init__(self, work, www, extra_servers="", extra_ports=()):
        self.prefix = os.path.join(work, "nginx")
        shutil.rmtree(self.prefix, ignore_errors=True)
        os.makedirs(os.path.join(self.prefix, "logs"))
        self.port = free_port()
        self.no_cache_port = free_port()
        temp = os.path.join(self.prefix, "temp")
        conf = f"""
daemon off;
master_process on;
worker_processes 2;
{"user root;" if os.geteuid() == 0 else ""}
pid {self.prefix}/nginx.pid;
error_log {self.prefix}/logs/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    types {{ image/png png; image/jpeg jpg; image/gif gif; image/webp webp; application/zip zip; application/json json; }}
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    server {{
        listen 127.0.0.1:{self.port};
        root {www};
    }}
    server {{
        listen 127.0.0.1:{self.no_cache_port};
        root {www};
        add_header Cache-Control no-cache;
    }}{extra_servers}
}}
"""
        os.makedirs(temp)
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        binary = shutil.which("nginx") or "/usr/sbin/nginx"  # /usr/sbin is not on every user's PATH
        self.process = subprocess.Popen(
            [binary, "-p", self.prefix, "-c", self.conf, "-e", os.path.join(self.prefix, "logs/error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit("bench: nginx exited: " + self.process.stderr.read().decode(errors="replace"))
            try:
                for port in (self.port, self.no_cache_port, *extra_ports):
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise SystemExit("bench: nginx did not start listening")

    def url(self, no_cache=False):
        return f"http://127.0.0.1:{self.no_cache_port if no_cache else self.port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# --- H: --limit-rate -----------------------------------------------------------

LIMIT_RATE = 200 * 1024


def limit_rate_sample(bin_dir, work, files=8, size=256 * 1024):
    """One cold run of `prefetch --limit-rate 200K` over `files` assets of `size`
    bytes from fixture-server (its --log gives each request's start and end).
    Returns (bytes per second as the server saw them, a note)."""
    root = os.path.join(work, "limit-rate")
    www, cache, server_log = os.path.join(root, "www"), os.path.join(root, "cache"), os.path.join(root, "requests.jsonl")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(www)
    for i in range(files):
        with open(os.path.join(www, f"asset{i}.bin"), "wb") as f:
            f.write(bytes((i * 31 + j * 7) % 251 for j in range(size)))
    # The smallest send buffer (Linux raises 1 to its floor of about 4.5 KiB): a
    # response then ends in the log when the client has all but read it.
    server = subprocess.Popen([os.path.join(bin_dir, "fixture-server"), "--root", www, "--log", server_log, "--send-buffer", "1"],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = server.stdout.readline().strip()
        manifest = write_json(os.path.join(root, "m.json"), {"triggers": [
            {"id": f"h{i}", "type": "inapp", "trigger_condition": [{"type": "open"}],
             "data": {"type": "HTML", "asset_urls": [f"{base}/asset{i}.bin"]}} for i in range(files)]})
        run = measure([os.path.join(bin_dir, "prefetch"), "run", manifest, "--limit-rate", "200K", "--cache-dir", cache, "--json"])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    if run.status != 0:
        raise SystemExit(f"bench: prefetch --limit-rate exited {run.status}")
    with open(server_log) as f:
        requests = [json.loads(line) for line in f]
    total = sum(r["body_bytes"] for r in requests)
    if total != files * size:
        raise SystemExit(f"bench: --limit-rate run moved {total} bytes, expected {files * size}")
    seconds = max(r["ended"] for r in requests) - min(r["started"] for r in requests)
    return total / seconds, f"{total / 1048576:.0f} MiB in {seconds:.2f} s by the server's log; prefetch's wall time {run.seconds:.2f} s"


# --- manifests ----------------------------------------------------------------


def message(id, asset, base, urgent=False, index=0):
    url = f"{base}/{asset['path']}"
    if asset["kind"] == "archive":
        data = {"type": "HTML_FULL", "message": f"bundle {id}", "zipped_assets_url": url}
    else:
        data = {"type": ["MODAL", "FULL", "SLIDEUP"][index % 3], "message": f"image {id}", "image_url": url}
    condition = [{"type": "open"}] if urgent else [{"type": "custom_event", "data": {"event_name": f"event-{index % 20}"}}]
    return {
        "id": id, "type": "inapp", "priority": index % 5, "start_time": -1, "end_time": -1,
        "min_seconds_since_last_trigger": -1, "trigger_condition": condition, "data": data,
    }


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, separators=(",", ":"))
    return path


def write_inputs(work, assets, nginx):
    """Manifests for every run, and the baseline's download lists."""
    m = os.path.join(work, "manifests")
    os.makedirs(m, exist_ok=True)
    last = len(assets) - 1

    def session(base):
        return {"triggers": [message(f"m{i:03d}", a, base, urgent=(i == last), index=i) for i, a in enumerate(assets)]}

    def plan(count):
        return {"triggers": [message(f"p{j:05d}", assets[j % len(assets)], nginx.url(), index=j) for j in range(count)]}

    paths = {
        "session": write_json(f"{m}/session.json", session(nginx.url())),
        "session-no-cache": write_json(f"{m}/session-no-cache.json", session(nginx.url(no_cache=True))),
        "single": write_json(f"{m}/single.json", {"triggers": [message(opener_id(assets), assets[last], nginx.url(), urgent=True, index=last)]}),
        "plan-1000": write_json(f"{m}/plan-1000.json", plan(1000)),
        "plan-10000": write_json(f"{m}/plan-10000.json", plan(10000)),
        "big": write_json(f"{m}/big.json", {"triggers": [message("big", {"path": "big/big.zip", "kind": "archive"}, nginx.url())]}),
    }
    lists = os.path.join(work, "lists")
    os.makedirs(lists, exist_ok=True)
    with open(f"{lists}/curl.cfg", "w") as f:
        for a in assets:
            f.write(f'url = "{nginx.url()}/{a["path"]}"\noutput = "{a["path"]}"\n')
    with open(f"{lists}/aria2.txt", "w") as f:
        for a in assets:
            f.write(f'{nginx.url()}/{a["path"]}\n  out={a["path"]}\n')
    # One list per image format, for the checker of that format.
    for name, suffix in (("pngs", ".png"), ("jpegs", ".jpg"), ("gifs", ".gif"), ("webps", ".webp")):
        with open(f"{lists}/{name}.txt", "w") as f:
            f.writelines(a["path"] + "\n" for a in assets if a["path"].endswith(suffix))
    with open(f"{lists}/zips.txt", "w") as f:
        f.writelines(a["path"] + "\n" for a in assets if a["kind"] == "archive")
    return paths, lists


def opener_id(assets):
    """The session-start message: the last one."""
    return f"m{len(assets) - 1:03d}"


# --- the runs -----------------------------------------------------------------


class Bench:
    def __init__(self, args, assets):
        self.assets = assets
        self.bin = os.path.join(os.path.abspath(args.bin), "prefetch")
        self.work = os.path.abspath(args.work)
        self.samples = {}
        self.notes = {}
        self.reports = {}

    def add(self, key, value):
        self.samples.setdefault(key, []).append(value)

    def prefetch(self, argv, cache, fresh=False, expect_ready=None, out=None):
        if fresh:
            shutil.rmtree(cache, ignore_errors=True)
        result = measure([self.bin] + argv + ["--cache-dir", cache, "--json"], stdout_file=out)
        if result.status != 0:
            raise SystemExit(f"bench: prefetch {' '.join(argv)} exited {result.status}")
        if out:
            return result, None
        report = json.loads(result.stdout)
        if expect_ready is not None and report["totals"]["ready"] != expect_ready:
            raise SystemExit(f"bench: expected {expect_ready} ready messages, got {report['totals']}")
        return result, report

    @staticmethod
    def outcomes(report):
        counts = {}
        for asset in report["assets"]:
            counts[asset["outcome"]] = counts.get(asset["outcome"], 0) + 1
        return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))

    def run_cold_warm(self, manifests, no_cache):
        tag = "'" if no_cache else ""
        cache = os.path.join(self.work, "caches", "no-cache" if no_cache else "session")
        manifest = manifests["session-no-cache" if no_cache else "session"]
        a, report = self.prefetch(["run", manifest], cache, fresh=True, expect_ready=len(self.assets))
        self.add("A" + tag, a.seconds)
        self.notes["A" + tag] = self.outcomes(report)
        if not no_cache:
            self.add("G_A", a.rss_kib)
            opener = next(m for m in report["messages"] if m["id"] == opener_id(self.assets))
            self.add("F", opener["ready_ms"] / 1000)
            self.notes["A objects"] = len(os.listdir(os.path.join(cache, "refs")))
        b, report = self.prefetch(["run", manifest], cache, expect_ready=len(self.assets))
        self.add("B" + tag, b.seconds)
        self.notes["B" + tag] = self.outcomes(report)
        if not no_cache:
            # Three of each per round: single runs of ~0.1 s are the noisiest numbers here.
            for _ in range(3):
                for count in (1000, 10000):
                    c, _ = self.prefetch(["plan", manifests[f"plan-{count}"]], cache, out=os.devnull)
                    self.add(f"C{count}", c.seconds)
                c = measure([self.bin, "plan", manifests["plan-10000"], "--cache-dir", cache], stdout_file=os.devnull)
                self.add("C10000_text", c.seconds)
                # The same file through Python's C JSON decoder, interpreter start included:
                # sys.executable, not a `python3` on PATH that may be a wrapper script (pyenv).
                py = measure([sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1],'rb'))",
                              manifests["plan-10000"]], stdout_file=os.devnull)
                self.add("C10000_python", py.seconds)

    def run_callgrind(self, manifests):
        """Instruction counts (bench/callgrind.sh), which the machine's load does not move."""
        cache = os.path.join(self.work, "caches", "session")
        out = subprocess.run(["bash", os.path.join(BENCH, "callgrind.sh"), os.path.dirname(manifests["plan-10000"]), cache],
                             capture_output=True, text=True, env=dict(os.environ, PYTHON=sys.executable))
        if out.returncode != 0:
            raise SystemExit("bench: callgrind.sh failed: " + out.stderr[-2000:])
        self.counts = {name: int(value) for name, value in (line.split() for line in out.stdout.splitlines())}

    def run_single(self, manifests):
        cache = os.path.join(self.work, "caches", "single")
        r, report = self.prefetch(["run", manifests["single"]], cache, fresh=True, expect_ready=1)
        self.add("F_alone", report["messages"][0]["ready_ms"] / 1000)
        self.add("F_alone_wall", r.seconds)

    def run_baseline(self, tool, lists):
        out = os.path.join(self.work, "baseline")
        shutil.rmtree(out, ignore_errors=True)
        r = measure(["bash", os.path.join(BENCH, "baseline.sh"), tool, lists, out])
        if r.status != 0:
            raise SystemExit(f"bench: the {tool} pipeline exited {r.status}")
        self.add("D" if tool == "curl" else "E", r.seconds)

    def run_limit_rate(self):
        rate, note = limit_rate_sample(os.path.dirname(self.bin), self.work)
        self.add("H", rate)
        self.notes["H"] = note

    def run_big(self, manifests):
        cache = os.path.join(self.work, "caches", "big")
        r, report = self.prefetch(
            ["run", manifests["big"], "--max-asset-size", "2G", "--max-unpacked-size", "2G"], cache, fresh=True, expect_ready=1)
        self.add("G_big", r.rss_kib)
        self.add("G_big_wall", r.seconds)
        shutil.rmtree(cache, ignore_errors=True)


# --- K: flushes of a cold run, and D0: the download alone (issue 10) ------------

FLUSH_CALLS = "fsync,fdatasync,syncfs"


def count_flushes(bench, manifests):
    """The fsync, fdatasync and syncfs calls of one cold run, from `strace -f -c`.
    --seccomp-bpf stops the child only at those calls, so strace barely slows the
    run (without it every syscall stops it) and the run batches as it would alone."""
    cache = os.path.join(bench.work, "caches", "flushes")
    shutil.rmtree(cache, ignore_errors=True)
    summary = os.path.join(bench.work, "strace-flushes.txt")
    r = measure(["strace", "--seccomp-bpf", "-f", "-c", "-e", f"trace={FLUSH_CALLS}", "-o", summary,
                 bench.bin, "run", manifests["session"], "--cache-dir", cache, "--quiet"])
    if r.status != 0:
        raise SystemExit(f"bench: the cold run under strace exited {r.status}")
    calls = {}
    with open(summary) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 5 and fields[-1] in FLUSH_CALLS.split(",") and fields[3].isdigit():
                calls[fields[-1]] = int(fields[3])
    bench.add("K", sum(calls.values()))
    bench.notes["K"] = ", ".join(f"{n} {name}" for name, n in sorted(calls.items())) or "none"
    shutil.rmtree(cache, ignore_errors=True)


def download_only(bench, lists):
    """D's curl download without pngcheck and unzip: the floor a cold run is held to."""
    out = os.path.join(bench.work, "baseline")
    shutil.rmtree(out, ignore_errors=True)
    r = measure(["bash", os.path.join(BENCH, "baseline.sh"), "curl", lists, out, "--download-only"])
    if r.status != 0:
        raise SystemExit(f"bench: the curl download exited {r.status}")
    bench.add("D0", r.seconds)


def flush_rows(s, bench, row):
    row("D0 curl --parallel-max 8, download only", f"{s['D0'] * 1000:.0f} ms")
    row("K  flush calls of a cold run (strace -f -c)", f"{s['K']:.0f}", "<= 64", s["K"] <= 64, bench.notes.get("K", ""))
    row("A/D0", f"{s['A'] / s['D0']:.2f}", "<= 2.0", s["A"] / s["D0"] <= 2.0)


def median(values):
    return statistics.median(values) if values else float("nan")


def versions(binary):
    def first_line(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            text = (out.stdout or out.stderr).strip().splitlines()
            return text[0].strip() if text else "?"
        except OSError:
            return "?"
    names = ["libcurl", "libpng", "libzip", "libjpeg", "libgif", "libwebp"]
    libs = first_line(["pkg-config", "--modversion"] + names)
    mods = subprocess.run(["pkg-config", "--modversion"] + names, capture_output=True, text=True).stdout.split()
    return {
        "prefetch": first_line([binary, "--version"]),
        "swift": first_line(["swift", "--version"]),
        " / ".join(names): " / ".join(mods) if mods else libs,
        "nginx": first_line([shutil.which("nginx") or "/usr/sbin/nginx", "-v"]),
        "curl": first_line(["curl", "--version"]).split(" (")[0],
        "aria2c": first_line(["aria2c", "--version"]),
        "pngcheck": first_line(["pngcheck", "-h"]).rstrip(","),
        "djpeg": first_line(["djpeg", "-version"]).split(" (")[0],
        "dwebp": first_line(["dwebp", "-version"]),
        "giftext": first_line(["giftext", "-h"]).split(",")[0],
        "unzip": first_line(["unzip", "-v"]).split(", by")[0],
        "python (corpus)": platform.python_version(),
    }


def machine():
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} cores ({model}), {mem_kib / 1024 / 1024:.0f} GiB, Linux {platform.release()}"


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def row_adder(rows):
    """A function that appends one row (name, value, target, verdict, note) to `rows`."""
    def row(name, value, target="", ok=None, note=""):
        verdict = "" if ok is None else ("met" if ok else "MISSED")
        rows.append((name, value, target, verdict, note))
    return row


def table(bench, rounds):
    s = {k: median(v) for k, v in bench.samples.items()}
    ms = lambda x: f"{x * 1000:.0f} ms"
    rows = []
    row = row_adder(rows)

    row(f"A  cold prefetch run, {len(bench.assets)} messages", ms(s["A"]), note=bench.notes.get("A", ""))
    row("B  warm run, same manifest", ms(s["B"]), note=bench.notes.get("B", ""))
    row("A' cold run, server sends no-cache", ms(s["A'"]), note=bench.notes.get("A'", ""))
    row("B' warm run, server sends no-cache", ms(s["B'"]), note=bench.notes.get("B'", ""))
    row("C  plan --json, 1,000 messages", ms(s["C1000"]))
    row("C  plan --json, 10,000 messages", ms(s["C10000"]), "<= 120 ms", s["C10000"] <= 0.120)
    row("C  plan (text report), 10,000 messages", ms(s["C10000_text"]), "<= 120 ms", s["C10000_text"] <= 0.120)
    row("C  python3 json.load of that file", ms(s["C10000_python"]), note="interpreter start included")
    row("D  curl --parallel-max 8 + image checkers + unzip", ms(s["D"]))
    row("E  aria2c -j 8 + image checkers + unzip", ms(s["E"]))
    row(f"F  ready_ms of the open message, last of {len(bench.assets)}", ms(s["F"]))
    row("F  ready_ms of that message alone", ms(s["F_alone"]), note=f"wall {ms(s['F_alone_wall'])}")
    row("G  peak RSS of A", mib(s["G_A"]), "<= 64 MiB", s["G_A"] <= 64 * 1024)
    if "G_big" in s:
        row("G  peak RSS, one 1 GiB stored ZIP", mib(s["G_big"]), "<= 64 MiB", s["G_big"] <= 64 * 1024,
            f"wall {ms(s['G_big_wall'])}")
    if "H" in s:
        row("H  --limit-rate 200K, 2 MiB in 8 assets", f"{s['H'] / 1024:.1f} KiB/s", "<= 200 KiB/s", s["H"] <= LIMIT_RATE,
            bench.notes.get("H", ""))
    row("A/D", f"{s['A'] / s['D']:.2f}", "<= 0.50", s["A"] / s["D"] <= 0.5)
    row("A/E", f"{s['A'] / s['E']:.2f}", "<= 0.50", s["A"] / s["E"] <= 0.5)
    row("B/A", f"{s['B'] / s['A']:.3f}", "<= 0.10", s["B"] / s["A"] <= 0.10)
    warm = s["B'"] / s["A'"]
    row("B'/A'", f"{warm:.3f}", "<= 0.10", warm <= 0.10)
    per_thousand = (s["C10000"] - s["C1000"]) / 9
    row("C 10,000 / C 1,000", f"{s['C10000'] / s['C1000']:.1f}", "<= 10 (linear)", s["C10000"] / s["C1000"] <= 10,
        f"fixed part (start, cache open) ~{ms(s['C1000'] - per_thousand)}, then {ms(per_thousand)} per 1,000 messages")
    tls.rows(s, row)
    row("F / F alone", f"{s['F'] / s['F_alone']:.2f}", "<= 2", s["F"] / s["F_alone"] <= 2)
    plan_py = s["C10000_text"] / s["C10000_python"]
    row("C plan (text) / python json.load", f"{plan_py:.2f}", "<= 0.50", plan_py <= 0.5, "same file, same rounds")
    row("C plan --json / python json.load", f"{s['C10000'] / s['C10000_python']:.2f}")
    counts = getattr(bench, "counts", None)
    if counts:
        ratio = counts["summary-10000"] / counts["python-10000"]
        row("C plan (text) / python json.load, instructions", f"{ratio:.2f}", "<= 0.50", ratio <= 0.5,
            f"callgrind: {counts['summary-10000'] / 1e6:.0f} M / {counts['python-10000'] / 1e6:.0f} M Ir")
    flush_rows(s, bench, row)
    bounds.rows(s, bench.notes, row, mib)
    return render(rows)


def render(rows):
    """The rows as a Markdown table, and those that missed their target."""
    widths = [max(len(r[i]) for r in rows + [("measurement", "median", "target", "", "")]) for i in range(4)]
    header = ("measurement", "median", "target", "")
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " | notes |",
             "| " + " | ".join("-" * w for w in widths) + " | --- |"]
    for r in rows:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + f" | {r[4]} |")
    return "\n".join(lines), [r for r in rows if r[3] == "MISSED"]


def write_benchmarks(text, begin=BEGIN, end=END):
    path = os.path.join(TOP, "BENCHMARKS.md")
    before, after = "# Benchmarks\n\n", ""
    if os.path.exists(path):
        with open(path) as f:
            current = f.read()
        if begin in current and end in current:
            before = current.split(begin)[0]
            after = current.split(end, 1)[1]
        else:
            before = current + "\n"
    with open(path, "w") as f:
        f.write(before + begin + "\n" + text + "\n" + end + after)
    return path


def describe(assets):
    """"600 messages: 400 PNGs, 60 JPEGs, ..." from the corpus itself."""
    counts = {}
    for a in assets:
        kind = "HTML ZIP bundles" if a["kind"] == "archive" else a["path"].rsplit(".", 1)[1].upper().replace("JPG", "JPEG") + "s"
        counts[kind] = counts.get(kind, 0) + 1
    return f"{len(assets)} messages: " + ", ".join(f"{n} {k}" for k, n in counts.items())


def distinct(corpus, assets):
    contents = set()
    for a in assets:
        with open(os.path.join(corpus, "www", a["path"]), "rb") as f:
            contents.add(hash(f.read()))
    return len(contents)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the folder holding the release build of prefetch")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "5")))
    parser.add_argument("--work", default=os.path.join(TOP, ".build-bench"))
    parser.add_argument("--no-big", action="store_true", help="skip the 1 GiB run of G")
    parser.add_argument("--no-bounds", action="store_true", help="skip I and J (memory over 100,000 assets, slow host)")
    parser.add_argument("--only-bounds", action="store_true", help="run I and J alone and print their rows; BENCHMARKS.md is left alone")
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave BENCHMARKS.md alone")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count instructions of the plan and of Python (bench/callgrind.sh; valgrind, ~2 minutes)")
    parser.add_argument("--serve", action="store_true",
                        help="only start nginx and write the manifests (under WORK/manifests), for profiling; stop with SIGTERM")
    args = parser.parse_args()
    # SIGTERM ends the run like Ctrl-C: through the finally that stops nginx.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(args.work, exist_ok=True)
    if args.only_bounds:
        bench = Bench(args)
        bounds.run(bench, Nginx, log)
        rows = []
        bounds.rows({k: median(v) for k, v in bench.samples.items()}, bench.notes, row_adder(rows), mib)
        rendered, missed = render(rows)
        print(rendered)
        print(("Missed: " + "; ".join(r[0] for r in missed)) if missed else "Every target met.")
        return
    corpus = os.path.join(args.work, "corpus")
    subprocess.run([sys.executable, os.path.join(BENCH, "corpus.py"), "--out", corpus] + ([] if args.no_big else ["--big"]), check=True)
    with open(os.path.join(corpus, "assets.json")) as f:
        assets = json.load(f)["assets"]

    bench = Bench(args, assets)
    https = tls.TLSServers(bench.work, free_port)
    www = os.path.join(corpus, "www")
    nginx = Nginx(bench.work, www, extra_servers=https.config(www), extra_ports=https.ports.values())
    try:
        manifests, lists = write_inputs(bench.work, assets, nginx)
        https_manifests = tls.manifests(https, manifests["session"], nginx.url(), bench.work)
        if args.serve:
            print(f"bench: nginx on {nginx.url()} (no-cache: {nginx.url(no_cache=True)}); manifests in {bench.work}/manifests", flush=True)
            signal.pause()
        jobs = [
            ("A B C", lambda: bench.run_cold_warm(manifests, no_cache=False)),
            ("D curl", lambda: bench.run_baseline("curl", lists)),
            ("A' B'", lambda: bench.run_cold_warm(manifests, no_cache=True)),
            ("E aria2", lambda: bench.run_baseline("aria2", lists)),
            ("F alone", lambda: bench.run_single(manifests)),
            ("T https", lambda: tls.run(bench, https, https_manifests)),
            ("H limit-rate", bench.run_limit_rate),
            ("D0 download", lambda: download_only(bench, lists)),
            ("K flushes", lambda: count_flushes(bench, manifests)),
        ]
        if not args.no_big:
            jobs.append(("G 1 GiB", lambda: bench.run_big(manifests)))
        # One warm-up of everything (page cache, nginx), not counted.
        log("bench: warm-up round (not counted)")
        for _, job in jobs:
            job()
        bench.samples.clear()
        load_before = os.getloadavg()
        for number in range(args.rounds):
            order = jobs[number % len(jobs):] + jobs[:number % len(jobs)]
            log(f"bench: round {number + 1}/{args.rounds}: " + ", ".join(name for name, _ in order))
            for _, job in order:
                job()
        load_after = os.getloadavg()
        if args.callgrind:
            log("bench: counting instructions (bench/callgrind.sh)")
            bench.run_callgrind(manifests)
    finally:
        nginx.stop()
    if not args.no_bounds:
        bounds.run(bench, Nginx, log)

    rendered, missed = table(bench, args.rounds)
    info = versions(bench.bin)
    corpus_bytes = sum(a["bytes"] for a in assets)
    text = "\n".join([
        f"Run of {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by `make bench`: "
        f"medians of {args.rounds} rounds (after one warm-up round), the runs alternating within each round.",
        "",
        f"- machine: {machine()}",
        f"- load average (1, 5, 15 min): {' '.join(f'{x:.1f}' for x in load_before)} before the rounds, "
        f"{' '.join(f'{x:.1f}' for x in load_after)} after",
        f"- corpus: {describe(assets)}, {corpus_bytes / 1048576:.0f} MiB over {len(assets)} URLs, "
        f"{distinct(corpus, assets)} distinct contents (bench/corpus.py); nginx on 127.0.0.1",
        "- versions: " + "; ".join(f"{k} {v}" for k, v in info.items()),
        "",
        rendered,
        "",
        ("Missed: " + "; ".join(f"{r[0]} ({r[1]}, target {r[2]})" for r in missed)) if missed else "Every target met.",
        "",
        "Raw samples (seconds; RSS in KiB): " + json.dumps({k: [round(v, 4) for v in vs] for k, vs in bench.samples.items()}),
    ] + ([
        "",
        "Instructions (callgrind Ir; BenchPlan is the plan without the command line, bench/callgrind.sh): "
        + json.dumps(bench.counts),
    ] if getattr(bench, "counts", None) else []))
    print()
    print(text)
    if not args.no_write:
        log(f"\nbench: written to {write_benchmarks(text)}")


if __name__ == "__main__":
    main()
