#!/usr/bin/env bash
# Builds the Debian packages `prefetch` and `prefetch-fixture-server` from a
# release build linked statically against the Swift runtime (`make deb` makes
# that build and the man pages first). The files that go into the packages
# are in contrib/debian/ and contrib/systemd/; Depends comes from
# dpkg-shlibdeps, plus libcurl's package for prefetch (which opens it with
# dlopen, where dpkg-shlibdeps cannot see it); the version from `prefetch --version`.
set -euo pipefail
usage="usage: build-deb.sh BIN_DIR MAN_DIR OUT_DIR"
bin=${1:?$usage}
man=${2:?$usage}
out=${3:?$usage}
shown=$out
top=$(cd "$(dirname "$0")/.." && pwd)
debian=$top/contrib/debian
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.deb

version=$("$bin/prefetch" --version)
arch=$(dpkg --print-architecture)
# The changelog is written by hand for each release; it must name this one.
logged=$(sed -n '1s/^prefetch (\([^)]*\)).*/\1/p' "$debian/changelog")
if [ "$logged" != "$version" ]; then
    echo "build-deb: prefetch --version says $version but contrib/debian/changelog's first entry is $logged;" \
        "add an entry for $version (AssetCacheVersion.current is the one place the version is set)" >&2
    exit 1
fi

# A staged tree under $out/NAME, owned by root in the package (dpkg-deb --root-owner-group).
stage() {
    local name=$1
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name/DEBIAN" "$out/$name/usr/share/doc/$name"
    install -m 0644 "$debian/copyright" "$out/$name/usr/share/doc/$name/copyright"
    gzip -9n <"$debian/changelog" >"$out/$name/usr/share/doc/$name/changelog.gz"
    chmod 0644 "$out/$name/usr/share/doc/$name/changelog.gz"
}

# The program, stripped: symbols are most of an unstripped Swift binary.
install_program() {
    local name=$1 program=$2
    install -D -m 0755 "$bin/$program" "$out/$name/usr/bin/$program"
    strip --strip-all --remove-section=.comment "$out/$name/usr/bin/$program"
    install -d "$out/$name/usr/share/man/man1"
    gzip -9n <"$man/$program.1" >"$out/$name/usr/share/man/man1/$program.1.gz"
    chmod 0644 "$out/$name/usr/share/man/man1/$program.1.gz"
}

# lintian's notes that do not apply to a statically linked Swift program.
install_overrides() {
    local name=$1
    install -D -m 0644 "$debian/lintian-overrides" "$out/$name/usr/share/lintian/overrides/$name"
    sed -i "s/^PACKAGE:/$name:/" "$out/$name/usr/share/lintian/overrides/$name"
}

# The dependency on the package that ships libcurl.so.4 here, as its shlibs file
# states it (libcurl4 on Debian 12, libcurl4t64 on 13): what dpkg-shlibdeps would
# have written had the library been linked.
libcurl_dependency() {
    local owner
    owner=$(dpkg-query -S "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libcurl.so.4" | cut -d: -f1)
    sed -n 's/^libcurl 4 //p' "$(dpkg-query --control-path "$owner" shlibs)"
}

