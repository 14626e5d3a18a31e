# Two commands for a fresh machine: `make demo` and `make test`; `make bench` for speed, `make fleet` for many devices.
SWIFT ?= swift
SYSTEM_PACKAGES = libcurl4-openssl-dev libzip-dev libpng-dev libjpeg62-turbo-dev libgif-dev libwebp-dev pkg-config
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps build test test-docs test-unit python-deps demo fixtures bench powerloss fuzz fleet docs man completions clean

# Installs the C libraries only when pkg-config cannot find them (giflib has no
# pkg-config file before 5.2, so its header is looked for instead).
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libcurl libzip libpng libjpeg libwebp libwebpdemux \
		|| [ ! -f /usr/include/gif_lib.h ]; then \
		echo "Installing $(SYSTEM_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(SYSTEM_PACKAGES); \
	fi

build: deps
	$(SWIFT) build

# The tests make a private CA with openssl and sign manifests with signify-openbsd,
# as operators and publishers do, run prefetch under faketime for a device
# whose clock is elsewhere and under strace to see an offline run connect nowhere,
# and make bundles with Info-ZIP's zip to refresh by delta;
# a missing tool fails its tests, it never skips them.
TEST_TOOLS = openssl signify-openbsd faketime strace zip
test-deps:
	@for tool in $(TEST_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing $(TEST_TOOLS) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(TEST_TOOLS); \
	fi

test: deps test-deps
	$(SWIFT) test
	@$(MAKE) --no-print-directory test-docs
	@$(MAKE) --no-print-directory test-unit

# The shipped unit stays sandboxed as systemd's own services are: an exposure
# of 2.0 or better, judged offline (no running systemd needed); skipped, and
# said, only where systemd-analyze does not exist. The units pass
# `systemd-analyze verify` without a word (it only warns of an unknown key),
# with ExecStart= pointing at the binary built here. Where systemd runs the
# machine, the demo manifest's verdicts under the unit's sandbox must be those
# of a plain run (scripts/unit-sandbox-test.sh).
UNITS = prefetch.service prefetch.timer prefetch-session.path
test-unit:
	@if command -v systemd-analyze >/dev/null 2>&1; then \
		systemd-analyze security --offline=true --threshold=20 contrib/systemd/prefetch.service | tail -n 1 \
			|| { echo "prefetch.service is exposed above 2.0: systemd-analyze security --offline=true contrib/systemd/prefetch.service" >&2; exit 1; }; \
		units=$$(mktemp -d) && bin="$$($(SWIFT) build --show-bin-path)" && \
		for unit in $(UNITS); do sed "s#/usr/local/bin/prefetch#$$bin/prefetch#" contrib/systemd/$$unit >$$units/$$unit; done && \
		said=$$(systemd-analyze verify --man=no $(addprefix $$units/,$(UNITS)) 2>&1); status=$$?; rm -rf $$units; \
		[ $$status = 0 ] && [ -z "$$said" ] || { echo "systemd-analyze verify of contrib/systemd: $$said" >&2; exit 1; }; \
		echo "systemd-analyze verify: $(UNITS) clean"; \
	else echo "test-unit: no systemd-analyze on this machine; the package test checks the unit"; fi
	@scripts/unit-sandbox-test.sh "$$($(SWIFT) build --show-bin-path)"

# The documentation's own tests, after the suite: every relative link of README.md,
# docs/ and the DocC catalogs resolves inside the repository; real outputs validate
# against docs/schemas/; the command examples of README.md and docs/ print what
# they show (scripts/doc-examples.py says how they are written).
test-docs: deps python-deps
	$(SWIFT) build
	python3 scripts/doc-links.py
	python3 scripts/function-lengths.py
	python3 scripts/schema-check.py --bin "$$($(SWIFT) build --show-bin-path)"
	python3 scripts/doc-examples.py --bin "$$($(SWIFT) build --show-bin-path)"

# Python's jsonschema for scripts/schema-check.py: Debian's package, else pip's.
python-deps:
	@python3 -c 'import jsonschema' 2>/dev/null || { \
		echo "Installing python3-jsonschema with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y python3-jsonschema; \
		python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --user jsonschema; }

demo: build
	@scripts/demo.sh "$$($(SWIFT) build --show-bin-path)"

# DocC archives of the libraries (Snippets/ included) in .build/plugins/Swift-DocC/outputs;
# any documentation warning fails the build.
docs: deps
	$(SWIFT) package generate-documentation --target AssetCache --target InAppDelivery --warnings-as-errors

# prefetch(1) and fixture-server(1) from the argument parser's generate-manual plugin,
# dated by the last commit so the same commit makes the same pages: .build/man/.
MAN_DATE = $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
man: deps
	$(SWIFT) package generate-manual --configuration debug --date $(MAN_DATE)
	mkdir -p .build/man
	cp .build/plugins/GenerateManual/outputs/prefetch/prefetch.1 .build/plugins/GenerateManual/outputs/fixture-server/fixture-server.1 .build/man/
	# The plugin's EXIT STATUS says "0 on success, >0 on error"; prefetch exits 1
	# for a run that worked, so that section is replaced by every code it has.
	# DEFAULTS, ENVIRONMENT and FILES (the configuration) go before it, SEE ALSO after.
	sed -i -e '/^\.Sh "EXIT STATUS"$$/{r contrib/man/prefetch-files.mdoc' -e 'r contrib/man/prefetch-exit-status.mdoc' \
		-e 'r contrib/man/prefetch-see-also.mdoc' -e 'd}' -e '/^\.Ex -std$$/d' .build/man/prefetch.1
	@grep -q '^\.It 130 , 143$$' .build/man/prefetch.1 || { echo "make man: prefetch.1 has no EXIT STATUS of its own" >&2; exit 1; }
	@for section in DEFAULTS ENVIRONMENT FILES 'SEE ALSO'; do grep -q "^\.Sh $$section$$" .build/man/prefetch.1 || \
		{ echo "make man: prefetch.1 has no $$section" >&2; exit 1; }; done
	@echo "man pages in .build/man: man -l .build/man/prefetch.1"

# Shell completion scripts for prefetch in .build/completions/.
completions: build
	mkdir -p .build/completions
	for shell in bash zsh fish; do "$$($(SWIFT) build --show-bin-path)/prefetch" --generate-completion-script $$shell >.build/completions/prefetch.$$shell; done
	@ls .build/completions

# Regenerates the binary test assets; `--check` verifies the committed ones.
fixtures:
	python3 fixtures/generate.py
	python3 fixtures/generate_hostile.py

# The benchmark of issue 6 (bench/run.py): installs nginx, curl, aria2, pngcheck,
# the JPEG, GIF and WebP tools, unzip, GNU time and strace when missing, measures
# the binaries `make release` builds (the ones the package ships), prints the
# table and writes BENCHMARKS.md. BENCH_ARGS
# passes options on, e.g. BENCH_ARGS="--rounds 7 --no-big", BENCH_ARGS="--only-bounds"
# for rows I and J (bench/bounds.py) alone, BENCH_ARGS="--only-link" for rows L and D
# (bench/link.py: LTE- and 3G-like links, outages; bench/delta.py: bundles by delta) alone, BENCH_ARGS="--only-wear"
# for rows W (bench/wear.py: bytes a run writes to a loop device) alone, BENCH_ARGS="--only-delta" for rows D
# alone (nginx and the emulated links, no corpus), BENCH_ARGS="--only-floor" for rows V (bench/floor.py: the
# free-space floor on a small file system; root) alone, or BENCH_ARGS="--callgrind" to add
# instruction counts of the plan and of Python (valgrind).
BENCH_TOOLS = nginx curl aria2c pngcheck djpeg cjpeg giftext dwebp cwebp unzip python3 strace
BENCH_PACKAGES = nginx curl aria2 pngcheck libjpeg-turbo-progs giflib-tools webp unzip python3 time strace
bench: release
	@PATH="$$PATH:/usr/sbin"; for tool in $(BENCH_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	[ -x /usr/bin/time ] || missing=1; \
	if [ -n "$$missing" ]; then \
		echo "Installing $(BENCH_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(BENCH_PACKAGES); \
	fi
	python3 bench/run.py --bin "$$($(STATIC) --show-bin-path)" $(BENCH_ARGS)

# The power-loss test on LazyFS (scripts/powerloss.sh): 20 cycles of a cold run
# killed at a random moment, a power cut, then verify and a next run. Needs FUSE;
# not part of `make test`. LAZYFS_SRC and FETCHCONTENT_SOURCE_DIR_{TOML,SPDLOG}
# point at local checkouts; POWERLOSS_ARGS="--skip-flush" shows that it fails
# when a flush is skipped, and POWERLOSS_ARGS="--mix N" (1, 3, 50, 500) runs
# bench/mixes.py's manifest with N of 500 messages at session start (issue 27).
LAZYFS_PACKAGES = g++ cmake libfuse3-dev fuse3 pkg-config
powerloss: deps
	@if ! command -v cmake >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1 || ! command -v fusermount3 >/dev/null 2>&1 || ! pkg-config --exists fuse3; then \
		echo "Installing $(LAZYFS_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(LAZYFS_PACKAGES); \
	fi
	scripts/powerloss.sh $(POWERLOSS_ARGS)

# Every libFuzzer target under ASan for SECONDS each (Fuzz/run.sh); a crash, leak or
# timeout leaves its input in .build-fuzz/artifacts/ and fails.
SECONDS ?= 60
fuzz: deps
	Fuzz/run.sh $(SECONDS)

# N devices (FLEET_DEVICES, 8) behind an nginx caching proxy, an nginx origin and a
# prometheus-node-exporter reading their --metrics-file output, all on loopback
# (scripts/fleet.sh); installs nginx, prometheus-node-exporter and curl when missing.
FLEET_TOOLS = nginx prometheus-node-exporter curl python3
FLEET_PACKAGES = nginx prometheus-node-exporter curl python3
fleet: deps
	@PATH="$$PATH:/usr/sbin"; for tool in $(FLEET_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing $(FLEET_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends $(FLEET_PACKAGES); \
	fi
	$(SWIFT) build --product prefetch
	scripts/fleet.sh "$$($(SWIFT) build --show-bin-path)"

clean:
	rm -rf .build

# Release builds that need no Swift toolchain where they run: the Swift runtime
# linked in statically, in a build folder of their own (.build-static). Linked
# by the toolchain's lld, which packs the relative relocations (DT_RELR, glibc
# 2.36 and later): 1 MB less, and a third of the dynamic loader's start-up work.
# --force-resolved-versions: exactly the versions of the committed
# Package.resolved, or a failure, so that two builds of one commit (and the
# .deb of it) link the same dependencies.
.PHONY: release deb package-test bench-binary
STATIC_TOOLSET = .build-static/lld-toolset.json
RELR = $(shell [ "$$(getconf GNU_LIBC_VERSION | sed 's/.*\.//')" -ge 36 ] 2>/dev/null && echo -Xlinker -z -Xlinker pack-relative-relocs)
STATIC = $(SWIFT) build -c release --force-resolved-versions --static-swift-stdlib --disable-local-rpath --toolset $(STATIC_TOOLSET) -Xlinker -z -Xlinker now $(RELR) --scratch-path .build-static
release: deps
	@mkdir -p .build-static
	@lld="$$(dirname "$$(realpath "$$(command -v $(SWIFT))")")/ld.lld"; \
	printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$$lld" >$(STATIC_TOOLSET).new; \
	cmp -s $(STATIC_TOOLSET).new $(STATIC_TOOLSET) && rm $(STATIC_TOOLSET).new || mv $(STATIC_TOOLSET).new $(STATIC_TOOLSET)
	$(STATIC) --product prefetch
	$(STATIC) --product fixture-server
	@ls -l "$$($(STATIC) --show-bin-path)/prefetch" "$$($(STATIC) --show-bin-path)/fixture-server"

# The Debian packages prefetch and prefetch-fixture-server in .build-deb/
# (scripts/build-deb.sh, files from contrib/debian and contrib/systemd), then
# lintian, which must report no error. Installs dpkg-dev and lintian when missing.
DEB_DIR = .build-deb
deb: man release
	@if ! command -v dpkg-shlibdeps >/dev/null 2>&1 || ! command -v lintian >/dev/null 2>&1; then \
		echo "Installing dpkg-dev lintian with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y dpkg-dev lintian; \
	fi
	scripts/build-deb.sh "$$($(STATIC) --show-bin-path)" .build/man $(DEB_DIR)
	lintian --fail-on error --display-level '>=info' $(DEB_DIR)/prefetch_*.deb $(DEB_DIR)/prefetch-fixture-server_*.deb

# Installs the package into a fresh debootstrap root without Swift and runs it
# there (scripts/package-test.sh): needs root and a few minutes; not part of `make test`.
package-test: deb
	@command -v debootstrap >/dev/null 2>&1 || { echo "Installing debootstrap with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y debootstrap; }
	$(SUDO) scripts/package-test.sh $(DEB_DIR)

# Size, startup and peak RSS of the self-contained build against the
# toolchain-linked one (bench/binary_size.py), written into BENCHMARKS.md.
bench-binary: release
	$(SWIFT) build -c release --product prefetch
	python3 bench/binary_size.py --static-bin "$$($(STATIC) --show-bin-path)" --shared-bin "$$($(SWIFT) build -c release --show-bin-path)"
