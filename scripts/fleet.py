#!/usr/bin/env python3
"""Helpers of scripts/fleet.sh (make fleet): the corpus and manifest, the change
of round 2, and the summaries it prints. Not meant to be run by hand.

    fleet.py corpus WORK ORIGIN_URL ASSETS      www/, manifest.json
    fleet.py change WORK ORIGIN_URL             a new PNG; the manifest's first message points at it
    fleet.py origin LOG                         the origin's requests by status
    fleet.py proxy LOG                          the proxy's answers by cache status
    fleet.py verdicts REPORT...                 one line per device, from its JSON report
    fleet.py scrape METRICS_TEXT DEVICES...     what node_exporter says of each device, and the fleet's totals
"""

import json
import math
import os
import random
import re
import sys
from collections import Counter, defaultdict

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench"))
import corpus  # noqa: E402  (bench/corpus.py: the benchmark's PNG and ZIP makers)

SEED = 20261123


def message(index, path, base):
    url = f"{base}/{path}"
    data = ({"type": "HTML_FULL", "message": f"bundle {index}", "zipped_assets_url": url} if path.endswith(".zip")
            else {"type": "MODAL", "message": f"image {index}", "image_url": url})
    return {"id": f"m{index:03d}", "type": "inapp", "trigger_condition": [{"type": "open"}], "data": data}


def write_manifest(work, paths, base):
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump({"triggers": [message(i, p, base) for i, p in enumerate(paths)]}, f, indent=1)


def make_corpus(work, base, count):
    rng = random.Random(SEED)
    www = os.path.join(work, "www")
    zips = max(1, count // 6)
    paths = []
    for i in range(count - zips):
        target = int(math.exp(rng.uniform(math.log(4096), math.log(200 * 1024))))
        paths.append(f"png/{i:03d}.png")
        corpus.write(os.path.join(www, paths[-1]), corpus.sized_png(rng, target, corpus.COLOUR_TYPES[i % 5]))
    for i in range(zips):
        paths.append(f"zip/{i:03d}.zip")
        os.makedirs(os.path.join(www, "zip"), exist_ok=True)
        corpus.bundle(rng, os.path.join(www, paths[-1]))
    write_manifest(work, paths, base)
    total = sum(os.path.getsize(os.path.join(www, p)) for p in paths)
    print(f"corpus: {count} assets ({count - zips} PNGs, {zips} HTML ZIP bundles), {total / 1048576:.1f} MiB")


def change(work, base):
    with open(os.path.join(work, "manifest.json")) as f:
        manifest = json.load(f)
    first = manifest["triggers"][0]["data"]
    corpus.write(os.path.join(work, "www/png/changed.png"), corpus.sized_png(random.Random(SEED + 1), 50 * 1024, (6, 8, 4)))
    old = first["image_url"]
    first["image_url"] = f"{base}/png/changed.png"
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"manifest: message m000 now shows png/changed.png instead of {old.rsplit('/', 2)[-2]}/{old.rsplit('/', 1)[-1]}")


def log_lines(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def origin(path):
    lines = log_lines(path)
    statuses = Counter(status for status, _method, _uri in lines)
    fetched = Counter(uri for status, _method, uri in lines if status == "200")
    twice = sorted(uri for uri, n in fetched.items() if n > 1)
    print(f"origin: {len(lines)} request(s): {statuses.get('200', 0)} full response(s) (200) for {len(fetched)} distinct URL(s), "
          f"{statuses.get('304', 0)} not modified (304)"
          + "".join(f", {n} {s}" for s, n in sorted(statuses.items()) if s not in ("200", "304"))
          + (f"; served more than once: {', '.join(twice)}" if twice else ""))
    return statuses.get("200", 0), len(fetched)


def proxy(path):
    lines = log_lines(path)
    answers = Counter(f"{cache} {status}" for cache, status, _uri in lines)
    print(f"proxy:  {len(lines)} requests from the devices: "
          + ", ".join(f"{n} {key.replace(' ', '/')}" for key, n in sorted(answers.items(), key=lambda kv: -kv[1])))


def verdicts(reports):
    for path in reports:
        name = os.path.basename(os.path.dirname(path))
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError) as error:
            print(f"  {name}: no report ({error})")
            continue
        totals = report["totals"]
        outcomes = Counter(a["outcome"] for a in report["assets"])
        print(f"  {name}: {totals['ready']} ready, {totals['discarded']} discarded of {totals['messages']} messages; "
              + ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))
              + f"; {totals['downloaded_bytes'] / 1024:.0f} KiB over {totals['connections']} connection(s) in {report['duration_ms']} ms")


