#!/usr/bin/env bash
# `make package-test`: installs the prefetch package into a fresh Debian root
# that has never seen Swift, and checks there that it runs.
#
# The root is `debootstrap --variant=minbase` of this machine's release, made
# once and kept under $PACKAGE_TEST_CACHE (default /var/tmp/prefetch-package-test);
# every run works in a new copy of it. The mirror is $DEBOOTSTRAP_MIRROR, else
# the first one this machine's apt sources list for its release. Needs root.
#
# Inside the copy: `apt-get install` of the .deb (its Depends and nothing else),
# `prefetch --version`, `ldd` with nothing missing and nothing from Swift, a
# `prefetch run` of fixtures/manifests/demo.json against fixture-server on the
# host's loopback (a chroot shares the host's network) with the verdicts its
# messages expect in extras.expect, `prefetch verify`; then the timer's run
# as an operator sets it up: the service user the postinst made (no systemd
# in the root), a signify key in /etc/prefetch/keys.d/, the manifest's URL in
# /etc/prefetch/prefetch.conf, and the installed unit's ExecStart run as its
# User= with the CACHE_DIRECTORY systemd would give it: a manifest without a
# .sig (exit 69) and one signed by another key (exit 2) are refused with
# nothing fetched, the one signed by the key of keys.d is read. Then a
# display app's session start, as far as it goes without systemd as PID 1:
# /run/prefetch/session-start made from the package's tmpfiles.d (by the
# host's systemd-tmpfiles --root), `prefetch session-start` as a user in the
# prefetch group records a request where prefetch-session.path looks (a user
# outside it gets 77 naming the group), the installed service's ExecStartPre
# as its User= takes it, and `systemd-analyze verify` passes the installed
# units. Last, `apt-get remove --purge`, after which only the cache directory
# may be left.
set -euo pipefail
usage="usage: package-test.sh DEB_DIR"
debs=${1:?$usage}
debs=$(cd "$debs" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PACKAGE_TEST_CACHE:-/var/tmp/prefetch-package-test}
step() { printf '\n== %s\n' "$*"; }
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot); run it with sudo"
. /etc/os-release
release=${VERSION_CODENAME:?/etc/os-release names no release}
arch=$(dpkg --print-architecture)
version=$(dpkg-deb --field "$(ls "$debs"/prefetch_*_"$arch".deb | tail -n1)" Version)
deb=$debs/prefetch_${version}_$arch.deb
server_deb=$debs/prefetch-fixture-server_${version}_$arch.deb
[ -f "$deb" ] && [ -f "$server_deb" ] || fail "no packages for $version in $debs; run make deb"

# The mirror: DEBOOTSTRAP_MIRROR, else the first URI this machine's apt sources
# (one-line or deb822) give for its release.
mirror_from_sources() {
    local file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v rel="$release" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++;
            if ($(i + 1) == rel) { print $i; exit } }' "$file"
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v rel="$release" 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; ok = 0; on = 1; deb = 0
              for (n = 1; n <= NF; n++) {
                  if ($n ~ /^URIs:/) { split($n, u, " "); uri = u[2] }
                  if ($n ~ /^Suites:/) { c = split($n, s, " "); for (k = 2; k <= c; k++) if (s[k] == rel) ok = 1 }
                  if ($n ~ /^Types:/ && $n ~ /[ \t]deb([ \t]|$)/) deb = 1
                  if ($n ~ /^Enabled:[ \t]*no/) on = 0 }
              if (ok && on && deb && uri != "") { print uri; exit } }' "$file"
    done
}
mirror=${DEBOOTSTRAP_MIRROR:-$(mirror_from_sources | head -n1)}
[ -n "$mirror" ] || fail "no apt source for $release in /etc/apt; set DEBOOTSTRAP_MIRROR"

base=$cache/$release-$arch-minbase
root=$cache/run
server_pid=
manifest_server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    [ -n "$manifest_server_pid" ] && kill "$manifest_server_pid" 2>/dev/null && wait "$manifest_server_pid" 2>/dev/null
    mountpoint -q "$root/proc" && umount "$root/proc"
    return 0
}
trap cleanup EXIT

if [ ! -d "$base" ]; then
    step "debootstrap --variant=minbase $release $mirror (once; kept in $base)"
    rm -rf "$base.partial"
    mkdir -p "$cache"
    debootstrap --variant=minbase "$release" "$base.partial" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        fail "debootstrap failed; see $cache/debootstrap.log"
    mv "$base.partial" "$base"
