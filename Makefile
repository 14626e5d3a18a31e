# Two commands for a fresh machine: `make demo` and `make test`; `make bench` for speed, `make fleet` for many devices.
SWIFT ?= swift
SYSTEM_PACKAGES = libcurl4-openssl-dev libzip-dev libpng-dev pkg-config
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps build test demo fixtures bench fleet docs man completions clean

# Installs the C libraries only when pkg-config cannot find them.
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libcurl libzip libpng; then \
		echo "Installing $(SYSTEM_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(SYSTEM_PACKAGES); \
	fi

build: deps
	$(SWIFT) build

# The tests make a private CA with openssl and sign manifests with signify-openbsd,
# as operators and publishers do; a missing tool fails its tests, it never skips them.
TEST_TOOLS = openssl signify-openbsd
test-deps:
	@for tool in $(TEST_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing $(TEST_TOOLS) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(TEST_TOOLS); \
	fi

test: deps test-deps
	$(SWIFT) test

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

# The benchmark of issue 6 (bench/run.py): installs nginx, curl, aria2, pngcheck and
# unzip when missing, builds prefetch in release mode, prints the table and writes
# BENCHMARKS.md. BENCH_ARGS passes options on, e.g. BENCH_ARGS="--rounds 7 --no-big".
BENCH_TOOLS = nginx curl aria2c pngcheck unzip python3
BENCH_PACKAGES = nginx curl aria2 pngcheck unzip python3
bench: deps
	@PATH="$$PATH:/usr/sbin"; for tool in $(BENCH_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing $(BENCH_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(BENCH_PACKAGES); \
	fi
	$(SWIFT) build -c release --product prefetch
	$(SWIFT) build -c release --product fixture-server
	python3 bench/run.py --bin "$$($(SWIFT) build -c release --show-bin-path)" $(BENCH_ARGS)

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
