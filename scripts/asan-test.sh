#!/usr/bin/env bash
# Runs the whole test suite once under AddressSanitizer (issue 4): the C targets
# (CPNG, CCurl), libzip/libpng/libcurl calls and the Swift code around them, and
# the prefetch binary the end-to-end tests spawn, all instrumented. Its own
# scratch path, so the normal .build is left alone.
#
#   scripts/asan-test.sh                      the whole suite
#   scripts/asan-test.sh --filter Hostile     extra arguments go to swift test
set -euo pipefail
cd "$(dirname "$0")/.."

# Any report fails the run. The tests read ASSETCACHE_SANITIZER to relax the
# one check ASan itself breaks: peak RSS, which shadow memory and quarantine inflate.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:strict_string_checks=1:detect_leaks=1}
# Leaks of the toolchain's own libraries in the test runner (see the file).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}
export ASSETCACHE_SANITIZER=address
# One test at a time: ASan makes everything 2-5x slower, and the suite's few
# timing bounds (a rate-limited body, a cancellation) are meant for a machine
# that is not also running every other test.
swift test --sanitize address --scratch-path .build-asan --no-parallel "$@"
