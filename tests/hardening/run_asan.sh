#!/usr/bin/env bash
# Runs the C++ tests, tests/hardening and tests/door against an AddressSanitizer build of our _C
# (`make asan`; `make test` runs it after the plain suite).
# CPython itself is not instrumented, so libasan (and libstdc++, see below) is preloaded into
# every interpreter the tests start, upstream's too, harmlessly; leaks are not checked (CPython
# never frees everything), and allocations too large to make return NULL, so that our refusal,
# not ASan's report, is what is tested.
# .venv's torch/_C link points at the ASan build for the run and back at build/ afterwards.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ASAN_DIR=${1:-build-asan}
read -r SITE SUFFIX < <(.venv/bin/python -c 'import sysconfig as s
print(s.get_path("purelib"), s.get_config_var("EXT_SUFFIX"))')
LINK=$SITE/torch/_C$SUFFIX
[[ -f $ASAN_DIR/_C$SUFFIX ]] || { echo "run_asan: $ASAN_DIR/_C$SUFFIX is missing" >&2; exit 1; }
LIBASAN=$(${CXX:-c++} -print-file-name=libasan.so)
[[ -f $LIBASAN ]] || { echo "run_asan: no libasan.so ($LIBASAN)" >&2; exit 1; }
# libstdc++ preloaded too: the interpreter does not link it, and ASan's __cxa_throw interceptor
# finds nothing to forward to (a CHECK failure at our first throw) unless it is there at start.
LIBSTDCXX=$(readlink -f "$(${CXX:-c++} -print-file-name=libstdc++.so)")
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=1
export TN_ASAN=1
"$ASAN_DIR"/tn_core_tests --gtest_brief=1
ln -sfnr "$ASAN_DIR/_C$SUFFIX" "$LINK"
trap 'ln -sfnr "build/_C$SUFFIX" "$LINK"' EXIT
# tests/fuzz is not run here: its children cap their address space (RLIMIT_AS), which ASan's
# shadow memory cannot live under.
LD_PRELOAD="$LIBASAN $LIBSTDCXX" .venv/bin/python -m pytest -q tests/hardening tests/door \
    "${@:2}"
