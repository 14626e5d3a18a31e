#!/usr/bin/env bash
# Runs the main job end to end on loopback: fixture-server over fixtures/assets,
# `prefetch run` of fixtures/manifests/demo.json into a throwaway cache, the report.
# DEMO_CACHE=DIR keeps the cache in DIR between runs, and DEMO_PORT=N serves on
# that port (so the URLs, and the cache's refs, are the same each time): every
# run into one cache must give the same counts, e.g.
#   for i in $(seq 10); do make demo DEMO_CACHE=/tmp/demo-cache DEMO_PORT=8765 | grep messages:; done
set -euo pipefail
bin=${1:?usage: demo.sh BIN_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

cache=${DEMO_CACHE:-$work/cache}
"$bin/fixture-server" --root "$top/fixtures/assets" --port "${DEMO_PORT:-0}" >"$work/url" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")
[ -n "$url" ] || { echo "demo: fixture-server did not start" >&2; exit 1; }

# The manifest names its assets under http://fixtures.test; point them at the server.
sed "s#http://fixtures.test#$url#g" "$top/fixtures/manifests/demo.json" >"$work/demo.json"
echo "fixture-server on $url; prefetching fixtures/manifests/demo.json into $cache"
echo
status=0
"$bin/prefetch" run "$work/demo.json" --cache-dir "$cache" --verbose || status=$?
echo
echo "prefetch exited $status (1: some messages were discarded, as demo.json intends)"
echo "The same report as JSON: prefetch run MANIFEST --json (docs/report.md)"
[ "$status" -le 1 ]
