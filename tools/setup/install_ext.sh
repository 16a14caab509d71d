#!/usr/bin/env bash
# The install step of `make build`: links our _C extension from build/ into .venv's torch tree,
# where upstream's torch/__init__.py imports it as torch._C. A relative link, so a rebuild is
# picked up without re-installing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }

[[ -x .venv/bin/python ]] || die "no .venv: run 'make setup' first"
read -r SITE SUFFIX < <(.venv/bin/python -c 'import sysconfig as s
print(s.get_path("purelib"), s.get_config_var("EXT_SUFFIX"))')
SRC=build/_C$SUFFIX
DST=$SITE/torch/_C$SUFFIX

[[ -f $SRC ]] || die "$SRC is missing: the build did not produce it"
[[ -f $SITE/torch/__init__.py ]] || die "no torch tree in $SITE: run 'make setup' first"
ln -sfnr "$SRC" "$DST"
printf 'install: %s -> %s\n' "${DST#"$ROOT"/}" "$SRC"