fi

step "a fresh copy of the root: $root"
# Never delete through a mount point into the host's /proc.
mountpoint -q "$root/proc" && umount "$root/proc"
grep -q " $root/" /proc/mounts && fail "something is still mounted under $root"
rm -rf "$root"
cp -a "$base" "$root"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/tmp/package-test"
cp "$deb" "$server_deb" "$root/tmp/package-test/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
# No /dev/pts in the root: dpkg's output goes straight through instead of a pty.
apt() { in_root apt-get -o Dpkg::Use-Pty=0 "$@"; }
in_root sh -c '! command -v swift && ! ls /usr/lib/swift 2>/dev/null && ! ldconfig -p | grep -q libswift' >/dev/null ||
    fail "the root has Swift in it"
echo "no swift, no /usr/lib/swift, no libswift* known to ldconfig"
apt update -qq

# Every path in the root but the package manager's own bookkeeping and our inputs.
files() {
    (cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/lib/dpkg -o -path ./var/lib/apt \
        -o -path ./var/cache/apt -o -path ./var/cache/debconf -o -path ./var/cache/ldconfig -o -path ./var/log \
        -o -path ./etc/ld.so.cache \) -prune -o -print | sort)
}
files >"$cache/files-before"

step "apt-get install ./prefetch_${version}_$arch.deb"
apt install -y --no-install-recommends "/tmp/package-test/$(basename "$deb")"
installed=$(in_root dpkg-query -L prefetch)
for path in /usr/bin/prefetch /usr/share/man/man1/prefetch.1.gz /usr/share/bash-completion/completions/prefetch \
    /usr/share/zsh/vendor-completions/_prefetch /usr/share/fish/vendor_completions.d/prefetch.fish \
    /lib/systemd/system/prefetch.service /lib/systemd/system/prefetch.timer /lib/systemd/system/prefetch-session.path \
    /usr/lib/tmpfiles.d/prefetch.conf /usr/share/doc/prefetch/copyright; do
    grep -qx "$path" <<<"$installed" || fail "the package did not install $path"
done
[ -z "$(find "$root/etc/systemd" -name 'prefetch.*' 2>/dev/null)" ] || fail "the units were enabled on install"

step "prefetch --version"
got=$(in_root prefetch --version)
echo "$got"
[ "$got" = "$version" ] || fail "prefetch --version says '$got', the package is $version"

step "ldd /usr/bin/prefetch"
libraries=$(in_root ldd /usr/bin/prefetch)
echo "$libraries"
! grep -q "not found" <<<"$libraries" || fail "a library is missing"
! grep -Eq "libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime" <<<"$libraries" ||
    fail "the binary needs a library from the Swift toolchain"

step "readelf -d /usr/bin/prefetch: no \$ORIGIN in its search path"
dynamic=$(readelf -d "$root/usr/bin/prefetch")
! grep -q 'ORIGIN' <<<"$dynamic" || fail "the binary searches its own directory for libraries: $(grep -E 'RPATH|RUNPATH' <<<"$dynamic")"

step "systemd-analyze security of the installed prefetch.service"
if command -v systemd-analyze >/dev/null 2>&1; then
    systemd-analyze security --offline=true --threshold=20 "$root/lib/systemd/system/prefetch.service" | tail -n 1 ||
        fail "prefetch.service is exposed above 2.0 (systemd-analyze security)"
else
    fail "systemd-analyze is missing: apt-get install systemd"
fi

step "fixture-server on the host's loopback (from prefetch-fixture-server_${version}_$arch.deb)"
server_root=$cache/fixture-server
rm -rf "$server_root"
dpkg-deb -x "$server_deb" "$server_root"
"$server_root/usr/bin/fixture-server" --root "$top/fixtures/assets" --port 0 >"$cache/server-url" &
server_pid=$!
for _ in $(seq 100); do [ -s "$cache/server-url" ] && break; sleep 0.1; done
url=$(head -n1 "$cache/server-url")
[ -n "$url" ] || fail "fixture-server did not start"
echo "$url"
# As scripts/demo.sh does: the manifest's assets point at the server.
sed "s#http://fixtures.test#$url#g" "$top/fixtures/manifests/demo.json" >"$root/tmp/package-test/demo.json"

