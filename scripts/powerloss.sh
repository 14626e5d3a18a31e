#!/usr/bin/env bash
# The power-loss test (`make powerloss`): a cold `prefetch run` into a cache on
# LazyFS, killed with SIGKILL at a random moment, then LazyFS's
# `lazyfs::clear-cache` drops every byte no fsync made durable — what a power cut
# does to the page cache. After each cut the readiness index that survived (it
# follows the run) must be whole JSON naming only files that exist for its
# ready messages, `prefetch verify` must exit 0, every ref
# must name an object whose bytes hash to its name (checked here with sha256sum,
# apart from prefetch), and a next run must make every message ready.
#
#   scripts/powerloss.sh [--cycles N] [--skip-flush] [--mix N]
#
# The run's manifest is the bench's session (one message per asset, one of them a
# session-start one), unless --mix N (1, 3, 50 or 500) names bench/mixes.py's: the
# same 500 assets with N of their messages at session start (issue 27), so the
# urgent lane's batches are cut too, not only the other lane's.
#
# --skip-flush runs the debug build with PREFETCH_DEBUG_SKIP_FLUSH=1, which skips
# the flush of the assets' data (a switch only debug builds read): the test must
# then fail, which shows that it can.
#
# Environment:
#   LAZYFS_SRC                       a checkout of github.com/dsrhaslab/lazyfs
#                                    (else it is cloned into .build-lazyfs/src)
#   FETCHCONTENT_SOURCE_DIR_TOML     a checkout of toml11 v3.7.1   } for a build
#   FETCHCONTENT_SOURCE_DIR_SPDLOG   a checkout of spdlog v1.10.0  } without network
#   POWERLOSS_CYCLES                 the number of cycles (20)
#
# Needs FUSE (/dev/fuse, fusermount3) and g++, cmake, libfuse3-dev; `make
# powerloss` installs the packages. LazyFS keeps unflushed data per file and
# loses it on clear-cache; it passes creates, renames and deletes straight
# through, so a missing directory fsync is caught by the order-of-calls tests in
# `swift test`, not here. It ignores syncfs(2), as every FUSE file system but
# virtiofs does, so on it the store flushes file by file (see BatchFlush).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cycles=${POWERLOSS_CYCLES:-20}
skip_flush=
mix=
usage() { echo "usage: scripts/powerloss.sh [--cycles N] [--skip-flush] [--mix 1|3|50|500]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --cycles) cycles=${2:?}; shift 2 ;;
    --skip-flush) skip_flush=1; shift ;;
    --mix) mix=${2:?}; shift 2 ;;
    *) usage ;;
    esac
done
# Only the mixes bench/mixes.py writes: another N would name no manifest.
case $mix in '' | 1 | 3 | 50 | 500) ;; *) usage ;; esac

say() { echo "powerloss: $*" >&2; }
fail() { say "$*"; exit 1; }

if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1; then
    say "FUSE is missing (/dev/fuse or fusermount3), so LazyFS cannot be mounted: the power-loss test did NOT run"
    exit 77
fi
for tool in cmake g++ git python3 sha256sum; do
    command -v $tool >/dev/null 2>&1 || fail "$tool is missing (make powerloss installs g++, cmake, libfuse3-dev and fuse3)"
done

work=$top/.build-lazyfs
mkdir -p "$work"

