"""Rows D of `make bench` (issue 30): an HTML bundle updated by delta, against
nginx (real `multipart/byteranges` answers) through bench/linkem.py, the links
of rows L.

A bundle of 40 files (2.6 MB: 38 files of bytes that do not compress, a style
sheet and `index.html`) is fetched cold once per link; that cache is then
copied for every update, so each update starts from the same cached version.
For an update, nginx's file is replaced by the new version (a new mtime, so a
new ETag) and `prefetch run` revalidates it: with delta (the default), with
delta behind a `Repr-Digest` of the new file (nginx's map of
docs/publishing.md, reloaded), and with `--no-delta`, each on its own copy.

- On both links, the one-file update (`index.html` edited): bytes through the
  link (down + up) and wall time, delta against the full download. The bytes'
  target is the issue's: the changed entry's compressed size + the central
  directory + the local headers + 10%, plus 2 KiB of HTTP headers a request.
  Without a digest (issue 37) every local header is fetched, each a part of one
  multipart answer: the target adds nginx's framing of a part (boundary,
  Content-Type, Content-Range) for each entry. With the digest the cached local
  headers are reused: the tail and one range.
- On the LTE-like link, every case of the issue's tests against nginx: one file
  changed, a file added, one removed, one renamed, every file changed. Each must
  give the tree of the new ZIP, file for file (compared with Python's zipfile);
  "every file changed" must cost at most 1.1x the full download or fall back.

A build without delta (no `--no-delta` option) prints "not available in this
build".
"""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import time
import zipfile

from harness import message, write_json

FILES = 38
FILE_BYTES = 64 * 1024
HEADERS_PER_REQUEST = 2048
# nginx's header of one part of a multipart/byteranges answer: CRLF, "--" and a
# 20-digit boundary, "Content-Type: application/zip", "Content-Range: bytes
# A-B/SIZE", CRLFs: about 100 bytes for a bundle of a few MB.
FRAMING_PER_PART = 110
SERVED_PATH = "/delta-bench/bundle.zip"


def noise(count, seed):
    """Bytes that do not compress, the same for a seed (xorshift64, as the tests')."""
    state = (seed * 0x9E3779B97F4A7C15 | 1) & 0xFFFFFFFFFFFFFFFF
    out = bytearray(count)
    for i in range(count):
        state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
        state ^= state >> 7
        state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
        out[i] = state & 0xFF
    return bytes(out)


def first_version():
    files = {"index.html": b"<html><body>price: 10 EUR, until Sunday</body></html>\n" * 70,
             "style.css": b"body { font-family: sans-serif; margin: 0 }\n" * 90}
    for n in range(FILES):
        files[f"img/slide{n:02d}.bin"] = noise(FILE_BYTES + n * 97, n + 1)
    return files


def cases(first):
    one = dict(first)
    one["index.html"] = first["index.html"].replace(b"price: 10 EUR", b"price: 12 EUR", 1)
    added = dict(first)
    added["img/new.bin"] = noise(20_000, 999)
    removed = {k: v for k, v in first.items() if k != "img/slide05.bin"}
    renamed = {("img/renamed05.bin" if k == "img/slide05.bin" else k): v for k, v in first.items()}
    every = {k: (v + b"!" if k.endswith((".html", ".css")) else noise(len(v), 500 + i)) for i, (k, v) in enumerate(first.items())}
    return {"one file changed": one, "a file added": added, "a file removed": removed,
            "a file renamed": renamed, "every file changed": every}


def write_zip(path, files):
    """Text deflated, the rest stored (as images are: they do not compress)."""
    with zipfile.ZipFile(path + ".tmp", "w") as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 1, 12, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if name.endswith((".html", ".css")) else zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    os.replace(path + ".tmp", path)


