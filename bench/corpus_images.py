"""The JPEG, GIF and WebP share of the benchmark corpus, for bench/corpus.py.

    www/jpeg/NNN.jpg   60 JPEGs, 20 KiB to 1 MiB (log-uniform): 4:2:0 at quality
                       85, every third progressive (cjpeg)
    www/gif/NNN.gif    20 GIFs, 20 to 400 KiB, 16 colours, every other one
                       animated (2-6 frames); LZW written here
    www/webp/NNN.webp  20 WebPs, 10 to 500 KiB: lossy, lossy with alpha and
                       lossless, in turn (cwebp)

Pixels are seeded noise with 4 bits of entropy per byte, like the PNGs'; a tenth
of the URLs (6, 2 and 2) repeat the bytes of an earlier one. cjpeg and cwebp
come from libjpeg-turbo-progs and webp, which `make bench` installs with the
decoders the baseline pipeline uses (djpeg, dwebp), and their versions are part
of the corpus stamp.
"""

import math
import os
import random
import struct
import subprocess
import tempfile

SEED = 20261114
LEVELS = bytes((i >> 4) * 17 for i in range(256))
SIXTEEN = bytes(i % 16 for i in range(256))

# (folder, count, copies, smallest, largest)
KINDS = [("jpeg", 60, 6, 20 * 1024, 1024 * 1024), ("gif", 20, 2, 20 * 1024, 400 * 1024),
         ("webp", 20, 2, 10 * 1024, 500 * 1024)]


def tool_versions():
    def run(argv):
        return subprocess.run(argv, capture_output=True, text=True).stdout.strip() or "?"
    return f"cjpeg {run(['cjpeg', '-version'])[:40]} cwebp {run(['cwebp', '-version'])}"


def noise(rng, width, height, channels):
    """Rows of noise, each twice, so encoders find some structure."""
    rows = []
    for _ in range(0, height, 2):
        row = rng.randbytes(width * channels).translate(LEVELS)
        rows += [row, row]
    return b"".join(rows[:height])


def encode(argv, suffix, header, pixels):
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "in" + suffix)
        with open(source, "wb") as f:
            f.write(header + pixels)
        return subprocess.run(argv + [source], capture_output=True, check=True).stdout


def jpeg(rng, pixels, index):
    width = max(16, int((pixels * 4 / 3) ** 0.5))
    height = max(16, pixels // width)
    options = ["-progressive"] if index % 3 == 2 else []
    return encode(["cjpeg", "-quality", "85", "-sample", "2x2"] + options, ".ppm",
                  b"P6\n%d %d\n255\n" % (width, height), noise(rng, width, height, 3))


def webp(rng, pixels, index):
    """PAM input, so that the alpha channel reaches cwebp."""
    width = max(16, int((pixels * 4 / 3) ** 0.5))
    height = max(16, pixels // width)
    mode = index % 3
    header = b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (width, height)
    options = [["-q", "80", "-noalpha"], ["-q", "80"], ["-lossless"]][mode]
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.webp")
        encode(["cwebp", "-quiet"] + options + ["-o", out, "--"], ".pam", header, noise(rng, width, height, 4))
        with open(out, "rb") as f:
            return f.read()


def lzw(indices, min_size):
    """GIF LZW with a clear code whenever the table fills; code widths as in
    fixtures/generate.py, whose output giflib decodes."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    size, next_code = min_size + 1, end + 1
    table = {}
    out, acc, bits = bytearray(), 0, 0

    def emit(code):
        nonlocal acc, bits
        acc |= code << bits
        bits += size
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8

    emit(clear)
    prefix = indices[0]
    for index in indices[1:]:
        key = prefix << 8 | index
        code = table.get(key)
        if code is not None:
            prefix = code
            continue
        emit(prefix)
        if next_code < 4095:
            table[key] = next_code
            next_code += 1
            if next_code > (1 << size):
                size += 1
        else:
            emit(clear)
            table.clear()
            size, next_code = min_size + 1, end + 1
        prefix = index
    emit(prefix)
    emit(end)
    if bits:
        out.append(acc & 0xFF)
    return bytes(out)


def gif(rng, pixels, index):
    frames = 1 if index % 2 == 0 else 2 + index % 5
    per_frame = max(256, pixels // frames)
    width = max(16, int((per_frame * 4 / 3) ** 0.5))
    height = max(16, per_frame // width)
    palette = rng.randbytes(48)
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, 0xB3, 0, 0) + palette)
    if frames > 1:
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    for _ in range(frames):
        # Runs of four pixels of one colour: about a bit of entropy a pixel.
        quarter = rng.randbytes((width * height + 3) // 4).translate(SIXTEEN)
        indices = bytes(b for b in quarter for _ in range(4))[:width * height]
        data = lzw(indices, 4)
        out += b"\x21\xf9\x04\x04\x0a\x00\x00\x00"  # 100 ms, keep the frame
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x04"
        out += b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255)) + b"\0"
    return bytes(out + b"\x3b")


def sized(make, rng, target, index):
    """Scales the picture until the file lies within 15% of `target`."""
    pixels = target
    for _ in range(5):
        data = make(random.Random(rng.random()), pixels, index)
        if abs(len(data) - target) <= 0.15 * target:
            break
        pixels = max(256, int(pixels * target / len(data)))
    return data


def generate(www, write):
    """Writes the files with `write(path, data)`; their asset entries."""
    rng = random.Random(SEED)
    makers = {"jpeg": jpeg, "gif": gif, "webp": webp}
    assets = []
    for folder, count, copies, smallest, largest in KINDS:
        made = []
        for i in range(count):
            path = f"{folder}/{i:03d}.{'jpg' if folder == 'jpeg' else folder}"
            if i >= count - copies:
                data = made[rng.randrange(len(made))]
            else:
                target = int(2 ** rng.uniform(math.log2(smallest), math.log2(largest)))
                data = sized(makers[folder], rng, target, i)
            made.append(data)
            write(os.path.join(www, path), data)
            assets.append({"path": path, "kind": "image", "bytes": len(data)})
    return assets
