#!/usr/bin/env python3
"""Assemble upstream's torch Python tree from the official wheel into a site-packages directory.

Copies every package the wheel's top_level.txt names, minus every native file, adds the two
stand-ins upstream's Python needs to exist, and writes the torch dist-info with a RECORD of what is
really there. It does not build or install our `_C`: `make build` and tools/setup/install_ext.sh do.

Usage: assemble_tree.py [--force] [--no-compile] WHEEL SITE_PACKAGES

What is dropped, and why (tests/test_tree.py imports drop_reason() to know the same rules):
  torch/lib/      the native libraries (libtorch_cpu.so, libc10.so, libgomp, ...): _C is ours.
  torch/bin/      native executables (protoc, C++ test binaries, torch_shm_manager) and the
                  TorchScript models those C++ tests read.
  torch/include/  C/C++ headers for building extensions against libtorch, which we do not ship.
  torch/share/    CMake package files (TorchConfig.cmake) that describe libtorch: same reason.
  torch/test/     native C++ test executables.
  *.so, *.so.N, *.pyd, *.dylib, *.dll, *.a anywhere (torch/_C.cpython-311-*.so above all).
  Any other file whose first bytes are an ELF or Mach-O header (none in 2.13.0; a safety net).
functorch/ carries no compiled module in the 2.13.0 wheel (its old functorch/_C.so is gone); the
suffix and content rules would catch one. Kept although not Python: the `torch/_C/*.pyi` stubs (our
name-surface generator reads them), torchgen's yaml and templates, and the C++ sources and headers
that torch._inductor and torch.utils.benchmark read as text (torch/csrc/inductor/..., *.cpp).
"""

from __future__ import annotations

import argparse
import base64
import compileall
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

DROPPED_DIRS = {
    "torch/lib/": "native libraries",
    "torch/bin/": "native executables and their C++ test data",
    "torch/include/": "C/C++ headers for libtorch",
    "torch/share/": "CMake files describing libtorch",
    "torch/test/": "native C++ test executables",
}
NATIVE_SUFFIX = re.compile(r"\.(so(\.\d+)*|pyd|dylib|dll|a)$")
# ELF, then Mach-O 32/64-bit in both byte orders, then Mach-O universal.
NATIVE_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa\xce",
    b"\xce\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
)

# Files we write in place of dropped upstream ones (tests exempt them from the hash check).
STAND_IN_GLOBAL_DEPS = "torch/lib/libtorch_global_deps.so"
STAND_IN_SHM_MANAGER = "torch/bin/torch_shm_manager"
STAND_INS = (STAND_IN_GLOBAL_DEPS, STAND_IN_SHM_MANAGER)

STAMP_NAME = ".torchnative-tree.json"
SHM_MANAGER_TEXT = (
    "#!/bin/sh\n"
    "# torchnative marker: torch.__init__ only checks that this file exists.\n"
    "echo 'torch_shm_manager is not part of torchnative' >&2\n"
    "exit 1\n"
)
GLOBAL_DEPS_SOURCE = (
    "/* torchnative stand-in for libtorch_global_deps.so: torch/__init__.py loads it with ctypes;\n"
    "   it has nothing to provide. */\n"
    "int torchnative_global_deps_stand_in;\n"
)


def drop_reason(path: str) -> str | None:
    """Why the wheel member `path` is left out of the tree by name, or None if it is kept."""
    for prefix, reason in DROPPED_DIRS.items():
        if path.startswith(prefix):
            return f"{prefix} ({reason})"
    if NATIVE_SUFFIX.search(path):
        return "native suffix (.so/.pyd/.dylib/.dll/.a)"
    return None


def is_native_bytes(head: bytes) -> bool:
    """True when a file starting with `head` is an ELF or Mach-O binary."""
    return any(head.startswith(magic) for magic in NATIVE_MAGIC)


