#!/usr/bin/env bash
# Instructions executed (valgrind --tool=callgrind, Ir) by the manifest reader
# and by an offline plan, on the manifests of bench/run.py: a count that does
# not depend on what else the machine is doing, unlike the wall times of
# `make bench`.
#
#   bench/callgrind.sh MANIFEST_DIR CACHE_DIR
#
# MANIFEST_DIR holds plan-1000.json and plan-10000.json, CACHE_DIR a cache that
# a run of session.json filled (`python3 bench/run.py --bin DIR --serve` writes
# the manifests; `prefetch run` of its session.json fills a cache).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { sed -n '2,12p' "$0"; exit 64; }
export ASSETCACHE_BENCH=1
swift build -c release --product BenchPlan >&2
bin=$(swift build -c release --show-bin-path)/BenchPlan
# valgrind 3.19 cannot read the DWARF 5 that swiftc writes: count on a copy without it.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/BenchPlan" "$bin"
count() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/BenchPlan" "$@" >/dev/null 2>"$work/log"
    awk '/^summary:/ { print $2 }' "$work/out"
}
for n in 1000 10000; do
    decode=$(count decode "$1/plan-$n.json")
    plan=$(count plan "$1/plan-$n.json" "$2")
    printf 'plan-%s.json: Manifest.decode %s Ir, plan --json %s Ir\n' "$n" "$decode" "$plan"
done
