"""Issue 27: the same 500 assets (the corpus's 400 PNGs and 100 ZIPs) with 1, 3,
50 and all 500 of their messages starting at session start. For each mix: the
flush calls of a cold run (strace, as row K), and how long the session-start
messages take to be ready (the largest `ready_ms` among them) against a cold run
of those messages alone."""
import os

from harness import message, write_json

MIXES = (1, 3, 50, 500)


def corpus(assets):
    return [a for a in assets if a["kind"] == "archive" or a["path"].endswith(".png")][:500]


def write(work, assets, base):
    """Per mix: the manifest, the manifest of its session-start messages alone, their ids."""
    chosen = corpus(assets)
    folder = os.path.join(work, "manifests")
    os.makedirs(folder, exist_ok=True)
    manifests = {}
    for mix in MIXES:
        # Spread through the manifest, as a publisher's would be, not bunched first.
        urgent = {k * len(chosen) // mix for k in range(mix)}
        triggers = [message(f"x{i:03d}", a, base, urgent=i in urgent, index=i) for i, a in enumerate(chosen)]
        alone = [t for i, t in enumerate(triggers) if i in urgent]
        manifests[mix] = (
            write_json(f"{folder}/mix-{mix}.json", {"triggers": triggers}),
            write_json(f"{folder}/mix-{mix}-alone.json", {"triggers": alone}),
            {t["id"] for t in alone},
        )
    return manifests


def latest_ready(report, ids):
    return max(m["ready_ms"] for m in report["messages"] if m["id"] in ids) / 1000


def run(bench, manifests, flush_calls):
    for mix, (mixed, alone, ids) in manifests.items():
        total, note = flush_calls(bench, mixed)
        bench.add(f"K_mix{mix}", total)
        bench.notes[f"K_mix{mix}"] = note
        _, report = bench.prefetch(["run", mixed], bench.scratch.new(f"mix-{mix}"))
        bench.add(f"R_mix{mix}", latest_ready(report, ids))
        _, report = bench.prefetch(["run", alone], bench.scratch.new(f"mix-{mix}-alone"), expect_ready=len(ids))
        bench.add(f"R_alone{mix}", latest_ready(report, ids))


def rows(s, notes, row):
    ms = lambda x: f"{x * 1000:.0f} ms"
    for mix in MIXES:
        if f"K_mix{mix}" not in s:
            return
        flushes = s[f"K_mix{mix}"]
        row(f"K  flush calls, {mix} of 500 messages at session start", f"{flushes:.0f}", "<= 64", flushes <= 64,
            notes.get(f"K_mix{mix}", ""))
    for mix in MIXES:
        ratio = s[f"R_mix{mix}"] / s[f"R_alone{mix}"]
        row(f"F  session-start ready, {mix} of 500: mix / alone", f"{ratio:.2f}", "<= 1.5", ratio <= 1.5,
            f"{ms(s[f'R_mix{mix}'])} in the mix, {ms(s[f'R_alone{mix}'])} alone (the last of them ready)")
