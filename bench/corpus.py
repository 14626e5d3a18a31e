#!/usr/bin/env python3
"""Writes the benchmark corpus: a session of 600 in-app messages and their assets.

    python3 bench/corpus.py --out DIR [--big]

Deterministic: every byte comes from a seeded random.Random and zlib (level 6),
so the same Python and zlib give the same files. Under DIR:

    www/png/NNN.png       400 PNG URLs, 5 KiB to 2 MiB (log-uniform), colour types
                          0, 2, 3, 4, 6 at 8 bits and 2 at 16 bits, every row filtered
    www/zip/NNN.zip       100 HTML ZIP bundles of 5-40 files (HTML, CSS, JS deflated,
                          PNG images stored)
    www/jpeg, gif, webp/  100 JPEG, GIF and WebP URLs (bench/corpus_images.py)
    www/big/big.zip       with --big only: 1 GiB ZIP of stored data (8 x 128 MiB)
    assets.json           the URL paths in manifest order, with kind and size

10% of the URLs share bytes with another URL (40 PNGs, 10 ZIPs and 10 of the
other images are copies), so the content-addressed cache stores 540 objects for
600 URLs. The last asset is
the session-start message's: a 1 MiB RGBA PNG. Every file's mtime is set to
2025-01-01, so nginx's Last-Modified is old and a cache may give it heuristic
freshness. Manifests are written by bench/run.py, which knows the server's port.
"""

import argparse
import json
import math
import os
import random
import struct
import sys
import zipfile
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in bench/
import corpus_images  # noqa: E402

SEED = 20260601
VERSION = "corpus-v2"  # bump when the output changes, so old corpora are rebuilt
MTIME = 1735689600  # 2025-01-01T00:00:00Z

PNG_COUNT = 400
ZIP_COUNT = 100
SHARED_PNG = 40
SHARED_ZIP = 10
MIN_PNG = 5 * 1024
MAX_PNG = 2 * 1024 * 1024
OPEN_PNG = 1024 * 1024

# (colour type, bit depth, channels): gray, RGB, palette, gray+alpha, RGBA, RGB16
COLOUR_TYPES = [(0, 8, 1), (2, 8, 3), (3, 8, 1), (4, 8, 2), (6, 8, 4), (2, 16, 6)]
# 16 levels per byte: about 4 bits of entropy, so zlib halves the raw size, as
# it does for ordinary photos and illustrations.
LEVELS = bytes((i >> 4) * 17 for i in range(256))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(rng, target, colour):
    """A PNG of about `target` bytes."""
    colour_type, depth, bytes_per_pixel = colour
    raw_target = target * 2
    pixels = max(16, raw_target // bytes_per_pixel)
    width = max(4, int(math.sqrt(pixels * 4 / 3)))
    height = max(4, pixels // width)
    stride = width * bytes_per_pixel
    body = rng.randbytes(stride * height).translate(LEVELS)
    filters = rng.randbytes(height)
    raw = bytearray()
    for y in range(height):
        raw.append(filters[y] % 5)
        raw += body[y * stride:(y + 1) * stride]
    data = zlib.compress(bytes(raw), 6)
    out = bytearray(b"\x89PNG\r\n\x1a\n")
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0))
    if colour_type == 3:
        out += chunk(b"PLTE", bytes(rng.randrange(256) for _ in range(3 * 256)))
    for start in range(0, len(data), 65536):
        out += chunk(b"IDAT", data[start:start + 65536])
    out += chunk(b"IEND", b"")
    return bytes(out)


def sized_png(rng, target, colour):
    """Scales the image until the file lies within 10% of `target` (and within
    the corpus's 5 KiB to 2 MiB for the session's PNGs)."""
    low, high = max(target * 0.9, min(target, MIN_PNG)), min(target * 1.1, max(target, MAX_PNG))
    attempt = target
    for _ in range(6):
        data = png(random.Random(rng.random()), attempt, colour)
        if low <= len(data) <= high:
            return data
        attempt = max(256, int(attempt * target / len(data)))
    return data


WORDS = ("sale spring offer member bonus today only free shipping limited edition new arrivals "
         "discover collection exclusive reward points welcome back checkout cart wishlist").split()


def text(rng, size, kind):
    lines = []
    total = 0
    while total < size:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 14)))
        line = {
            "html": f"<p class=\"c{rng.randrange(40)}\">{words}</p>",
            "css": f".c{rng.randrange(400)} {{ margin: {rng.randrange(40)}px; color: #{rng.randrange(1 << 24):06x}; }} /* {words} */",
            "js": f"function f{rng.randrange(10000)}(a) {{ return a + {rng.randrange(1000)}; }} // {words}",
        }[kind]
        lines.append(line)
        total += len(line) + 1
    return ("\n".join(lines) + "\n").encode()[:size]


