"""bench/run.py's table: medians into rows with their targets, the machine and
tool versions above them, and BENCHMARKS.md between its markers."""

import os
import platform
import shutil
import statistics
import subprocess

import bounds
import floor
import link
import mechanisms
import mixes
import tls
import wear
from harness import LIMIT_RATE, TOP

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"


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
    mib_bytes = lambda b: f"{b / 1048576:.1f} MiB"
    scrub_cost = s["B"] - s["S_off"]
    row("S  warm run B without the scrub", ms(s["S_off"]), note="--scrub-bytes 0 --scrub-percent 0")
    row("S  the scrub's share of B", ms(scrub_cost),
        note=f"{mib_bytes(s['S_read'])} of the cache's {mib_bytes(s['S_cache'])} re-read (the default slice)")
    row("S  warm run re-reading the whole cache", ms(s["S_full"]),
        note=f"--scrub-percent 100: {mib_bytes(s['S_full_read'])}, "
             f"{s['S_full_read'] / 1048576 / max(s['S_full'] - s['S_off'], 1e-3):.0f} MiB/s over B without the scrub")
    row("C  plan --json, 1,000 messages", ms(s["C1000"]))
    row("C  plan --json, 10,000 messages", ms(s["C10000"]), "<= 120 ms", s["C10000"] <= 0.120)
    row("C  plan (text report), 10,000 messages", ms(s["C10000_text"]), "<= 120 ms", s["C10000_text"] <= 0.120)
    row("C  python3 json.load of that file", ms(s["C10000_python"]), note="interpreter start included")
    # The target is the display app's question, "is message X ready and what do
    # I show" (issue 28); listing all 10,000 is a person's command, shown beside it.
    row("R  ready MESSAGE_ID, 10,000-message index", ms(s["R_one"]), "<= 20 ms", s["R_one"] <= 0.020,
        f"the index is {bench.notes.get('R bytes', 0) / 1048576:.1f} MiB")
    row("R  ready, all 10,000 messages (text)", ms(s["R_ready"]))
    row("R  cat of that index", ms(s["R_cat"]))
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
    # Issue 27 retired the 0.50 target that drove the reader's tuning; this guards against regressions.
    row("C plan (text) / python json.load", f"{plan_py:.2f}", "<= 1.00", plan_py <= 1.0, "same file, same rounds")
    row("C plan --json / python json.load", f"{s['C10000'] / s['C10000_python']:.2f}")
    counts = getattr(bench, "counts", None)
    if counts:
        ratio = counts["summary-10000"] / counts["python-10000"]
        row("C plan (text) / python json.load, instructions", f"{ratio:.2f}", "<= 1.00", ratio <= 1.0,
            f"callgrind: {counts['summary-10000'] / 1e6:.0f} M / {counts['python-10000'] / 1e6:.0f} M Ir")
    flush_rows(s, bench, row)
    mixes.rows(s, bench.notes, row)
    mechanisms.rows(s, row)
    bounds.rows(s, bench.notes, row, mib)
    link.rows(s, bench.notes, row)
    floor.rows(s, bench.notes, row, len(bench.assets))
    wear.rows(bench, row)
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
