#!/usr/bin/env bash
# Instructions executed (valgrind --tool=callgrind, "Ir") by the manifest reader,
# by an offline plan, and by Python's json.load of the same file: counts that do
# not depend on what else the machine is doing, unlike the wall times of
# `make bench`.
#
#   bench/callgrind.sh MANIFEST_DIR CACHE_DIR
#
# MANIFEST_DIR holds plan-1000.json and plan-10000.json, CACHE_DIR a cache that
# a run of session.json filled: bench/run.py --callgrind passes its own, and
# `python3 bench/run.py --bin DIR --serve` writes them for a run by hand.
# Prints one "name count" line each; PYTHON names the interpreter (python3).
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
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$@" >/dev/null 2>"$work/log"
    awk '/^summary:/ { print $2 }' "$work/out"
}
for n in 1000 10000; do
    manifest="$1/plan-$n.json"
    echo "decode-$n $(count "$work/BenchPlan" decode "$manifest")"
    echo "summary-$n $(count "$work/BenchPlan" summary "$manifest" "$2")"
    echo "json-$n $(count "$work/BenchPlan" plan "$manifest" "$2")"
done
echo "python-10000 $(count "${PYTHON:-python3}" -c 'import json,sys; json.load(open(sys.argv[1],"rb"))' "$1/plan-10000.json")"
echo "python-start $(count "${PYTHON:-python3}" -c 'import json,sys')"