# DEBIAN/control from contrib/debian/NAME.control, with the Depends that
# dpkg-shlibdeps reads off the binary's needed libraries (and EXTRA, when given);
# then md5sums and the .deb.
package() {
    local name=$1 program=$2 extra=${3:-} depends
    # dpkg-shlibdeps wants a debian/control of a source package to run in.
    local scratch=$out/.shlibdeps-$name
    mkdir -p "$scratch/debian"
    printf 'Source: prefetch\n\nPackage: %s\nArchitecture: any\n' "$name" >"$scratch/debian/control"
    depends=$(cd "$scratch" && dpkg-shlibdeps -O -e"$out/$name/usr/bin/$program" | sed -n 's/^shlibs:Depends=//p')
    [ -z "$extra" ] || depends="$depends, $extra"
    rm -rf "$scratch"
    sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
        -e "s/@INSTALLED_SIZE@/$(du -sk --exclude=DEBIAN "$out/$name" | cut -f1)/" \
        "$debian/$name.control" >"$out/$name/DEBIAN/control"
    # Conffiles (etc/) are not listed, as dh_md5sums does: dpkg keeps their sums itself.
    (cd "$out/$name" && find . \( -path ./DEBIAN -o -path ./etc \) -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
        >"$out/$name/DEBIAN/md5sums"
    find "$out/$name" -type d -exec chmod 0755 {} +
    chmod 0644 "$out/$name/DEBIAN/control" "$out/$name/DEBIAN/md5sums"
    dpkg-deb --root-owner-group -Zxz --build "$out/$name" "$out/${name}_${version}_${arch}.deb" >/dev/null
    echo "$shown/${name}_${version}_${arch}.deb"
}

stage prefetch
install_program prefetch prefetch
completions=$out/prefetch/usr/share
install -d "$completions/bash-completion/completions" "$completions/zsh/vendor-completions" "$completions/fish/vendor_completions.d"
# bash-completion sources the script: a hashbang line has no business there.
"$bin/prefetch" --generate-completion-script bash | sed '1{/^#!/d}' >"$completions/bash-completion/completions/prefetch"
"$bin/prefetch" --generate-completion-script zsh >"$completions/zsh/vendor-completions/_prefetch"
"$bin/prefetch" --generate-completion-script fish >"$completions/fish/vendor_completions.d/prefetch.fish"
chmod 0644 "$completions"/bash-completion/completions/* "$completions"/zsh/vendor-completions/* "$completions"/fish/vendor_completions.d/*
# The units as contrib/systemd has them, for /usr/bin and with a header for the package.
install -d "$out/prefetch/lib/systemd/system"
for unit in prefetch.service prefetch.timer prefetch-session.path; do
    {
        echo "# Installed by the prefetch package, not enabled, and never edited: set the"
        echo "# manifest in /etc/prefetch/prefetch.conf, put its signing key in"
        echo "# /etc/prefetch/keys.d/, and start the timer with: systemctl enable --now prefetch.timer"
        echo "# (and runs when a display app asks: systemctl enable --now prefetch-session.path)"
        echo
        sed -n '/^\[Unit\]/,$p' "$top/contrib/systemd/$unit" | sed 's#/usr/local/bin/prefetch#/usr/bin/prefetch#'
    } >"$out/prefetch/lib/systemd/system/$unit"
    chmod 0644 "$out/prefetch/lib/systemd/system/$unit"
done
install -D -m 0644 "$debian/prefetch.sysusers" "$out/prefetch/usr/lib/sysusers.d/prefetch.conf"
# The directory of session-start requests in /run, made at every boot.
install -D -m 0644 "$debian/prefetch.tmpfiles" "$out/prefetch/usr/lib/tmpfiles.d/prefetch.conf"
# The configuration every command reads, all comments: a conffile, so an
# upgrade keeps what the operator set; keys.d/ starts empty.
install -D -m 0644 "$debian/prefetch.conf" "$out/prefetch/etc/prefetch/prefetch.conf"
install -d -m 0755 "$out/prefetch/etc/prefetch/keys.d"
echo /etc/prefetch/prefetch.conf >"$out/prefetch/DEBIAN/conffiles"
chmod 0644 "$out/prefetch/DEBIAN/conffiles"
install -m 0755 "$debian/prefetch.postinst" "$out/prefetch/DEBIAN/postinst"
install -m 0755 "$debian/prefetch.postrm" "$out/prefetch/DEBIAN/postrm"
install_overrides prefetch
libcurl=$(libcurl_dependency)
[ -n "$libcurl" ] || { echo "build-deb.sh: no package here ships libcurl.so.4 (install libcurl4-openssl-dev)" >&2; exit 1; }
package prefetch prefetch "$libcurl"

stage prefetch-fixture-server
install_program prefetch-fixture-server fixture-server
install_overrides prefetch-fixture-server
package prefetch-fixture-server fixture-server
