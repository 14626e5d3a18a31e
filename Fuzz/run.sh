#!/usr/bin/env bash
# Builds the libFuzzer targets under AddressSanitizer and runs each for a bounded
# time (DESIGN §10). Crashes, leaks, timeouts and over-limit memory stop a target
# and leave its input in .build-fuzz/artifacts/; the script then exits 1.
#
#   Fuzz/run.sh                 every target, 60 s each
#   Fuzz/run.sh 10 FuzzImage    one target, 10 s
#
# FuzzPNG, FuzzJPEG, FuzzGIF and FuzzWebP are FuzzImage with every input given
# that format's signature ($ASSETCACHE_FUZZ_FORMAT), each with its own corpus and
# that format's fixtures as seeds: all of a run's time goes to one decoder.
#
# FuzzJSONDifferential reads each input with our JSON reader and with Foundation's
# JSONSerialization and fails where they disagree (see its file for the rules).
#
# A target's committed corpus, Fuzz/corpus/<target>/, is a seed like the others.
# With FUZZ_MERGE=1, a target that ran clean has it replaced by the minimised
# (-merge=1) union of it and the corpus this run grew, less what the seeds
# already cover, ready to commit.
#
# Environment: FUZZ_JOBS (parallel workers per target, default 1), FUZZ_MERGE.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(FuzzManifest FuzzJSONDifferential FuzzArchive FuzzImage FuzzJPEG FuzzGIF FuzzWebP)
SCRATCH=.build-fuzz

# Not `--sanitize fuzzer --sanitize address`: SwiftPM passes swiftc two -sanitize=
# flags and swiftc keeps only the last, so the Swift code would get ASan and no
# coverage (libFuzzer then reports "no interesting inputs"). One combined flag
# for Swift; clang adds up its -fsanitize flags, so C gets ASan through -Xcc.
BUILD=(--sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address --scratch-path "$SCRATCH")
export ASSETCACHE_FUZZ=1
product() {
    case "$1" in
        FuzzPNG | FuzzJPEG | FuzzGIF | FuzzWebP) echo FuzzImage ;;
        *) echo "$1" ;;
    esac
}
format() {
    case "$1" in
        FuzzPNG) echo png ;;
        FuzzJPEG) echo jpeg ;;
        FuzzGIF) echo gif ;;
        FuzzWebP) echo webp ;;
    esac
}
for target in "${TARGETS[@]}"; do
    swift build "${BUILD[@]}" --product "$(product "$target")"
done
BIN=$(swift build "${BUILD[@]}" --show-bin-path)

seeds() {
    case "$1" in
        FuzzManifest) echo Fuzz/seeds/manifest fixtures/manifests ;;
        # JSONTestSuite's test_parsing (y_, n_, i_) and its i_number cases inside
        # an ignored manifest key; the manifest seeds for the manifest reader's paths.
        FuzzJSONDifferential) echo Fuzz/seeds/json Fuzz/seeds/manifest ;;
        FuzzArchive) echo fixtures/assets/html fixtures/hostile/zip ;;
        FuzzImage) echo fixtures/assets/img fixtures/hostile/img ;;
        *)
            # libFuzzer takes folders: one of this format's fixtures only.
            local folder="$SCRATCH/seeds/$1" extension
            extension=$(format "$1")
            [ "$extension" = jpeg ] && extension=jpg
            rm -rf "$folder"
            mkdir -p "$folder"
            cp fixtures/assets/img/*."$extension" fixtures/hostile/img/*."$extension" "$folder"/
            # The large bombs are refused at their first frames; 64 KiB of them is plenty.
            find "$folder" -size +64k -delete
            echo "$folder"
            ;;
    esac
}

# libFuzzer and ASan print the stack of a crash; Swift's backtracer, started by a
# fatalError in a target, outlived the process and held its output open.
export SWIFT_BACKTRACE=enable=no
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
    [ "$target" = FuzzManifest ] && options+=(-dict=Fuzz/manifest.dict)
    [ "$target" = FuzzJSONDifferential ] && options+=(-dict=Fuzz/json-numbers.dict)
    committed=()
    [ -d "Fuzz/corpus/$target" ] && committed=("Fuzz/corpus/$target")
    [ "${FUZZ_JOBS:-1}" -gt 1 ] && options+=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
    echo "== $target: ${SECONDS_EACH}s"
    log="$SCRATCH/$target.log"
    set +e
    # shellcheck disable=SC2046  # seed folders are plain words
    ASSETCACHE_FUZZ_FORMAT=$(format "$target") "$BIN/$(product "$target")" "${options[@]}" "$corpus" "${committed[@]}" $(seeds "$target") >"$log" 2>&1
    code=$?
    set -e
    grep -E "^(#[0-9]+[[:space:]]+(INITED|DONE)|==[0-9]+==|SUMMARY|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    if [ $code -ne 0 ]; then
        echo "!! $target failed (exit $code): see $log and $artifacts/"
        status=1
    elif [ "${FUZZ_MERGE:-0}" = 1 ]; then
        # The seeds go into the output first, so that only what they do not cover
        # is added; then they are taken out again.
        merged=$(mktemp -d)
        # shellcheck disable=SC2046  # seed folders are plain words
        find $(seeds "$target") -maxdepth 1 -type f -exec cp {} "$merged"/ \;
        mapfile -t seeded < <(ls -A "$merged")
        ASSETCACHE_FUZZ_FORMAT=$(format "$target") "$BIN/$(product "$target")" -merge=1 -timeout=10 -rss_limit_mb=2048 \
            -max_len=65536 "$merged" "$corpus" "${committed[@]}" >"$SCRATCH/$target.merge.log" 2>&1
        for name in "${seeded[@]}"; do rm -f -- "${merged:?}/$name"; done
        rm -rf "Fuzz/corpus/$target"
        mkdir -p Fuzz/corpus
        mv "$merged" "Fuzz/corpus/$target"
        chmod 755 "Fuzz/corpus/$target"
        echo "== $target: Fuzz/corpus/$target has $(find "Fuzz/corpus/$target" -type f | wc -l) inputs, $(du -sk --apparent-size "Fuzz/corpus/$target" | cut -f1) KiB"
    fi
done
exit $status
