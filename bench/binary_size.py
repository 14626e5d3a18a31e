#!/usr/bin/env python3
"""The self-contained `prefetch` (Swift runtime linked in, what the Debian
package ships) against the toolchain-linked one (`swift build -c release`).

    python3 bench/binary_size.py --static-bin DIR --shared-bin DIR [--runs 101]

Run through `make bench-binary`, which makes both builds first. For each: the
file's size, its size stripped (as packaged), how many of the libraries `ldd`
lists come from the Swift toolchain, and the startup cost: `prefetch plan` of
an empty manifest over an empty cache, wall time (spawn to wait4) and peak RSS
(ru_maxrss), medians of --runs runs, the two builds alternating. Writes its
table into BENCHMARKS.md between the binary:begin/end markers.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine, measure, median, write_benchmarks  # noqa: E402

BEGIN = "<!-- binary:begin -->"
END = "<!-- binary:end -->"
TOOLCHAIN_LIBRARY = ("libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime")


def shown(path):
    return os.path.relpath(path, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stripped_size(binary):
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "prefetch")
        subprocess.run(["strip", "--strip-all", "--remove-section=.comment", "-o", copy, binary], check=True)
        return os.path.getsize(copy)


def toolchain_libraries(binary):
    lines = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout.splitlines()
    return [line.split()[0] for line in lines if line.split() and line.split()[0].startswith(TOOLCHAIN_LIBRARY)]


def startup(builds, runs, work):
    """`plan` of an empty manifest over an empty cache, alternating the builds."""
    manifest = os.path.join(work, "empty.json")
    with open(manifest, "w") as f:
        json.dump({"triggers": []}, f)
    samples = {name: ([], [], []) for name in builds}
    for name, binary in builds.items():
        cache = os.path.join(work, name)
        subprocess.run([binary, "run", manifest, "--cache-dir", cache, "--quiet"], check=True)
        measure([binary, "plan", manifest, "--cache-dir", cache])  # warm the page cache
    for _ in range(runs):
        for name, binary in builds.items():
            result = measure([binary, "plan", manifest, "--cache-dir", os.path.join(work, name)])
            if result.status != 0:
                sys.exit(f"binary_size: {binary} plan exited {result.status}")
            samples[name][0].append(result.seconds)
            samples[name][1].append(result.cpu_seconds)
            samples[name][2].append(result.rss_kib)
    return {name: tuple(median(values) for values in series) for name, series in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--static-bin", required=True, help="the folder of the --static-swift-stdlib release build")
    parser.add_argument("--shared-bin", required=True, help="the folder of the plain `swift build -c release`")
    parser.add_argument("--runs", type=int, default=101)
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave BENCHMARKS.md alone")
    args = parser.parse_args()

    builds = {
        "self-contained": os.path.join(args.static_bin, "prefetch"),
        "toolchain-linked": os.path.join(args.shared_bin, "prefetch"),
    }
    work = tempfile.mkdtemp(prefix="binary-size-", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        timings = startup(builds, args.runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    mib = lambda size: f"{size / 1024 / 1024:.1f} MiB ({size / 1e6:.1f} MB)"
    rows = [
        "| build | file | stripped | toolchain libraries (ldd) | startup, wall | startup, CPU (user + sys) | peak RSS |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, binary in builds.items():
        seconds, cpu, rss = timings[name]
        libraries = toolchain_libraries(binary)
        rows.append(f"| {name} | {mib(os.path.getsize(binary))} | {mib(stripped_size(binary))} | "
                    f"{len(libraries)} | {seconds * 1000:.1f} ms | {cpu * 1000:.1f} ms | {rss / 1024:.1f} MiB |")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = "\n".join([
        f"Run of {when} by `make bench-binary`: medians of {args.runs} runs each, the builds alternating.",
        "",
        f"- machine: {machine()}",
        f"- self-contained: `{shown(builds['self-contained'])}` (`make release`: `--static-swift-stdlib`, "
        "what `make deb` packages, stripped)",
        f"- toolchain-linked: `{shown(builds['toolchain-linked'])}` (`swift build -c release`)",
        "- startup: `prefetch plan EMPTY --cache-dir DIR` (an empty manifest, an empty cache); wall time from "
        "spawn to wait4, Python's spawn included, and the CPU time wait4 reports, which other load on the "
        f"machine changes less (load average {os.getloadavg()[0]:.1f} at the end)",
        "",
        *rows,
    ])
    print(text)
    if not args.no_write:
        print(f"\nwrote {write_benchmarks(text, BEGIN, END)}", file=sys.stderr)


if __name__ == "__main__":
    main()