def delta_bound(path, changed):
    """The issue's bound for an update: the changed entries' compressed sizes +
    the central directory + every local header, + 10%; and the entries."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        directory = sum(46 + len(i.filename.encode()) + len(i.extra) + len(i.comment) for i in infos) + 22
        local = sum(30 + len(i.filename.encode()) + len(i.extra) for i in infos)
        data = sum(i.compress_size for i in infos if i.filename in changed)
    return int((data + directory + local) * 1.1), len(infos)


def repr_digest(path):
    """RFC 9530's `Repr-Digest` value of the file, as docs/publishing.md's script writes it."""
    with open(path, "rb") as f:
        return "sha-256=:" + base64.b64encode(hashlib.sha256(f.read()).digest()).decode() + ":"


def tree_matches(report, files):
    """Whether the bundle's tree holds exactly `files` (names and bytes)."""
    message_report = next(m for m in report["messages"] if m["id"] == "bundle")
    if message_report.get("status") != "ready":
        return False, f"not ready ({message_report.get('reason')})"
    path = message_report["assets"][0].get("path")
    root = path if os.path.isdir(path) else os.path.dirname(path)
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            full = os.path.join(folder, name)
            with open(full, "rb") as f:
                found[os.path.relpath(full, root)] = f.read()
    if found == files:
        return True, ""
    missing = sorted(set(files) - set(found))[:3]
    extra = sorted(set(found) - set(files))[:3]
    differ = sorted(k for k in files if k in found and found[k] != files[k])[:3]
    return False, f"missing {missing}, extra {extra}, differ {differ}"


def run_profile(bench, profile, emulator_class, nginx, www, log, matrix):
    """Rows D for one link. `emulator_class(profile, port)` starts linkem in
    front of nginx's no-cache port, so every run revalidates."""
    key = f"D_{profile.name}_"
    folder = os.path.join(www, "delta-bench")
    os.makedirs(folder, exist_ok=True)
    served = os.path.join(folder, "bundle.zip")
    first = first_version()
    write_zip(served, first)
    emulator = emulator_class(profile, nginx.no_cache_port)
    try:
        manifest = write_json(os.path.join(bench.work, f"delta-{profile.name}.json"), {"triggers": [
            message("bundle", {"kind": "archive", "path": "delta-bench/bundle.zip"}, emulator.url(), urgent=True)]})
        seed = bench.scratch.new(f"delta-{profile.name}-seed")
        cold = run(bench, emulator, manifest, seed, [])
        if cold["report"] is None or cold["report"]["totals"]["ready"] != 1:
            raise SystemExit(f"bench: D {profile.name}: the cold run of the bundle failed: {cold['stderr'][-500:]}")
        probe = subprocess.run([bench.bin, "run", "--help"], capture_output=True, text=True)
        if "--no-delta" not in probe.stdout:
            bench.notes[key + "missing"] = True
            return
        chosen = cases(first) if matrix else {"one file changed": cases(first)["one file changed"]}
        for number, (case, files) in enumerate(chosen.items()):
            log(f"bench: D {profile.name}: {case}, delta, delta with Repr-Digest and --no-delta")
            changed = {k for k, v in files.items() if first.get(k) != v}
            results = {}
            for mode, extra in (("delta", []), ("digest", []), ("full", ["--no-delta"])):
                cache = bench.scratch.new(f"delta-{profile.name}-{number}-{mode}")
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(seed, cache, symlinks=True)
                write_zip(served, files)
                # A new mtime, so nginx's ETag and Last-Modified say it changed.
                stamp = time.time() + 10 * (number + 1)
                os.utime(served, (stamp, stamp))
                if mode == "digest":
                    nginx.set_digests({SERVED_PATH: repr_digest(served)})
                results[mode] = run(bench, emulator, manifest, cache, extra)
                if mode == "digest":
                    nginx.set_digests({})
                write_zip(served, first)
            write_zip(served + ".new", files)
            bound, entries = delta_bound(served + ".new", changed)
            os.unlink(served + ".new")
            outcome = {}
            for mode, r in results.items():
                ok, why = tree_matches(r["report"], files) if r["report"] else (False, r["stderr"][-300:])
                asset = (r["report"] or {"assets": [{}]})["assets"][0]
                outcome[mode] = {"ok": ok, "why": why, "bytes": r["down"] + r["up"], "seconds": r["seconds"],
                                 "delta": asset.get("delta"), "fallback": asset.get("delta_fallback"),
                                 "evidence": asset.get("delta_evidence")}
            bench.notes[f"{key}{case}"] = {"bound": bound, "entries": entries, **outcome}
    finally:
        emulator.stop()
        shutil.rmtree(folder, ignore_errors=True)


