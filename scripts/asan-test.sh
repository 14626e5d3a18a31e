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
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_stack_use_after_return=0:strict_string_checks=1}
export ASSETCACHE_SANITIZER=address
swift test --sanitize address --scratch-path .build-asan "$@"