step "prefetch run /tmp/package-test/demo.json --cache-dir /var/cache/prefetch (in the root)"
status=0
in_root prefetch run /tmp/package-test/demo.json --cache-dir /var/cache/prefetch --json \
    >"$cache/report.json" 2>"$cache/run.stderr" || status=$?
cat "$cache/run.stderr"
echo "prefetch run exited $status"
[ "$status" = 1 ] || fail "prefetch run exited $status; make demo's run exits 1 (some messages are discarded on purpose)"
python3 - "$top/fixtures/manifests/demo.json" "$cache/report.json" <<'EOF' || fail "the verdicts differ from make demo's"
import json, sys
manifest, report = (json.load(open(path)) for path in sys.argv[1:3])
expected = {t["id"]: t["data"]["extras"]["expect"] for t in manifest["triggers"]
            if t.get("type") == "inapp" and "expect" in t.get("data", {}).get("extras", {})}
got = {m["id"]: m["status"] + (":" + m["reason"] if m.get("reason") else "") for m in report["messages"]}
wrong = [f"  {id}: expected {verdict}, got {got.get(id, 'nothing')}" for id, verdict in expected.items() if got.get(id) != verdict]
extra = sorted(set(got) - set(expected))
for id, verdict in got.items():
    print(f"  {id:30} {verdict}")
if wrong or extra:
    print("\n".join(wrong + [f"  {id}: not in the demo's expectations" for id in extra]), file=sys.stderr)
    sys.exit(1)
print(f"{len(expected)} messages, each with the verdict the demo expects")
EOF

step "prefetch verify --cache-dir /var/cache/prefetch"
in_root prefetch verify --cache-dir /var/cache/prefetch || fail "prefetch verify found problems"

step "the service's user, made by the postinst without systemd"
in_root sh -c '! command -v systemd-sysusers' >/dev/null || fail "the root has systemd-sysusers: the postinst's other path is not tested"
in_root getent passwd prefetch || fail "the postinst made no prefetch user"
in_root dpkg-query --show --showformat='${Conffiles}\n' prefetch | grep -q '^ /etc/prefetch/prefetch.conf ' ||
    fail "/etc/prefetch/prefetch.conf is not a conffile"
[ -d "$root/etc/prefetch/keys.d" ] || fail "the package made no /etc/prefetch/keys.d"
in_root sh -c 'grep -v "^#" /etc/prefetch/prefetch.conf | grep -q .' && fail "the shipped prefetch.conf sets something"
echo "prefetch user: yes; /etc/prefetch/prefetch.conf (conffile, all comments) and /etc/prefetch/keys.d/"

step "the operator's setup: a key in /etc/prefetch/keys.d/, the manifest's URL in /etc/prefetch/prefetch.conf"
command -v signify-openbsd >/dev/null || fail "signify-openbsd is missing: apt-get install signify-openbsd (make test-deps)"
keys=$cache/keys www=$cache/www
rm -rf "$keys" "$www"
mkdir -p "$keys" "$www"
for name in publisher stranger; do
    signify-openbsd -G -n -c "package-test $name" -p "$keys/$name.pub" -s "$keys/$name.sec"
done
install -m 0644 "$keys/publisher.pub" "$root/etc/prefetch/keys.d/publisher.pub"
# The demo's manifest with what a signed one says of itself (docs/publishing.md).
python3 - "$root/tmp/package-test/demo.json" "$www/signed.json" <<'EOF2'
import datetime, json, sys
manifest = json.load(open(sys.argv[1]))
expires = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
manifest.update(version=1, audience="package-test", expires=expires.strftime("%Y-%m-%dT%H:%M:%SZ"))
json.dump(manifest, open(sys.argv[2], "w"))
EOF2
cp "$www/signed.json" "$www/unsigned.json"
cp "$www/signed.json" "$www/foreign.json"
signify-openbsd -S -s "$keys/publisher.sec" -m "$www/signed.json" -x "$www/signed.json.sig"
signify-openbsd -S -s "$keys/stranger.sec" -m "$www/foreign.json" -x "$www/foreign.json.sig"
"$server_root/usr/bin/fixture-server" --root "$www" --port 0 >"$cache/manifest-url" &
manifest_server_pid=$!
for _ in $(seq 100); do [ -s "$cache/manifest-url" ] && break; sleep 0.1; done
manifest_url=$(head -n1 "$cache/manifest-url")
[ -n "$manifest_url" ] || fail "the manifest's fixture-server did not start"
echo "audience = package-test" >>"$root/etc/prefetch/prefetch.conf"
set_manifest() {
    sed -i '/^manifest = /d' "$root/etc/prefetch/prefetch.conf"
    echo "manifest = $manifest_url/$1" >>"$root/etc/prefetch/prefetch.conf"
    echo "/etc/prefetch/prefetch.conf: manifest = $manifest_url/$1"
}

