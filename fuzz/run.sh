#!/usr/bin/env bash
# Builds the libFuzzer targets under AddressSanitizer and runs each for a bounded
# time (DESIGN §10). Crashes, leaks, timeouts and over-limit memory stop a target
# and leave its input in .build-fuzz/artifacts/; the script then exits 1.
#
#   fuzz/run.sh                 every target, 60 s each
#   fuzz/run.sh 10 FuzzImage    one target, 10 s
#
# Environment: FUZZ_JOBS (parallel workers per target, default 1).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(FuzzManifest FuzzArchive FuzzImage)
SCRATCH=.build-fuzz

# Not `--sanitize fuzzer --sanitize address`: SwiftPM passes swiftc two -sanitize=
# flags and swiftc keeps only the last, so the Swift code would get ASan and no
# coverage (libFuzzer then reports "no interesting inputs"). One combined flag
# for Swift; clang adds up its -fsanitize flags, so C gets ASan through -Xcc.
BUILD=(--sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address --scratch-path "$SCRATCH")
export ASSETCACHE_FUZZ=1
for target in "${TARGETS[@]}"; do
    swift build "${BUILD[@]}" --product "$target"
done
BIN=$(swift build "${BUILD[@]}" --show-bin-path)

seeds() {
    case "$1" in
        FuzzManifest) echo fuzz/seeds/manifest fixtures/manifests ;;
        FuzzArchive) echo fixtures/assets/html fixtures/hostile/zip ;;
        FuzzImage) echo fixtures/assets/img fixtures/hostile/img ;;
    esac
}

# A smaller quarantine than ASan's 256 MiB keeps -rss_limit_mb about our memory.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32:detect_leaks=1}
# Inputs are written to files for the validators: in memory, and removed at exit.
ASSETCACHE_FUZZ_WORKDIR=$(mktemp -d "$([ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/assetcache-fuzz.XXXXXX")
export ASSETCACHE_FUZZ_WORKDIR
trap 'rm -rf "$ASSETCACHE_FUZZ_WORKDIR"' EXIT
status=0
for target in "${TARGETS[@]}"; do
    corpus="$SCRATCH/corpus/$target"
    artifacts="$SCRATCH/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    options=(
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536
        -artifact_prefix="$artifacts/" -print_final_stats=1
    )
    [ "$target" = FuzzManifest ] && options+=(-dict=fuzz/manifest.dict)
    [ "${FUZZ_JOBS:-1}" -gt 1 ] && options+=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
    echo "== $target: ${SECONDS_EACH}s"
    log="$SCRATCH/$target.log"
    set +e
    # shellcheck disable=SC2046  # seed folders are plain words
    "$BIN/$target" "${options[@]}" "$corpus" $(seeds "$target") >"$log" 2>&1
    code=$?
    set -e
    grep -E "^(#[0-9]+[[:space:]]+(INITED|DONE)|==[0-9]+==|SUMMARY|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    if [ $code -ne 0 ]; then
        echo "!! $target failed (exit $code): see $log and $artifacts/"
        status=1
    fi
done
exit $status
