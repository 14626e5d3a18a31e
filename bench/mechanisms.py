"""Issue 27: what each mechanism that exists only for speed buys, measured with
it and without it in the same run. The plan's (the hand-written JSON report)
through bench/BenchPlan, whose switches turn one off at a time, over
plan-10000.json and the session's cache, each variant alternating with the
default within a round; the run's head start through `run --head-start 0`,
on F (the session-start message's ready_ms, last of 600)."""
import os
import subprocess

from harness import TOP, measure, opener_id

# Switch of bench/BenchPlan, and the mechanism it turns off.
# The two-thread read, the cache look-ahead, KeptUntilExit and mallopt's
# M_TOP_PAD were measured this way too and removed (BENCHMARKS.md, "Speed
# mechanisms").
PLAN = (
    ("--encoder", "hand-written JSON report (PrettyJSON) instead of JSONEncoder"),
)
REPEAT = 5


def build():
    """BenchPlan in release, as bench/callgrind.sh builds it."""
    env = dict(os.environ, ASSETCACHE_BENCH="1")
    subprocess.run(["swift", "build", "-c", "release", "--product", "BenchPlan"], cwd=TOP, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=TOP, env=env, check=True,
                         capture_output=True, text=True)
    return os.path.join(out.stdout.strip(), "BenchPlan")


def run_plan(bench, binary, manifests):
    cache = bench.session_cache
    for _ in range(REPEAT):
        for switch, _ in (("", ""),) + PLAN:
            argv = [binary, "plan", manifests["plan-10000"], cache] + ([switch] if switch else [])
            r = measure(argv, stdout_file=os.devnull)
            if r.status != 0:
                raise SystemExit(f"bench: {' '.join(argv)} exited {r.status}")
            bench.add(f"M_plan{switch}", r.seconds)


def run_head_start(bench, manifests):
    """A cold run without the head start: F against A's F, same rounds."""
    r, report = bench.prefetch(["run", manifests["session"], "--head-start", "0"], bench.scratch.new("no-head-start"),
                               expect_ready=len(bench.assets))
    opener = next(m for m in report["messages"] if m["id"] == opener_id(bench.assets))
    bench.add("M_F_no_head_start", opener["ready_ms"] / 1000)
    bench.add("M_A_no_head_start", r.seconds)


def rows(s, row):
    if "M_plan" not in s:
        return
    ms = lambda x: f"{x * 1000:.1f} ms"
    base = s["M_plan"]
    row("M  plan --json of 10,000 messages, every mechanism on", ms(base), note="bench/BenchPlan")
    for switch, what in PLAN:
        without = s[f"M_plan{switch}"]
        gain = (without - base) / without
        row(f"M  without {what}", ms(without), ">= 10% slower to keep", gain >= 0.10,
            f"{switch}: the mechanism buys {gain * 100:.0f}%")
    if "M_F_no_head_start" in s:
        gain = (s["M_F_no_head_start"] - s["F"]) / s["M_F_no_head_start"]
        row("M  F without the head start (run --head-start 0)", ms(s["M_F_no_head_start"]), ">= 10% slower to keep",
            gain >= 0.10, f"F with it {ms(s['F'])}: the head start buys {gain * 100:.0f}%; "
                          f"A without it {ms(s['M_A_no_head_start'])}, with it {ms(s['A'])}")