# --- LazyFS ----------------------------------------------------------------------
# Its CMake fetches toml11 and spdlog at configure time; FETCHCONTENT_SOURCE_DIR_*
# point it at local copies instead. lazyfs/CMakeLists.txt looks for libpcache in
# ../libs/libpcache/build and for spdlog's headers in its _deps, so the source is
# copied and built in place under .build-lazyfs.
lazyfs=$work/src/lazyfs/build/lazyfs
if [ ! -x "$lazyfs" ]; then
    rm -rf "$work/src"
    if [ -n "${LAZYFS_SRC:-}" ]; then
        [ -d "$LAZYFS_SRC/lazyfs" ] && [ -d "$LAZYFS_SRC/libs/libpcache" ] || fail "LAZYFS_SRC=$LAZYFS_SRC holds no lazyfs/ and libs/libpcache/"
        mkdir -p "$work/src"
        cp -R "$LAZYFS_SRC/lazyfs" "$LAZYFS_SRC/libs" "$work/src/"
    else
        say "cloning LazyFS (set LAZYFS_SRC to use a local checkout)"
        git clone --depth 1 https://github.com/dsrhaslab/lazyfs "$work/src" || fail "cannot clone LazyFS; set LAZYFS_SRC to a checkout"
    fi
    rm -rf "$work/src/lazyfs/build" "$work/src/libs/libpcache/build"
    fetch_args=()
    spdlog_include=$work/src/libs/libpcache/build/_deps/spdlog-src/include
    if [ -n "${FETCHCONTENT_SOURCE_DIR_TOML:-}" ]; then
        fetch_args+=("-DFETCHCONTENT_SOURCE_DIR_TOML=$FETCHCONTENT_SOURCE_DIR_TOML")
    fi
    if [ -n "${FETCHCONTENT_SOURCE_DIR_SPDLOG:-}" ]; then
        fetch_args+=("-DFETCHCONTENT_SOURCE_DIR_SPDLOG=$FETCHCONTENT_SOURCE_DIR_SPDLOG")
        spdlog_include=$FETCHCONTENT_SOURCE_DIR_SPDLOG/include
    fi
    say "building LazyFS in $work/src (log: $work/build.log)"
    {
        cmake -S "$work/src/libs/libpcache" -B "$work/src/libs/libpcache/build" "${fetch_args[@]}" &&
            cmake --build "$work/src/libs/libpcache/build" -j 2 &&
            cmake -S "$work/src/lazyfs" -B "$work/src/lazyfs/build" -DLAZYFS_BUILD_TESTS=OFF \
                "-DCMAKE_CXX_FLAGS=-I$spdlog_include" &&
            cmake --build "$work/src/lazyfs/build" -j 2
    } >"$work/build.log" 2>&1 || fail "the LazyFS build failed; see $work/build.log"
fi

# --- prefetch, fixture-server, corpus ------------------------------------------------
cd "$top"
if [ -n "$skip_flush" ]; then
    swift build --product prefetch >"$work/swift-build.log" 2>&1 || fail "swift build failed; see $work/swift-build.log"
    bin=$(swift build --show-bin-path)
else
    swift build -c release --product prefetch >"$work/swift-build.log" 2>&1 || fail "swift build failed; see $work/swift-build.log"
    bin=$(swift build -c release --show-bin-path)
fi
swift build -c release --product fixture-server >>"$work/swift-build.log" 2>&1 || fail "swift build failed; see $work/swift-build.log"
server_bin=$(swift build -c release --show-bin-path)/fixture-server
prefetch=$bin/prefetch

corpus=$top/.build-bench/corpus
python3 bench/corpus.py --out "$corpus" >/dev/null

run=$work/run
mnt=$run/mnt
lazyfs_pid=
server_pid=
cleanup() {
    set +e
    if [ -n "$lazyfs_pid" ]; then
        fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
        kill "$lazyfs_pid" 2>/dev/null
        wait "$lazyfs_pid" 2>/dev/null
    fi
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    exec 3>&- 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mountpoint -q "$mnt" 2>/dev/null && fusermount3 -u "$mnt"
rm -rf "$run"
mkdir -p "$mnt" "$run/root"

"$server_bin" --root "$corpus/www" --port 0 >"$run/server.out" 2>"$run/server.err" &
server_pid=$!
for _ in $(seq 100); do
    # 2>/dev/null: the background shell may not have created server.out yet.
    base=$(grep -o 'http://[0-9.:]*' "$run/server.out" 2>/dev/null | head -n 1) && [ -n "$base" ] && break
    kill -0 "$server_pid" 2>/dev/null || fail "fixture-server exited: $(cat "$run/server.err")"
    sleep 0.1
done
[ -n "${base:-}" ] || fail "fixture-server did not print its URL"

# The bench's session manifest (one message per asset, one of them a session-start one),
# written by bench/run.py's own function for the server's URL; with --mix, the
# mix's manifest, written by bench/mixes.py's as the bench writes it.
python3 - "$top/bench" "$run" "$base" "$corpus/assets.json" "$mix" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import mixes, run
class Server:
    def url(self, no_cache=False):
        return sys.argv[3]
assets = json.load(open(sys.argv[4]))["assets"]
if sys.argv[5]:
    mixes.write(sys.argv[2], assets, sys.argv[3])
else:
    run.write_inputs(sys.argv[2], assets, Server())
EOF
if [ -n "$mix" ]; then
    manifest=$run/manifests/mix-$mix.json
else
    manifest=$run/manifests/session.json
fi
[ -f "$manifest" ] || fail "no manifest was written at $manifest"
messages=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["triggers"]))' "$manifest")
# Session-start messages are those triggered on "open" (bench/harness.py's message).
urgent=$(python3 -c 'import json,sys; print(sum(t["trigger_condition"] == [{"type": "open"}] for t in json.load(open(sys.argv[1]))["triggers"]))' "$manifest")
say "manifest $(basename "$manifest"): $messages messages, $urgent of them at session start"

