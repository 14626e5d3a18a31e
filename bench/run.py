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
R  `prefetch ready MESSAGE_ID` (the display app's query; target <= 20 ms) and
   `prefetch ready` (every message) of the readiness index that an offline run
   of C's 10,000 messages leaves, beside `cat` of that file
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
V  the free-space floor: a cold run into a 400 MiB file system of which another
   file takes 250 MiB, its free space watched during the run, then a run once
   that file shrank: run once, after the rounds (bench/floor.py)
L  over an emulated LTE-like and 3G-like link (bench/linkem.py in front of
   nginx): a cold run against curl --parallel, the session-start message's
   ready time, bytes through the link, 5 s and 30 s outages, a byte budget:
   run once, after the rounds, with rounds of its own (bench/link.py)
D  a 40-file bundle updated by delta against nginx's multipart ranges over those
   links: the one-file update's bytes and time against --no-delta, and every
   update case's tree (bench/delta.py, run with L)
W  bytes written to the block device (a 1 GiB ext4 loop device) by a cold run
   and by warm runs with nothing changed on the server: nothing asked, every
   asset revalidated with a new lifetime, and without one (bench/wear.py; root)

Every run writes into a new directory, and none is deleted within a minute of a
measured run (bench/scratch.py: ext4 without a journal slows file creation after
a deletion).
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys

import bounds
import floor
import link
import mechanisms
import mixes
import tls
import wear
from scratch import Scratch
from harness import BENCH, TOP, Nginx, free_port, limit_rate_sample, log, measure, opener_id, write_inputs
from table import describe, distinct, machine, median, mib, render, row_adder, table, versions, write_benchmarks


# --- the runs -----------------------------------------------------------------


class Bench:
    def __init__(self, args, assets=None):
        self.assets = assets
        self.bin = os.path.join(os.path.abspath(args.bin), "prefetch")
        self.work = os.path.abspath(args.work)
        self.scratch = Scratch(os.path.join(self.work, "runs"), args.scratch_gib << 30, log,
                               legacy=[os.path.join(self.work, d) for d in ("caches", "baseline")])
        self.samples = {}
        self.notes = {}
        self.reports = {}

    def add(self, key, value):
        self.samples.setdefault(key, []).append(value)

    def prefetch(self, argv, cache, expect_ready=None, out=None):
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
        cache = self.scratch.new("no-cache" if no_cache else "session")
        if not no_cache:
            self.session_cache = cache
        manifest = manifests["session-no-cache" if no_cache else "session"]
        a, report = self.prefetch(["run", manifest], cache, expect_ready=len(self.assets))
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
            # S: what the scrub costs a warm run — B again without it, and with
            # a slice of the whole cache — and how much of the cache B re-read.
            self.add("S_read", report["scrub"]["bytes_read"])
            self.add("S_cache", report["scrub"]["cache_bytes"])
            off, _ = self.prefetch(["run", manifest, "--scrub-bytes", "0", "--scrub-percent", "0"], cache,
                                   expect_ready=len(self.assets))
            self.add("S_off", off.seconds)
            full, full_report = self.prefetch(["run", manifest, "--scrub-percent", "100"], cache,
                                              expect_ready=len(self.assets))
            self.add("S_full", full.seconds)
            self.add("S_full_read", full_report["scrub"]["bytes_read"])
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
            self.run_ready(manifests, cache)

    def run_ready(self, manifests, cache):
        """R: the readiness index of 10,000 messages (an offline run of plan-10000
        over the session's cache writes it), read by `prefetch ready` and by cat."""
        self.prefetch(["run", manifests["plan-10000"], "--offline", "--scrub-bytes", "0", "--scrub-percent", "0"],
                      cache, out=os.devnull)
        index = os.path.join(cache, "readiness.json")
        for _ in range(3):
            every = measure([self.bin, "ready", "--cache-dir", cache], stdout_file=os.devnull)
            if every.status != 0:
                raise SystemExit(f"bench: prefetch ready exited {every.status}")
            self.add("R_ready", every.seconds)
            self.add("R_one", measure([self.bin, "ready", "p09999", "--cache-dir", cache], stdout_file=os.devnull).seconds)
            self.add("R_cat", measure(["cat", index], stdout_file=os.devnull).seconds)
        self.notes["R bytes"] = os.path.getsize(index)

    def run_callgrind(self, manifests):
        """Instruction counts (bench/callgrind.sh), which the machine's load does not move."""
        cache = self.session_cache
        out = subprocess.run(["bash", os.path.join(BENCH, "callgrind.sh"), os.path.dirname(manifests["plan-10000"]), cache],
                             capture_output=True, text=True, env=dict(os.environ, PYTHON=sys.executable))
        if out.returncode != 0:
            raise SystemExit("bench: callgrind.sh failed: " + out.stderr[-2000:])
        self.counts = {name: int(value) for name, value in (line.split() for line in out.stdout.splitlines())}

    def run_single(self, manifests):
        r, report = self.prefetch(["run", manifests["single"]], self.scratch.new("single"), expect_ready=1)
        self.add("F_alone", report["messages"][0]["ready_ms"] / 1000)
        self.add("F_alone_wall", r.seconds)

    def run_baseline(self, tool, lists):
        r = measure(["bash", os.path.join(BENCH, "baseline.sh"), tool, lists, self.scratch.new("baseline-" + tool)])
        if r.status != 0:
            raise SystemExit(f"bench: the {tool} pipeline exited {r.status}")
        self.add("D" if tool == "curl" else "E", r.seconds)

    def run_limit_rate(self):
        rate, note = limit_rate_sample(os.path.dirname(self.bin), self.work)
        self.add("H", rate)
        self.notes["H"] = note

    def run_big(self, manifests):
        cache = self.scratch.new("big")
        r, report = self.prefetch(
            ["run", manifests["big"], "--max-asset-size", "2G", "--max-unpacked-size", "2G"], cache, expect_ready=1)
        self.add("G_big", r.rss_kib)
        self.add("G_big_wall", r.seconds)
        # 2 GiB in ~20 files: deleted at once, few inodes (what slows the next
        # creations, bench/scratch.py), and the blocks and their discards are
        # freed by the rmtree itself on a file system without a journal.
        shutil.rmtree(cache, ignore_errors=True)


# --- K: flushes of a cold run, and D0: the download alone (issue 10) ------------

FLUSH_CALLS = "fsync,fdatasync,syncfs"


def flush_calls(bench, manifest):
    """The fsync, fdatasync and syncfs calls of one cold run, from `strace -f -c`:
    their total and a note naming each. --seccomp-bpf stops the child only at
    those calls, so strace barely slows the run (without it every syscall stops
    it) and the run batches as it would alone."""
    cache = bench.scratch.new("flushes")
    summary = os.path.join(bench.work, "strace-flushes.txt")
    r = measure(["strace", "--seccomp-bpf", "-f", "-c", "-e", f"trace={FLUSH_CALLS}", "-o", summary,
                 bench.bin, "run", manifest, "--cache-dir", cache, "--quiet"])
    if r.status not in (0, 1):
        raise SystemExit(f"bench: the cold run of {manifest} under strace exited {r.status}")
    calls = {}
    with open(summary) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 5 and fields[-1] in FLUSH_CALLS.split(",") and fields[3].isdigit():
                calls[fields[-1]] = int(fields[3])
    return sum(calls.values()), ", ".join(f"{n} {name}" for name, n in sorted(calls.items())) or "none"


def count_flushes(bench, manifests):
    total, note = flush_calls(bench, manifests["session"])
    bench.add("K", total)
    bench.notes["K"] = note


def download_only(bench, lists):
    """D's curl download without pngcheck and unzip: the floor a cold run is held to."""
    r = measure(["bash", os.path.join(BENCH, "baseline.sh"), "curl", lists, bench.scratch.new("download"), "--download-only"])
    if r.status != 0:
        raise SystemExit(f"bench: the curl download exited {r.status}")
    bench.add("D0", r.seconds)


def print_rows(add_rows, bench):
    """One section's rows alone (--only-bounds, --only-link, --only-delta), printed only."""
    rows = []
    add_rows({k: median(v) for k, v in bench.samples.items()}, row_adder(rows))
    rendered, missed = render(rows)
    print(rendered)
    print(("Missed: " + "; ".join(r[0] for r in missed)) if missed else "Every target met.")
    print("Raw samples: " + json.dumps({k: [round(v, 4) for v in vs] for k, vs in bench.samples.items()}))


def split(text):
    return tuple(x.strip() for x in text.split(",") if x.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the folder holding the release build of prefetch")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "5")))
    parser.add_argument("--work", default=os.path.join(TOP, ".build-bench"))
    parser.add_argument("--no-big", action="store_true", help="skip the 1 GiB run of G")
    parser.add_argument("--no-bounds", action="store_true", help="skip I and J (memory over 100,000 assets, slow host)")
    parser.add_argument("--only-bounds", action="store_true", help="run I and J alone and print their rows; BENCHMARKS.md is left alone")
    parser.add_argument("--no-link", action="store_true", help="skip L and D (the emulated LTE and 3G links, ~9 minutes)")
    parser.add_argument("--only-link", action="store_true", help="run L and D alone and print their rows; BENCHMARKS.md is left alone")
    parser.add_argument("--only-delta", action="store_true",
                        help="run D alone (nginx and the emulated links, no corpus) and print its rows; BENCHMARKS.md is left alone")
    parser.add_argument("--no-wear", action="store_true", help="skip W (bytes written to a loop device per run, ~2 minutes)")
    parser.add_argument("--only-wear", action="store_true", help="run W alone and print its rows; BENCHMARKS.md is left alone")
    parser.add_argument("--no-floor", action="store_true", help="skip V (the free-space floor on a small file system; needs root)")
    parser.add_argument("--only-floor", action="store_true", help="run V alone and print its rows; BENCHMARKS.md is left alone")
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave BENCHMARKS.md alone")
    parser.add_argument("--scratch-gib", type=int, default=6,
                        help="the runs' files kept until they exceed this, then deleted between rounds, with a pause (bench/scratch.py)")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count instructions of the plan and of Python (bench/callgrind.sh; valgrind, ~2 minutes)")
    parser.add_argument("--serve", action="store_true",
                        help="only start nginx and write the manifests (under WORK/manifests), for profiling; stop with SIGTERM")
    parser.add_argument("--only-outages", action="store_true",
                        help="with --only-link: only the outage rows of L (and the curl rounds their targets need)")
    parser.add_argument("--link-outages", default=",".join(link.OUTAGE_KINDS),
                        help="the kinds of outage of rows L, comma-separated (default: all of %(default)s)")
    parser.add_argument("--link-outage-seconds", default=",".join(map(str, link.OUTAGES)),
                        help="the outages' lengths in rows L, comma-separated (default: %(default)s)")
    parser.add_argument("--link-profiles", default=",".join(p.name for p in link.LINKS),
                        help="the emulated links of rows L and D, comma-separated (default: %(default)s)")
    args = parser.parse_args()
    link.select(link.Selection(kinds=split(args.link_outages), seconds=tuple(int(x) for x in split(args.link_outage_seconds)),
                               profiles=split(args.link_profiles), outages_only=args.only_outages))
    # SIGTERM ends the run like Ctrl-C: through the finally that stops nginx.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(args.work, exist_ok=True)
    if args.only_bounds:
        bench = Bench(args)
        bounds.run(bench, Nginx, log)
        print_rows(lambda s, row: bounds.rows(s, bench.notes, row, mib), bench)
        return
    if args.only_delta:
        bench = Bench(args)
        link.run_delta(bench, Nginx, os.path.join(args.work, "delta-www"), log)
        bench.scratch.clear()
        print_rows(lambda s, row: link.delta.rows(bench.notes, link.LINKS, row), bench)
        return
    corpus = os.path.join(args.work, "corpus")
    big = not (args.no_big or args.only_link or args.only_wear or args.only_floor)
    subprocess.run([sys.executable, os.path.join(BENCH, "corpus.py"), "--out", corpus] + (["--big"] if big else []), check=True)
    with open(os.path.join(corpus, "assets.json")) as f:
        assets = json.load(f)["assets"]
    if args.only_wear:
        bench = Bench(args, assets)
        wear.run(bench, Nginx, assets, os.path.join(corpus, "www"), log)
        print_rows(lambda s, row: wear.rows(bench, row), bench)
        return
    if args.only_link:
        bench = Bench(args, assets)
        link.run(bench, Nginx, assets, os.path.join(corpus, "www"), log)
        bench.scratch.clear()
        print_rows(lambda s, row: link.rows(s, bench.notes, row), bench)
        return
    if args.only_floor:
        bench = Bench(args, assets)
        floor.run(bench, Nginx, assets, os.path.join(corpus, "www"), log)
        print_rows(lambda s, row: floor.rows(s, bench.notes, row, len(assets)), bench)
        return

    bench = Bench(args, assets)
    bench_plan = mechanisms.build()
    https = tls.TLSServers(bench.work, free_port)
    www = os.path.join(corpus, "www")
    nginx = Nginx(bench.work, www, extra_servers=https.config(www), extra_ports=https.ports.values())
    try:
        manifests, lists = write_inputs(bench.work, assets, nginx)
        https_manifests = tls.manifests(https, manifests["session"], nginx.url(), bench.work)
        mix_manifests = mixes.write(bench.work, assets, nginx.url())
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
            ("K mixes", lambda: mixes.run(bench, mix_manifests, flush_calls)),
            ("M head start", lambda: mechanisms.run_head_start(bench, manifests)),
            ("M plan", lambda: mechanisms.run_plan(bench, bench_plan, manifests)),
        ]
        if not args.no_big:
            jobs.append(("G 1 GiB", lambda: bench.run_big(manifests)))
        # One warm-up of everything (page cache, nginx), not counted.
        log("bench: warm-up round (not counted)")
        for _, job in jobs:
            job()
        bench.samples.clear()
        bench.scratch.settle()
        load_before = os.getloadavg()
        for number in range(args.rounds):
            if number:
                bench.scratch.between_rounds()
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
    if not args.no_link:
        link.run(bench, Nginx, assets, www, log)
    if not args.no_wear:
        wear.run(bench, Nginx, assets, www, log)
    if not args.no_floor:
        floor.run(bench, Nginx, assets, www, log)
    bench.scratch.clear()

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
