#!/usr/bin/env bash
# Sets up what torchnative needs, idempotently: Debian packages for the C++ build, a wheel cache,
# .venv-upstream (the official torch wheel) and .venv (ours: upstream's torch tree, no native part).
# It does not build our _C: `make build` does, and tools/setup/install_ext.sh links it into .venv.
#
# Outside the clone, under ${TORCHNATIVE_CACHE:-~/.cache/torchnative}, keyed by KEY (a hash of
# requirements.txt and the interpreter), so fresh clones reuse them:
#   wheels-KEY/         every pinned wheel, downloaded once; later installs are offline
#   venv-upstream-KEY/  the whole upstream venv; .venv-upstream in the clone is a symlink to it
# In the clone: .venv/ (built from the wheel cache) and .stamps/ (one stamp per step).
# Environment: TORCHNATIVE_CACHE, TORCHNATIVE_WHEELHOUSE (extra wheel folder, default /opt/wheels,
# where the torch CPU wheel lies on our machines), PYTHON (default python3; must be CPython 3.11).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

REQS=tools/setup/requirements.txt
CACHE=${TORCHNATIVE_CACHE:-$HOME/.cache/torchnative}
WHEELHOUSE=${TORCHNATIVE_WHEELHOUSE:-/opt/wheels}
PYTHON=${PYTHON:-python3}
STAMPS=$ROOT/.stamps
UPSTREAM_ONLY='# upstream-only'
OURS_ONLY='# ours-only'
APT_PACKAGES=(ccache ninja-build libopenblas-dev libgomp1 libsleef-dev libgtest-dev)

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
stamp_ok() { [[ -f $STAMPS/$1 && $(<"$STAMPS/$1") == "$2" ]]; }
stamp_set() { mkdir -p "$STAMPS"; printf '%s\n' "$2" >"$STAMPS/$1"; }
# pip, offline, from the wheel cache only; --no-deps because requirements.txt is the full closure.
pip_offline() { "$1" -m pip install --quiet --no-index --find-links "$WHEELS" --no-deps -r "$2"; }

check_python() {
    "$PYTHON" -c 'import sys; sys.exit(sys.implementation.name != "cpython" or
                                       sys.version_info[:2] != (3, 11))' 2>/dev/null ||
        die "$PYTHON must be CPython 3.11 (our _C is built as a cpython-311 extension)"
}

# Debian packages the C++ build uses. No stamp: asking dpkg is as cheap as reading one, and a stamp
# in the clone cannot know what the machine has.
apt_step() {
    local want=("${APT_PACKAGES[@]}") missing=() pkg
    cmake --version >/dev/null 2>&1 || want+=(cmake)
    for pkg in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$pkg")
    done
    if ((${#missing[@]} == 0)); then
        say "apt: ${want[*]} present"
        return
    fi
    local sudo=()
    [[ $(id -u) == 0 ]] || sudo=(sudo)
    say "apt: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

wheels_step() {
    if [[ -f $WHEELS/.complete ]]; then
        say "wheels: cached in $WHEELS"
        return
    fi
    say "wheels: downloading the pinned wheels into $WHEELS"
    local tmp=$WHEELS.partial.$$ links=()
    [[ -d $WHEELHOUSE ]] && links=(--find-links "$WHEELHOUSE")
    rm -rf "$WHEELS".partial.*  # left by an interrupted run; we hold the lock
    mkdir -p "$tmp"
    # -qq: pip's warnings about this machine's unused index mirrors are noise; errors still show.
    "$PYTHON" -m pip download -qq --no-deps --only-binary=:all: "${links[@]}" -d "$tmp" -r "$REQS"
    cp "$REQS" "$tmp/requirements.txt"
    touch "$tmp/.complete"
    rm -rf "$WHEELS"
    mv "$tmp" "$WHEELS"
}

# The upstream venv lives in the cache (venvs cannot be moved, so it is made in place there and
# marked complete last); the clone gets a symlink.
upstream_step() {
    if ! [[ -f $UPSTREAM/.complete ]]; then
        say "venv-upstream: creating $UPSTREAM"
        rm -rf "$UPSTREAM"
        "$PYTHON" -m venv "$UPSTREAM"
        grep -v -F -- "$OURS_ONLY" "$REQS" >"$UPSTREAM.requirements.txt"
        pip_offline "$UPSTREAM/bin/python" "$UPSTREAM.requirements.txt"
        touch "$UPSTREAM/.complete"
    fi
    if ! [[ -L .venv-upstream && $(readlink .venv-upstream) == "$UPSTREAM" ]]; then
        rm -rf .venv-upstream
        ln -s "$UPSTREAM" .venv-upstream
    fi
    if stamp_ok venv-upstream "$KEY"; then
        say "venv-upstream: ok (-> $UPSTREAM)"
        return
    fi
    local version
    version=$(.venv-upstream/bin/python -I -c 'import torch; print(torch.__version__)')
    [[ $version == 2.13.0* ]] || die ".venv-upstream imports torch $version, expected 2.13.0"
    say "venv-upstream: torch $version (-> $UPSTREAM)"
    stamp_set venv-upstream "$KEY"
}

ours_step() {
    if stamp_ok venv "$KEY" && [[ -x .venv/bin/python ]]; then
        say "venv: ok"
        return
    fi
    say "venv: creating .venv (everything but the torch wheel, offline from the cache)"
    rm -rf .venv
    rm -f "$STAMPS/tree"
    "$PYTHON" -m venv .venv
    mkdir -p "$STAMPS"
    grep -v -F -- "$UPSTREAM_ONLY" "$REQS" >"$STAMPS/requirements-ours.txt"
    pip_offline .venv/bin/python "$STAMPS/requirements-ours.txt"
    stamp_set venv "$KEY"
}

tree_step() {
    local wheel site tree_key
    wheel=$(compgen -G "$WHEELS/torch-2.13.0*.whl") || die "no torch wheel in $WHEELS"
    tree_key="$KEY $(sha256sum tools/assemble_tree.py | cut -c1-16)"
    site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    if stamp_ok tree "$tree_key" && [[ -f $site/torch/__init__.py ]]; then
        say "tree: ok"
        return
    fi
    .venv/bin/python tools/assemble_tree.py "$wheel" "$site"
    stamp_set tree "$tree_key"
    # Re-assembly replaced torch/, which held the link to our _C: put it back if it was built.
    if compgen -G 'build/_C.cpython-*.so' >/dev/null; then
        bash tools/setup/install_ext.sh
    fi
}

main() {
    local start=$SECONDS
    check_python
    KEY=$({ cat "$REQS"; "$PYTHON" -c 'import platform, sys
print(sys.implementation.name, platform.python_version(), platform.machine())'; } |
        sha256sum | cut -c1-16)
    WHEELS=$CACHE/wheels-$KEY
    UPSTREAM=$CACHE/venv-upstream-$KEY
    mkdir -p "$CACHE"
    # One setup at a time per cache (two clones, or make -j, may run it together).
    exec 9>"$CACHE/.lock"
    flock 9

    apt_step
    wheels_step
    upstream_step
    ours_step
    tree_step
    say "done in $((SECONDS - start))s (key $KEY, cache $CACHE)"
}

main "$@"
