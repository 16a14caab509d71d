# torchnative: `make demo` and `make test` are the two commands; each sets up and builds first.
# setup: tools/setup/setup.sh (idempotent, cached outside the clone). build: our _C, via CMake and
# Ninja with ccache, then tools/setup/install_ext.sh links it into .venv's torch tree.
SHELL := /bin/bash
PY := .venv/bin/python
BUILD_DIR := build
# ccache keeps its objects outside the clone, and paths under the clone are hashed relative to it,
# so a fresh clone in another folder (CI's) compiles from cache.
export CCACHE_DIR ?= $(HOME)/.cache/ccache
export CCACHE_BASEDIR ?= $(CURDIR)

.PHONY: setup build test demo agree models fuzz asan clean clean-cache

setup:
	@bash tools/setup/setup.sh

build: setup
	@if [ ! -f CMakeLists.txt ]; then \
	    echo "build: no CMakeLists.txt yet; skipping the _C build"; exit 0; \
	fi; \
	set -e; \
	if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	    cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	        -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	        -DPython3_EXECUTABLE=$(CURDIR)/$(PY); \
	fi; \
	cmake --build $(BUILD_DIR); \
	bash tools/setup/install_ext.sh

# The core's C++ unit tests first (no Python), then the Python suite against upstream.
# The C++ tests run with the test back end on, then its refusal when it is off.
test: build
	TORCHNATIVE_TEST_BACKEND=1 $(BUILD_DIR)/tn_core_tests --gtest_brief=1
	$(BUILD_DIR)/tn_core_tests --gtest_brief=1 --gtest_filter='Backend.AnUnavailable*'
	$(PY) -m pytest -q tests
	$(MAKE) --no-print-directory asan

demo: build
	$(PY) -m torchnative demo

# Every operator against upstream with upstream's OpInfo samples; writes docs/AGREEMENT.md
# (the rule: docs/AGREEMENT_RULES.md). Upstream's draw is cached in build/harness.
agree: build
	$(PY) -m torchnative.harness

# The architecture sweep: every model type transformers registers, built small by upstream,
# loaded and run by ours; writes docs/MODELS.md (the rule: docs/AGREEMENT_RULES.md, "Models").
# Upstream's builds are cached in build/models. tests/models/ runs a few of them in `make test`.
models: build
	$(PY) -m torchnative.models

# The differential fuzz run: hostile arguments for every implemented op, ours against upstream,
# each side in its own child processes; writes docs/FUZZ.md and fails on a crash or on ours
# returning where upstream raises. tests/fuzz/ runs a fixed sample of it in `make test`.
fuzz: build
	$(PY) -m torchnative.fuzz

# Our _C and the C++ tests under AddressSanitizer, built apart in build-asan (through ccache
# too: its objects are cached under their own flags), then the C++ tests and the Python tests
# of bad input and of the door under it (tests/hardening/run_asan.sh).
ASAN_DIR := build-asan
asan: setup
	@set -e; \
	if [ ! -f $(ASAN_DIR)/build.ninja ]; then \
	    cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DTN_ASAN=ON \
	        -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	        -DPython3_EXECUTABLE=$(CURDIR)/$(PY); \
	fi; \
	cmake --build $(ASAN_DIR)
	bash tests/hardening/run_asan.sh $(ASAN_DIR)

# Removes what setup and build made in the clone; the caches outside it stay (see clean-cache).
clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) .stamps .venv .venv-upstream .pytest_cache

clean-cache:
	rm -rf "$${TORCHNATIVE_CACHE:-$$HOME/.cache/torchnative}"