SAMPLE = re.compile(r'^(prefetch_[a-z_]+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def scrape(path, devices):
    """devices: NAME=CACHE_DIR pairs, so that each cache_dir label reads as its device."""
    names = dict(pair.split("=", 1)[::-1] for pair in devices)
    per_device = defaultdict(dict)
    with open(path) as f:
        text = f.read()
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if not match:
            continue
        labels = dict(LABEL.findall(match.group(2)))
        device = names.get(labels.pop("cache_dir", ""), "?")
        key = match.group(1) + "".join(f"{{{k}={v}}}" for k, v in sorted(labels.items()))
        per_device[device][key] = float(match.group(3))
    errors = re.findall(r'^node_textfile_scrape_error (\S+)$', text, re.M)
    print(f"node_exporter: prefetch metrics of {len(per_device)} of {len(names)} devices"
          f" (node_textfile_scrape_error {errors[0] if errors else 'missing'})")
    for device in sorted(per_device):
        m = per_device[device]
        print(f"  {device}: success {m.get('prefetch_last_run_success', 0):.0f}, exit {m.get('prefetch_last_run_exit_code', -1):.0f}, "
              f"runs {m.get('prefetch_runs_total{result=success}', 0):.0f}, "
              f"downloaded {m.get('prefetch_downloaded_bytes_total', 0) / 1024:.0f} KiB in all, "
              f"cache {m.get('prefetch_cache_bytes', 0) / 1048576:.1f} MiB")
    fleet = Counter()
    for m in per_device.values():
        fleet.update(m)
    messages = ", ".join(f"{fleet[k]:.0f} {k.split('status=')[1].split('}')[0]}"
                         for k in sorted(fleet) if k.startswith("prefetch_messages{") and "reason=}" in k + "}" and fleet[k])
    discarded = sum(v for k, v in fleet.items() if k.startswith("prefetch_messages{") and "status=discarded" in k)
    assets = ", ".join(f"{fleet[k]:.0f} {k.split('outcome=')[1].rstrip('}')}" for k in sorted(fleet) if k.startswith("prefetch_assets{") and fleet[k])
    print(f"fleet totals (sums over the devices' series): last runs' messages {messages}, {discarded:.0f} discarded; assets {assets}; "
          f"{fleet['prefetch_downloaded_bytes_total'] / 1048576:.1f} MiB downloaded, "
          f"{fleet['prefetch_attempts_total']:.0f} requests over {fleet['prefetch_connections_total']:.0f} connections in all runs")
    return len(per_device)


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "corpus":
        make_corpus(args[0], args[1], int(args[2]))
    elif command == "change":
        change(args[0], args[1])
    elif command == "origin":
        served, distinct = origin(args[0])
        expected = int(args[1])
        print(f"        {'OK' if served == expected and distinct == expected else 'UNEXPECTED'}: "
              f"{served} served, {expected} expected ({'unique assets' if expected > 1 else 'the changed asset'})")
        sys.exit(0 if served == expected and distinct == expected else 1)
    elif command == "proxy":
        proxy(args[0])
    elif command == "verdicts":
        verdicts(args)
    elif command == "scrape":
        seen = scrape(args[0], args[1:])
        sys.exit(0 if seen == len(args) - 1 else 1)
    else:
        sys.exit(f"fleet.py: unknown command {command}")


if __name__ == "__main__":
    main()