# As systemd would start the unit: its ExecStart (no manifest in it), as its
# User=, with the CacheDirectory= it makes for that user passed as
# $CACHE_DIRECTORY and the user's own HOME; no argument added.
unit=$root/lib/systemd/system/prefetch.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
service_user=$(sed -n 's/^User=//p' "$unit")
echo "ExecStart=$exec_start (User=$service_user)"
grep -q 'run' <<<"$exec_start" && ! grep -Eq 'https?:|\$' <<<"$exec_start" || fail "the unit's ExecStart names a manifest: $exec_start"
rm -rf "$root/var/cache/prefetch"
in_root install -d -o "$service_user" -g "$service_user" -m 0750 /var/cache/prefetch
timer_run() {
    # shellcheck disable=SC2086 # ExecStart's words, as systemd splits them
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent CACHE_DIRECTORY=/var/cache/prefetch \
        setpriv --reuid="$service_user" --regid="$service_user" --init-groups $exec_start
}
objects() { find "$root/var/cache/prefetch" -path '*/objects/*' -type f | wc -l; }

# The timer's run of MANIFEST must exit STATUS saying CAUSE, with nothing fetched.
refused() {
    local manifest=$1 expected=$2 cause=$3 status=0
    set_manifest "$manifest"
    timer_run 2>"$cache/$manifest.stderr" || status=$?
    cat "$cache/$manifest.stderr"
    echo "exit $status"
    [ "$status" = "$expected" ] && grep -q "manifest refused: $cause" "$cache/$manifest.stderr" ||
        fail "$manifest was not refused as '$cause' with exit $expected (exit $status)"
    [ "$(objects)" = 0 ] || fail "the refused $manifest's assets were fetched"
}

step "the timer's run, the manifest without a signature: refused, nothing fetched"
refused unsigned.json 69 'signature missing'

step "the timer's run, the manifest signed by a key not in keys.d: refused, nothing fetched"
refused foreign.json 2 'unknown key'

step "the timer's run, the manifest signed by the key in keys.d: read, its assets fetched"
set_manifest signed.json
status=0
timer_run || status=$?
echo "exit $status (the demo discards some messages on purpose: 1)"
[ "$status" = 1 ] || fail "the timer's run of the signed manifest exited $status"
[ "$(objects)" -gt 0 ] || fail "the signed manifest's assets were not fetched"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent CACHE_DIRECTORY=/var/cache/prefetch \
    setpriv --reuid="$service_user" --regid="$service_user" --init-groups prefetch verify ||
    fail "prefetch verify found problems in the service's cache"
kill "$manifest_server_pid" 2>/dev/null && wait "$manifest_server_pid" 2>/dev/null || true
manifest_server_pid=

step "a session start: /run/prefetch/session-start as the package's tmpfiles.d makes it"
# The root has no systemd-tmpfiles (the postinst skipped it, as where systemd
# is not installed): the host's applies the package's file to the root,
# naming the prefetch group from the root's /etc/group.
command -v systemd-tmpfiles >/dev/null 2>&1 || fail "systemd-tmpfiles is missing: apt-get install systemd"
[ ! -e "$root/run/prefetch" ] || fail "/run/prefetch exists in a root without systemd-tmpfiles"
systemd-tmpfiles --root="$root" --create prefetch.conf || fail "systemd-tmpfiles --create prefetch.conf failed"
requests=/run/prefetch/session-start
made=$(in_root stat -c '%a %U:%G %F' "$requests")
echo "$requests: $made"
[ "$made" = "2770 root:prefetch directory" ] || fail "$requests is '$made', not the 2770 root:prefetch directory tmpfiles.d names"
path_unit=$root/lib/systemd/system/prefetch-session.path
grep -qx "DirectoryNotEmpty=$requests" "$path_unit" && grep -qx 'Unit=prefetch.service' "$path_unit" ||
    fail "prefetch-session.path does not start prefetch.service on $requests"
