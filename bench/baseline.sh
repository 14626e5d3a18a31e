#!/usr/bin/env bash
# The shell pipeline `prefetch run` is compared with (runs D and E of bench/run.py):
# download every asset of the session, then check each PNG with pngcheck, decode
# each JPEG, GIF and WebP with its reference tool (djpeg, giftext -p, dwebp) and
# unpack each ZIP with unzip. The same work as a cold `prefetch run`, minus what
# the shell does not do (hashing, a content-addressed store, fsync, full PNG row
# decoding).
#
#   baseline.sh curl|aria2 LISTS_DIR OUT_DIR
#
# LISTS_DIR holds curl.cfg (url/output pairs), aria2.txt (aria2c input file),
# pngs.txt, jpegs.txt, gifs.txt, webps.txt and zips.txt (paths relative to
# OUT_DIR), written by bench/run.py.
# OUT_DIR should be absent or empty: bench/run.py removes it before the clock starts.
set -euo pipefail
tool=${1:?usage: baseline.sh curl|aria2 LISTS_DIR OUT_DIR}
lists=$(cd "${2:?}" && pwd)
out=${3:?}
mkdir -p "$out"
cd "$out"

case $tool in
curl)
    curl --parallel --parallel-max 8 --silent --no-progress-meter --show-error --fail --create-dirs -K "$lists/curl.cfg"
    ;;
aria2)
    aria2c -j 8 -i "$lists/aria2.txt" -d "$out" --quiet=true --file-allocation=none \
        --allow-overwrite=true --auto-file-renaming=false --auto-save-interval=0 --max-tries=1
    ;;
*)
    echo "baseline.sh: unknown tool '$tool'" >&2
    exit 2
    ;;
esac

# One pngcheck process per batch of files (xargs), not per file: the fast way.
xargs -a "$lists/pngs.txt" pngcheck -q
# The others take one file each; every one exits non-zero on corrupt data (djpeg
# on a warning too). Plain giftext reads the blocks only: -p decodes the pixels.
while read -r image; do djpeg "$image" >/dev/null; done <"$lists/jpegs.txt"
while read -r image; do giftext -p "$image" >/dev/null; done <"$lists/gifs.txt"
while read -r image; do dwebp -quiet "$image"; done <"$lists/webps.txt"
while read -r zip; do
    unzip -qq -o "$zip" -d "${zip%.zip}.d"
done <"$lists/zips.txt"