def record_hash(data: bytes) -> str:
    """The hash field a wheel RECORD writes: sha256, urlsafe base64, padding stripped."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def read_record(text: str) -> dict[str, tuple[str, str]]:
    """Parse a RECORD into {path: (hash, size)}; entries without a hash get empty strings."""
    return {row[0]: (row[1], row[2]) for row in csv.reader(io.StringIO(text)) if row}


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def self_digest() -> str:
    """A change to this script invalidates the stamp, so a fixed rule re-assembles the tree."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def wheel_layout(z: zipfile.ZipFile) -> tuple[str, list[str]]:
    """The wheel's dist-info directory name and the packages its top_level.txt names."""
    dist_infos = {n.split("/")[0] for n in z.namelist() if n.split("/")[0].endswith(".dist-info")}
    if len(dist_infos) != 1:
        sys.exit(f"assemble_tree: expected one .dist-info in the wheel, found {sorted(dist_infos)}")
    dist_info = dist_infos.pop()
    top_level = z.read(f"{dist_info}/top_level.txt").decode().split()
    return dist_info, top_level


def safe_target(site: Path, name: str) -> Path:
    if name.startswith("/") or ".." in name.split("/"):
        sys.exit(f"assemble_tree: refusing wheel member with an unsafe path: {name!r}")
    return site / name


def remove_path(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def build_global_deps(target: Path) -> None:
    """Compile an empty shared library; ctypes.CDLL must be able to load it."""
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "global_deps.c")
        src.write_text(GLOBAL_DEPS_SOURCE)
        subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(target), str(src)], check=True)


class Assembly:
    """Running totals for the summary line."""

    def __init__(self) -> None:
        self.copied = 0
        self.copied_bytes = 0
        self.dropped: dict[str, list[int]] = {}
        self.written: list[str] = []

    def drop(self, reason: str, size: int) -> None:
        entry = self.dropped.setdefault(reason, [0, 0])
        entry[0] += 1
        entry[1] += size