cat >"$run/lazyfs.toml" <<EOF
[faults]
fifo_path="$run/faults.fifo"
fifo_path_completed="$run/faults-done.fifo"
[cache]
apply_eviction=false
[cache.simple]
custom_size="1gb"
blocks_per_page=1
[filesystem]
log_all_operations=false
logfile="$run/lazyfs.log"
EOF
mkfifo "$run/faults-done.fifo"
# Single-threaded (-s): multi-threaded, LazyFS crashed in libpcache when a file
# was fsynced while another thread renamed it.
"$lazyfs" "$mnt" --config-path "$run/lazyfs.toml" -s -f -o modules=subdir -o "subdir=$run/root" >"$run/lazyfs.out" 2>&1 &
lazyfs_pid=$!
# LazyFS opens the notifier FIFO for writing before it serves, so hold it open
# for reading (read-write, which never blocks on a FIFO) for the whole test.
exec 3<>"$run/faults-done.fifo"
for _ in $(seq 600); do
    mountpoint -q "$mnt" && break
    kill -0 "$lazyfs_pid" 2>/dev/null || fail "LazyFS exited: $(tail -n 5 "$run/lazyfs.out")"
    sleep 0.1
done
mountpoint -q "$mnt" || fail "LazyFS did not mount $mnt within 60 s"

power_cut() {
    echo "lazyfs::clear-cache" >"$run/faults.fifo"
    local line
    read -r -t 60 -u 3 line || fail "LazyFS did not confirm the clear-cache"
    [ "$line" = "finished::clear-cache" ] || fail "LazyFS answered '$line'"
}