def bundle(rng, path):
    files = rng.randrange(5, 41)
    entries = [("index.html", text(rng, rng.randrange(2048, 16384), "html"))]
    for i in range(files - 1):
        pick = rng.random()
        if pick < 0.3:
            entries.append((f"css/s{i}.css", text(rng, int(math.exp(rng.uniform(math.log(512), math.log(24576)))), "css")))
        elif pick < 0.6:
            entries.append((f"js/m{i}.js", text(rng, int(math.exp(rng.uniform(math.log(512), math.log(32768)))), "js")))
        else:
            size = int(math.exp(rng.uniform(math.log(1024), math.log(49152))))
            entries.append((f"img/i{i}.png", sized_png(rng, size, rng.choice(COLOUR_TYPES[:5]))))
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.create_system = 3
            if name.endswith(".png"):
                info.compress_type = zipfile.ZIP_STORED
                archive.writestr(info, data)
            else:
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data, compresslevel=6)


def big_zip(path, entries=8, entry_size=128 * 1024 * 1024):
    """1 GiB of stored (uncompressed) data, streamed: never whole in memory."""
    rng = random.Random(SEED + 1)
    blocks = [rng.randbytes(1024 * 1024) for _ in range(7)]
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", allowZip64=False) as archive:
        for i in range(entries):
            info = zipfile.ZipInfo(f"data/part{i}.bin", date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            info.file_size = entry_size
            with archive.open(info, "w") as out:
                for j in range(entry_size // len(blocks[0])):
                    out.write(blocks[(i + j) % len(blocks)])
    os.utime(tmp, (MTIME, MTIME))
    os.replace(tmp, path)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (MTIME, MTIME))


def generate(out):
    rng = random.Random(SEED)
    www = os.path.join(out, "www")
    assets = []
    pngs = []
    for i in range(PNG_COUNT):
        path = f"png/{i:03d}.png"
        if i == PNG_COUNT - 1:
            data = sized_png(rng, OPEN_PNG, (6, 8, 4))
        elif i >= PNG_COUNT - 1 - SHARED_PNG:
            data = pngs[rng.randrange(len(pngs))]  # same bytes as an earlier URL
        else:
            target = int(math.exp(rng.uniform(math.log(MIN_PNG), math.log(MAX_PNG))))
            data = sized_png(rng, target, COLOUR_TYPES[i % len(COLOUR_TYPES)])
        pngs.append(data)
        write(os.path.join(www, path), data)
        assets.append({"path": path, "kind": "image", "bytes": len(data)})
    zips = []
    for i in range(ZIP_COUNT):
        path = os.path.join(www, f"zip/{i:03d}.zip")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if i >= ZIP_COUNT - SHARED_ZIP:
            with open(zips[rng.randrange(len(zips))], "rb") as f:
                write(path, f.read())
        else:
            bundle(rng, path)
            os.utime(path, (MTIME, MTIME))
        zips.append(path)
        assets.append({"path": f"zip/{i:03d}.zip", "kind": "archive", "bytes": os.path.getsize(path)})
    assets += corpus_images.generate(www, write)
    # Manifest order: the session-start PNG last of all.
    opener = assets.pop(PNG_COUNT - 1)
    rng.shuffle(assets)
    assets.append(opener)
    return assets


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--big", action="store_true", help="also the 1 GiB ZIP for the memory run")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    index = os.path.join(out, "assets.json")
    stamp = (f"{VERSION} python {sys.version_info[0]}.{sys.version_info[1]} zlib {zlib.ZLIB_VERSION} "
             + corpus_images.tool_versions())
    current = None
    if os.path.exists(index):
        with open(index) as f:
            current = json.load(f).get("stamp")
    if current != stamp:
        print(f"corpus: generating 600 assets into {out}/www (seed {SEED})", file=sys.stderr)
        assets = generate(out)
        with open(index, "w") as f:
            json.dump({"stamp": stamp, "assets": assets}, f, indent=1)
    big = os.path.join(out, "www/big/big.zip")
    if args.big and not os.path.exists(big):
        print(f"corpus: writing the 1 GiB stored ZIP {big}", file=sys.stderr)
        os.makedirs(os.path.dirname(big), exist_ok=True)
        big_zip(big)


if __name__ == "__main__":
    main()