def run(bench, emulator, manifest, cache, extra):
    os.sync()
    emulator.control.reset_stats()
    started = time.perf_counter()
    child = subprocess.run([bench.bin, "run", manifest, "--cache-dir", cache, "--json"] + extra, capture_output=True)
    seconds = time.perf_counter() - started
    stats = emulator.control.stats()
    try:
        report = json.loads(child.stdout)
    except ValueError:
        report = None
    return {"seconds": seconds, "report": report, "stderr": child.stderr.decode(errors="replace"),
            "down": stats["down_bytes"], "up": stats["up_bytes"]}


def rows(notes, profiles, row):
    for profile in profiles:
        key = f"D_{profile.name}_"
        name = f"D  {profile.name} ({profile.describe()})"
        if notes.get(key + "missing"):
            row(f"{name}: one-file update of a 40-file bundle, delta", "not available in this build", "")
            continue
        one = notes.get(key + "one file changed")
        if not one:
            continue
        one_file_rows(name, one, row)
        others = [(case, v) for case, v in notes.items() if case.startswith(key) and isinstance(v, dict) and "bound" in v]
        if len(others) > 1:
            cases_row(name, key, notes, others, row)


def one_file_rows(name, one, row):
    """Bytes and time of the one-file update: delta without a digest (every
    local header fetched), with `Repr-Digest` (cached local headers reused),
    each against the full download."""
    f = one["full"]
    for mode, label, evidence in (("delta", "delta", "crc32"), ("digest", "delta with Repr-Digest", "digest")):
        d = one.get(mode)
        if not d:
            continue
        requests = max(1, (d["delta"] or {}).get("requests", 1))
        framing = FRAMING_PER_PART * one["entries"] if mode == "delta" else 0
        limit = one["bound"] + HEADERS_PER_REQUEST * requests + framing
        proven = d.get("evidence") == evidence
        row(f"{name}: one-file update of a 40-file bundle: bytes, {label}", f"{d['bytes'] / 1e3:.1f} kB",
            f"<= {limit / 1e3:.1f} kB", d["ok"] and d["bytes"] <= limit and not d["fallback"] and proven,
            f"full download {f['bytes'] / 1e6:.2f} MB ({d['bytes'] / f['bytes']:.3f} of it); bound: the changed entry + "
            f"central directory + local headers + 10% ({one['bound']} B) + {HEADERS_PER_REQUEST} B of headers a request"
            + (f" + {FRAMING_PER_PART} B of multipart framing for each of {one['entries']} entries" if framing else "")
            + f"; delta_evidence {d.get('evidence')}; report delta {json.dumps(d['delta'])}"
            + (f"; fell back: {d['fallback']}" if d["fallback"] else "") + ("" if d["ok"] else f"; wrong tree: {d['why']}"))
        row(f"{name}: one-file update: time, {label} / full", f"{d['seconds'] / f['seconds']:.2f}", "< 1",
            d["ok"] and f["ok"] and d["seconds"] < f["seconds"], f"{d['seconds']:.2f} s against {f['seconds']:.2f} s")


def cases_row(name, key, notes, others, row):
    """Every update case's tree, by delta (with and without a digest) and whole."""
    modes = ("delta", "digest", "full")
    right = sum(1 for _, v in others if all(v[m]["ok"] for m in modes if m in v))
    every = notes.get(key + "every file changed")
    costly = every and any(
        not every[m]["fallback"] and every[m]["bytes"] > 1.1 * every["full"]["bytes"] for m in ("delta", "digest") if m in every)
    detail = "; ".join(
        f"{case[len(key):]}: {v['delta']['bytes'] / 1e3:.0f} kB"
        + (f" ({v['digest']['bytes'] / 1e3:.0f} kB with Repr-Digest)" if "digest" in v else "")
        + f" vs {v['full']['bytes'] / 1e3:.0f} kB"
        + "".join(f" ({m} fell back: {v[m]['fallback']})" for m in ("delta", "digest") if m in v and v[m]["fallback"])
        + "".join(f" {m} WRONG TREE {v[m]['why']}" for m in modes if m in v and not v[m]["ok"])
        for case, v in others)
    row(f"{name}: update cases against nginx: the new ZIP's tree", f"{right} of {len(others)}",
        f"{len(others)} of {len(others)}", right == len(others) and not costly, detail)