# Every ref must name an object whose bytes hash to its name; an archive's ref,
# a tree. Hashed with sha256sum, apart from prefetch verify. Prints "REFS BAD";
# the first three bad ones are in $run/bad-refs.txt.
check_refs() {
    local cache=$1 bad=0 count=0 name sha kind object problem
    while read -r name sha kind; do
        count=$((count + 1))
        object=$cache/objects/${sha:0:2}/$sha
        problem=
        if [ "$sha" = unreadable ]; then
            problem="ref $name is not a readable ref ($(stat -c %s "$cache/refs/$name") bytes)"
        elif [ ! -f "$object" ]; then
            problem="ref $name names $sha, which is absent"
        elif [ "$(sha256sum <"$object" | cut -d' ' -f1)" != "$sha" ]; then
            problem="ref $name names $sha, whose $(stat -c %s "$object") bytes hash to something else"
        elif [ "$kind" = archive ] && [ ! -d "$cache/trees/${sha:0:2}/$sha" ]; then
            problem="ref $name names the ZIP $sha, whose tree is absent"
        fi
        if [ -n "$problem" ]; then
            bad=$((bad + 1))
            # The first few tell what went wrong; hundreds more only bury the summary.
            [ "$bad" -le 3 ] && echo "$problem" >>"$run/bad-refs.txt"
        fi
    done < <(python3 -c 'import json, os, sys
refs = sys.argv[1]
for name in sorted(os.listdir(refs)) if os.path.isdir(refs) else []:
    try:
        ref = json.load(open(os.path.join(refs, name)))
        print(name, ref["object"], ref.get("kind", "-"))
    except Exception:
        print(name, "unreadable", "-")' "$cache/refs")
    echo "$count $bad"
}

env_prefix=()
[ -n "$skip_flush" ] && env_prefix=(env PREFETCH_DEBUG_SKIP_FLUSH=1)
cache=$mnt/cache

# How long a cold run takes here, so that the kills spread over the whole run.
say "calibrating: one cold run into $cache"
start=$(date +%s%N)
"${env_prefix[@]}" "$prefetch" run "$manifest" --cache-dir "$cache" --quiet || true
duration_ms=$((($(date +%s%N) - start) / 1000000))
say "a cold run takes ${duration_ms} ms on LazyFS; $cycles cycles, each killed between 2% and 98% of that"

failed=0
for cycle in $(seq "$cycles"); do
    rm -rf "$cache"
    power_cut
    moment_ms=$((duration_ms * (2 + RANDOM % 97) / 100))
    "${env_prefix[@]}" "$prefetch" run "$manifest" --cache-dir "$cache" --quiet &
    child=$!
    sleep "$(printf '%d.%03d' $((moment_ms / 1000)) $((moment_ms % 1000)))"
    kill -KILL "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
    power_cut

    problems=()
    # The index the cut left (issue 40: it follows the run): whole, and every
    # file it names for a ready message there. Read before verify, which reads it too.
    index_problem=$(python3 -c 'import json, os, sys
path = os.path.join(sys.argv[1], "readiness.json")
if not os.path.exists(path):
    sys.exit(0)
try:
    index = json.load(open(path, "rb"))
except Exception as error:
    print(f"readiness.json is not whole JSON: {error}")
    sys.exit(0)
gone = [(m["id"], a.get(k)) for m in index["messages"] if m["status"] == "ready"
        for a in m["assets"] for k in ("path", "entry") if a.get(k) and not os.path.exists(a[k])]
if gone:
    print(f"readiness.json names {len(gone)} missing files of ready messages, such as {gone[0]}")
ready = sum(m["status"] == "ready" for m in index["messages"])
print(f"ok {ready}")' "$cache")
    case $index_problem in
    "ok "*) index_ready=${index_problem#ok } ;;
    "") index_ready=none ;;
    *) problems+=("$index_problem"); index_ready=? ;;
    esac
    if ! "$prefetch" verify --cache-dir "$cache" >"$run/verify.out" 2>&1; then
        problems+=("verify failed: $(head -c 600 "$run/verify.out" | tr '\n' ' ')")
    fi
    : >"$run/bad-refs.txt"
    read -r refs bad < <(check_refs "$cache")
    if [ "$bad" -ne 0 ]; then
        problems+=("$bad of $refs refs name a missing or damaged object, such as:")
        while read -r line; do problems+=("  $line"); done <"$run/bad-refs.txt"
    fi
    report=$("$prefetch" run "$manifest" --cache-dir "$cache" --json 2>"$run/next.err") || true
    ready=$(python3 -c 'import json,sys
try: print(json.loads(sys.stdin.read())["totals"]["ready"])
except Exception: print(-1)' <<<"$report")
    [ "$ready" -eq "$messages" ] || problems+=("the next run made $ready of $messages messages ready: $(tail -c 400 "$run/next.err")")

    if [ ${#problems[@]} -eq 0 ]; then
        say "cycle $cycle/$cycles: killed at ${moment_ms} ms, power cut; $refs refs survived, all intact; index: $index_ready ready, every file there; verify clean; next run: $ready/$messages ready"
    else
        failed=$((failed + 1))
        say "cycle $cycle/$cycles: killed at ${moment_ms} ms, power cut: FAILED"
        for p in "${problems[@]}"; do say "  $p"; done
    fi
done

# The summary names the manifest, so that the logs of several mixes tell which is which.
what="${mix:+mix $mix, }$urgent of $messages messages at session start"
if [ "$failed" -eq 0 ]; then
    say "passed $cycles of $cycles cycles ($what)${skip_flush:+ (with a flush skipped: the test did not catch it)}"
    exit 0
fi
say "FAILED $failed of $cycles cycles ($what)${skip_flush:+ (with PREFETCH_DEBUG_SKIP_FLUSH=1: a skipped flush is caught)}"
exit 1
