#!/usr/bin/env bash
# `make test-unit`, where systemd runs the machine: the shipped unit's sandbox
# must not change a single verdict. Runs `prefetch run` of
# fixtures/manifests/demo.json (against fixture-server on loopback) once as a
# transient service with every sandboxing directive of
# contrib/systemd/prefetch.service (`systemd-run --property=…`), once plainly,
# and compares the verdicts of every message. Needs root (systemd-run on the
# system manager). Where systemd is not PID 1 (a container, a chroot) it says
# so and exits 0: `systemd-analyze security --offline` still scores the unit.
#
#   scripts/unit-sandbox-test.sh BIN_DIR
set -euo pipefail
bin=$(cd "${1:?usage: unit-sandbox-test.sh BIN_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
unit=$top/contrib/systemd/prefetch.service

if [ ! -d /run/systemd/system ]; then
    echo "unit-sandbox-test: systemd is not running this machine (PID 1 is $(cat /proc/1/comm)); skipped"
    exit 0
fi
[ "$(id -u)" = 0 ] || { echo "unit-sandbox-test: needs root for systemd-run; skipped" >&2; exit 0; }

# Under /var/tmp, not /tmp or a home: the unit has PrivateTmp= and ProtectHome=.
work=$(mktemp -d /var/tmp/prefetch-unit-test.XXXXXX)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    rm -rf "$work" /var/cache/prefetch-unit-test
}
trap cleanup EXIT
cp "$bin/prefetch" "$work/prefetch"
"$bin/fixture-server" --root "$top/fixtures/assets" >"$work/url" &
server=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")
[ -n "$url" ] || { echo "unit-sandbox-test: fixture-server did not start" >&2; exit 1; }
sed "s#http://fixtures.test#$url#g" "$top/fixtures/manifests/demo.json" >"$work/demo.json"
# The manifest comes from a configuration file, as the unit's does (and this
# machine's /etc/prefetch, if it has one, is not read by either run).
echo "manifest = $work/demo.json" >"$work/prefetch.conf"
chmod -R a+rX "$work"

# Every directive of the unit's [Service] section but those that name who runs
# what, and where: the transient service runs the binary built here, as a
# dynamic user, with a cache of its own.
properties=()
while IFS= read -r line; do
    properties+=(--property="$line")
done < <(sed -n '/^\[Service\]/,/^\[/p' "$unit" | grep -E '^[A-Za-z]+=' |
    grep -vE '^(Type|User|Group|Environment|ExecStartPre|ExecStart|SuccessExitStatus|CacheDirectory|CacheDirectoryMode)=')
echo "unit-sandbox-test: ${#properties[@]} directives of $unit"

status=0
systemd-run --wait --pipe --collect --quiet --property=DynamicUser=yes \
    --property=CacheDirectory=prefetch-unit-test "${properties[@]}" \
    "$work/prefetch" run --config "$work/prefetch.conf" --json >"$work/sandboxed.json" || status=$?
plain=0
"$work/prefetch" run --config "$work/prefetch.conf" --json --cache-dir "$work/plain-cache" >"$work/plain.json" || plain=$?
[ "$status" = "$plain" ] || { echo "unit-sandbox-test: exit $status in the sandbox, $plain without" >&2; exit 1; }
python3 - "$work/sandboxed.json" "$work/plain.json" <<'EOF'
import json, sys
verdicts = [[(m["id"], m["status"], m.get("reason")) for m in json.load(open(p))["messages"]] for p in sys.argv[1:]]
if verdicts[0] != verdicts[1]:
    sys.exit("unit-sandbox-test: verdicts differ in the sandbox:\n"
             + "\n".join(f"  {a} != {b}" for a, b in zip(*verdicts) if a != b))
print(f"unit-sandbox-test: {len(verdicts[0])} messages, the same verdicts in the sandbox and without it")
EOF