grep -qx "ReadWritePaths=-$requests" "$unit" || fail "prefetch.service may not write $requests"

step "prefetch session-start as a display app: its user in the prefetch group records, one outside gets 77"
in_root useradd --system --no-create-home --shell /usr/sbin/nologin --groups prefetch kiosk
in_root useradd --system --no-create-home --shell /usr/sbin/nologin stranger
as_user() {
    local user=$1
    shift
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent \
        setpriv --reuid="$user" --regid="$user" --init-groups "$@"
}
for _ in 1 2 3; do
    as_user kiosk prefetch session-start || fail "prefetch session-start as kiosk, in the prefetch group, exited $?"
done
[ "$(ls -A "$root$requests")" = request ] || fail "three session starts left '$(ls -A "$root$requests")' in $requests, not one request"
status=0
as_user stranger prefetch session-start 2>"$cache/stranger.stderr" || status=$?
cat "$cache/stranger.stderr"
echo "exit $status"
[ "$status" = 77 ] && grep -q "^prefetch: hint: join the group 'prefetch'" "$cache/stranger.stderr" ||
    fail "prefetch session-start outside the prefetch group did not exit 77 naming the group"

step "the service's ExecStartPre as its User=: the request is taken"
exec_start_pre=$(sed -n 's/^ExecStartPre=-//p' "$unit")
echo "ExecStartPre=-$exec_start_pre (User=$service_user)"
[ -n "$exec_start_pre" ] || fail "prefetch.service has no ExecStartPre=- that takes the session-start requests"
# shellcheck disable=SC2086 # ExecStartPre's words, as systemd splits them
as_user "$service_user" $exec_start_pre || fail "the ExecStartPre exited $?"
[ -z "$(ls -A "$root$requests")" ] || fail "$requests still holds '$(ls -A "$root$requests")'"
# shellcheck disable=SC2086
taken=$(as_user "$service_user" $exec_start_pre)
[ "$taken" = "no session-start request in $requests" ] || fail "a second ExecStartPre said '$taken'"
in_root userdel kiosk
in_root userdel stranger

step "systemd-analyze verify of the installed units"
# As installed, but for ExecStart=, which names the root's binary.
units=$cache/units
rm -rf "$units"
mkdir -p "$units"
for name in prefetch.service prefetch.timer prefetch-session.path; do
    sed "s#/usr/bin/prefetch#$root/usr/bin/prefetch#" "$root/lib/systemd/system/$name" >"$units/$name"
done
said=$(systemd-analyze verify --man=no "$units/prefetch.service" "$units/prefetch.timer" "$units/prefetch-session.path" 2>&1) ||
    fail "systemd-analyze verify: $said"
[ -z "$said" ] || fail "systemd-analyze verify: $said"
echo "prefetch.service prefetch.timer prefetch-session.path: clean"

step "prefetch-fixture-server: installs and starts without Swift too"
apt install -y -qq --no-install-recommends "/tmp/package-test/$(basename "$server_deb")" >/dev/null
libraries=$(in_root ldd /usr/bin/fixture-server)
! grep -Eq "not found|libswift|libFoundation|lib_Foundation|libdispatch" <<<"$libraries" || fail "fixture-server: $libraries"
in_root fixture-server --help >/dev/null || fail "fixture-server --help failed"
echo "ok"

step "apt-get remove --purge --auto-remove prefetch prefetch-fixture-server"
apt remove -y --purge --auto-remove prefetch prefetch-fixture-server
files >"$cache/files-after"
left=$(comm -13 "$cache/files-before" "$cache/files-after")
gone=$(comm -23 "$cache/files-before" "$cache/files-after")
[ -z "$gone" ] || fail "the purge removed files that were there before: $gone"
# The prefetch user stays on purge, as Debian's users do: useradd's backups
# of the files it changed (passwd-, group-, shadow-, gshadow-) may be new.
outside=$(grep -v -e '^\./var/cache/prefetch\(/\|$\)' -e '^\./etc/\(passwd\|group\|shadow\|gshadow\)-$' <<<"$left" || true)
[ -z "$outside" ] || fail "the purge left files outside the cache directory: $outside"
grep -qx './var/cache/prefetch' <<<"$left" || fail "the cache directory did not survive the purge"
echo "left behind: /var/cache/prefetch, the cache, kept on purpose ($(grep -c . <<<"$left") paths); nothing else"

step "package-test passed: $(basename "$deb") in a fresh $release root"
