# Two commands for a fresh machine: `make demo` and `make test`.
SWIFT ?= swift
SYSTEM_PACKAGES = libcurl4-openssl-dev libzip-dev libpng-dev pkg-config
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test demo fixtures clean

# Installs the C libraries only when pkg-config cannot find them.
deps:
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libcurl libzip libpng; then \
		echo "Installing $(SYSTEM_PACKAGES) with apt-get"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(SYSTEM_PACKAGES); \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) test

demo: build
	@scripts/demo.sh "$$($(SWIFT) build --show-bin-path)"

# Regenerates the binary test assets; `--check` verifies the committed ones.
fixtures:
	python3 fixtures/generate.py
	python3 fixtures/generate_hostile.py

clean:
	rm -rf .build