def copy_packages(z, site: Path, top_level, wheel_record, out: Assembly) -> None:
    """Copy every kept member of the top-level packages, checking each against the RECORD."""
    for info in z.infolist():
        name = info.filename
        if info.is_dir() or name.split("/")[0] not in top_level:
            continue
        reason = drop_reason(name)
        if reason is not None:
            out.drop(reason, info.file_size)
            continue
        data = z.read(info)
        if is_native_bytes(data[:4]):
            out.drop("native by content (ELF/Mach-O header)", info.file_size)
            continue
        expected = wheel_record.get(name, ("", ""))[0]
        if record_hash(data) != expected:
            sys.exit(f"assemble_tree: {name} does not match the wheel's RECORD (corrupt wheel?)")
        target = safe_target(site, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            target.chmod(mode)
        out.copied += 1
        out.copied_bytes += len(data)
        out.written.append(name)


def add_stand_ins(site: Path, out: Assembly) -> None:
    lib = site / STAND_IN_GLOBAL_DEPS
    lib.parent.mkdir(parents=True, exist_ok=True)
    build_global_deps(lib)
    shm = site / STAND_IN_SHM_MANAGER
    shm.parent.mkdir(parents=True, exist_ok=True)
    shm.write_text(SHM_MANAGER_TEXT)
    shm.chmod(0o755)
    out.written.extend(STAND_INS)


def write_dist_info(z, site: Path, dist_info: str, out: Assembly) -> int:
    """Copy the dist-info, add INSTALLER, and write a RECORD listing exactly the files present."""
    for info in z.infolist():
        name = info.filename
        if info.is_dir() or not name.startswith(dist_info + "/") or name.endswith("/RECORD"):
            continue
        target = safe_target(site, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(z.read(info))
        out.written.append(name)
    (site / dist_info / "INSTALLER").write_text("torchnative\n")
    out.written.append(f"{dist_info}/INSTALLER")

    rows = []
    for name in sorted(out.written):
        data = (site / name).read_bytes()
        rows.append([name, record_hash(data), str(len(data))])
    rows.append([f"{dist_info}/RECORD", "", ""])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    (site / dist_info / "RECORD").write_text(buf.getvalue())
    return len(rows)


def stamp_matches(site: Path, wheel_sha: str) -> bool:
    stamp = site / STAMP_NAME
    if not stamp.is_file() or not (site / "torch" / "__init__.py").is_file():
        return False
    try:
        data = json.loads(stamp.read_text())
    except ValueError:
        return False
    return data.get("wheel_sha256") == wheel_sha and data.get("assembler") == self_digest()


def assemble(wheel: Path, site: Path, force: bool, compile_pyc: bool) -> None:
    start = time.monotonic()
    wheel_sha = sha256_file(wheel)
    if not force and stamp_matches(site, wheel_sha):
        print(f"tree: up to date in {site} (wheel sha256 {wheel_sha[:12]}); --force redoes it")
        return
    (site / STAMP_NAME).unlink(missing_ok=True)
    out = Assembly()
    with zipfile.ZipFile(wheel) as z:
        dist_info, top_level = wheel_layout(z)
        wheel_record = read_record(z.read(f"{dist_info}/RECORD").decode())
        for stale in [*top_level, *(p.name for p in site.glob("torch-*.dist-info"))]:
            remove_path(site / stale)
        copy_packages(z, site, top_level, wheel_record, out)
        add_stand_ins(site, out)
        record_rows = write_dist_info(z, site, dist_info, out)
    if compile_pyc:
        # Byte-compile once, as pip does for installed wheels, so the first import is fast. As with
        # pip, a file that does not compile is no error: upstream ships Python-3.12-only test
        # helpers (torch/testing/_internal/py312_intrinsics.py).
        for pkg in top_level:
            compileall.compile_dir(str(site / pkg), quiet=2, workers=0)

    (site / STAMP_NAME).write_text(
        json.dumps(
            {
                "wheel": str(wheel.resolve()),
                "wheel_sha256": wheel_sha,
                "assembler": self_digest(),
                "dist_info": dist_info,
                "packages": top_level,
                "copied": out.copied,
                "dropped": sum(n for n, _ in out.dropped.values()),
            },
            indent=1,
        )
        + "\n"
    )
    print_summary(site, top_level, out, record_rows, time.monotonic() - start)


def print_summary(site: Path, top_level, out: Assembly, record_rows: int, seconds: float) -> None:
    mib = 1 << 20
    dropped_files = sum(n for n, _ in out.dropped.values())
    dropped_bytes = sum(b for _, b in out.dropped.values())
    print(f"tree: assembled {', '.join(top_level)} into {site} in {seconds:.1f}s")
    print(f"tree:   copied  {out.copied:6d} files {out.copied_bytes / mib:8.1f} MiB")
    print(f"tree:   dropped {dropped_files:6d} files {dropped_bytes / mib:8.1f} MiB:")
    for reason, (n, size) in sorted(out.dropped.items()):
        print(f"tree:     {n:6d} {size / mib:8.1f} MiB  {reason}")
    print(f"tree:   added   {len(STAND_INS):6d} stand-ins: {', '.join(STAND_INS)}")
    print(f"tree:   RECORD lists {record_rows} files")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="the official torch wheel")
    parser.add_argument("site_packages", type=Path, help="target site-packages directory")
    parser.add_argument("--force", action="store_true", help="assemble even if the stamp matches")
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="skip byte-compiling the tree (by default this interpreter compiles it once)",
    )
    args = parser.parse_args(argv)
    if not args.wheel.is_file():
        sys.exit(f"assemble_tree: no such wheel: {args.wheel}")
    if not args.site_packages.is_dir():
        sys.exit(f"assemble_tree: no such site-packages directory: {args.site_packages}")
    assemble(args.wheel, args.site_packages, args.force, not args.no_compile)


if __name__ == "__main__":
    main(sys.argv[1:])
