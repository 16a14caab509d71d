"""The torch tree in .venv is upstream's, unmodified; .venv and .venv-upstream stay apart.

"Unmodified" means, for torch/, torchgen/ and functorch/ in .venv, against the RECORD read from the
original wheel in the wheel cache (never from the dist-info we wrote): every file RECORD lists has
RECORD's sha256, unless tools/assemble_tree.py drops it by a stated rule; every file RECORD lists
and no rule drops is present; nothing is present that RECORD lacks, except our two stand-ins and
our _C. The drop rules are imported from tools/assemble_tree.py, so the test and the tool agree.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
UPSTREAM = ROOT / ".venv-upstream"
EXT_GLOB = "_C.cpython-*.so"


def _load_assembler():
    spec = importlib.util.spec_from_file_location("assemble_tree", ROOT / "tools/assemble_tree.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


asm = _load_assembler()


@dataclass
class Wheel:
    path: Path
    dist_info: str
    packages: list[str]
    record: dict[str, tuple[str, str]]  # path -> (hash, size), from the wheel itself
    zf: zipfile.ZipFile


@pytest.fixture(scope="module")
def site() -> Path:
    found = sorted(VENV.glob("lib/python3.*/site-packages"))
    assert len(found) == 1, f"expected one site-packages in {VENV}, found {found}: run make setup"
    return found[0]


@pytest.fixture(scope="module")
def wheel(site: Path):
    stamp_path = site / asm.STAMP_NAME
    assert stamp_path.is_file(), f"{stamp_path} missing: the tree was not assembled (make setup)"
    stamp = json.loads(stamp_path.read_text())
    path = Path(stamp["wheel"])
    assert path.is_file(), f"the wheel the tree came from is gone: {path}"
    assert asm.sha256_file(path) == stamp["wheel_sha256"], f"{path} changed since assembly"
    assert path.name.startswith("torch-2.13.0"), path.name
    with zipfile.ZipFile(path) as zf:
        dist_info, packages = asm.wheel_layout(zf)
        record = asm.read_record(zf.read(f"{dist_info}/RECORD").decode())
        yield Wheel(path, dist_info, packages, record, zf)


def _tree_files(site: Path, packages: list[str]) -> dict[str, Path]:
    """Every file (or link) under the packages, by wheel-relative path; byte-code caches aside."""
    files = {}
    for pkg in packages:
        for dirpath, dirnames, filenames in os.walk(site / pkg):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                full = Path(dirpath, name)
                files[full.relative_to(site).as_posix()] = full
    return files


def _is_our_extension(rel: str) -> bool:
    return rel.startswith("torch/_C.cpython-") and rel.endswith(".so")


def _ours(rel: str) -> bool:
    return rel in asm.STAND_INS or _is_our_extension(rel)


def _listed(wheel: Wheel) -> dict[str, tuple[str, str]]:
    return {p: v for p, v in wheel.record.items() if p.split("/")[0] in wheel.packages}


def _summary(paths: list[str], limit: int = 20) -> str:
    shown = "\n  ".join(sorted(paths)[:limit])
    more = f"\n  ... and {len(paths) - limit} more" if len(paths) > limit else ""
    return f"{len(paths)} files:\n  {shown}{more}"


def test_tree_packages_are_top_level(wheel: Wheel):
    assert sorted(wheel.packages) == ["functorch", "torch", "torchgen"]


def test_kept_files_match_record(site: Path, wheel: Wheel):
    """Each file RECORD lists and no rule drops is present, byte for byte the wheel's."""
    files = _tree_files(site, wheel.packages)
    missing, changed = [], []
    for rel, (digest, _size) in _listed(wheel).items():
        if asm.drop_reason(rel) is not None or _ours(rel):
            continue
        path = files.get(rel)
        if path is None:
            # The content rule (an ELF or Mach-O file under an innocent name) may have dropped it.
            if not asm.is_native_bytes(wheel.zf.read(rel)[:4]):
                missing.append(rel)
        elif asm.record_hash(path.read_bytes()) != digest:
            changed.append(rel)
    problems = []
    if changed:
        problems.append("differ from the wheel's RECORD: " + _summary(changed))
    if missing:
        problems.append("listed in RECORD, kept by every rule, yet absent: " + _summary(missing))
    assert not problems, "\n".join(problems)


def test_every_python_file_kept(site: Path, wheel: Wheel):
    """No .py of upstream's is left out: the drop rules never touch Python source."""
    py = [p for p in _listed(wheel) if p.endswith(".py")]
    assert len(py) > 2000
    absent = [p for p in py if not (site / p).is_file()]
    assert not absent, ".py files RECORD lists but the tree lacks: " + _summary(absent)


def test_no_extra_files(site: Path, wheel: Wheel):
    """Nothing is in the tree that RECORD lacks, except our stand-ins and our _C."""
    listed = _listed(wheel)
    files = _tree_files(site, wheel.packages)
    extra = [rel for rel in files if rel not in listed and not _ours(rel)]
    extra_py = [rel for rel in extra if rel.endswith(".py")]
    assert not extra_py, ".py files RECORD lacks: " + _summary(extra_py)
    assert not extra, "files RECORD lacks: " + _summary(extra)


def test_dropped_files_absent(site: Path, wheel: Wheel):
    present = [
        rel
        for rel in _listed(wheel)
        if asm.drop_reason(rel) is not None and not _ours(rel) and os.path.lexists(site / rel)
    ]
    assert not present, "dropped by rule yet present: " + _summary(present)


def test_no_native_file_but_ours(site: Path, wheel: Wheel):
    native = []
    for rel, path in _tree_files(site, wheel.packages).items():
        if path.is_symlink() or _ours(rel):
            continue
        with open(path, "rb") as f:
            if asm.is_native_bytes(f.read(4)):
                native.append(rel)
    assert not native, "native binaries in the tree: " + _summary(native)


def test_pyi_stubs_kept(site: Path):
    for stub in ("torch/_C/__init__.pyi", "torch/_C/_VariableFunctions.pyi", "torch/_C/_nn.pyi"):
        assert (site / stub).is_file(), stub


def test_stand_ins(site: Path):
    global_deps = site / asm.STAND_IN_GLOBAL_DEPS
    ctypes.CDLL(str(global_deps))  # torch/__init__.py loads it this way; OSError would fail here
    assert (site / asm.STAND_IN_SHM_MANAGER).is_file()


def test_dist_info_record_lists_what_is_present(site: Path, wheel: Wheel):
    """Our RECORD names exactly the files present (no dropped ones), with their hashes."""
    ours = asm.read_record((site / wheel.dist_info / "RECORD").read_text())
    present = set(_tree_files(site, wheel.packages)) | {
        p.relative_to(site).as_posix() for p in (site / wheel.dist_info).rglob("*") if p.is_file()
    }
    present = {p for p in present if not _is_our_extension(p)}
    assert set(ours) == present
    wrong = [
        p
        for p, (digest, _) in ours.items()
        if digest and asm.record_hash((site / p).read_bytes()) != digest
    ]
    assert not wrong, "our RECORD's hash is wrong for: " + _summary(wrong)


def _run(python: Path, code: str, tmp_path: Path) -> str:
    """Run `code` in `python`, isolated (-I) and from outside the repo, so nothing leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run(
        [str(python), "-I", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{python} failed:\n{done.stderr}"
    return done.stdout


def _under(path: str, root: Path) -> bool:
    p = Path(path)
    return p.is_relative_to(root) or p.resolve().is_relative_to(root.resolve())


def test_torch_version_from_dist_info(wheel: Wheel, tmp_path: Path):
    version = wheel.dist_info.removeprefix("torch-").removesuffix(".dist-info")
    code = "import importlib.metadata as m; print(m.version('torch'))"
    assert _run(VENV / "bin/python", code, tmp_path).strip() == version == "2.13.0+cpu"


def test_upstream_env_is_separate(tmp_path: Path):
    assert UPSTREAM.is_symlink(), ".venv-upstream should link to the cached venv (make setup)"
    code = "import json, torch; print(json.dumps([torch.__file__, torch._C.__file__]))"
    torch_file, c_file = json.loads(_run(UPSTREAM / "bin/python", code, tmp_path))
    for path in (torch_file, c_file):
        assert _under(path, UPSTREAM), path
        assert not _under(path, VENV), path


def test_ours_resolves_torch_from_venv(tmp_path: Path):
    """Without importing (our _C may not exist yet): .venv finds torch in .venv, nowhere else."""
    code = "import importlib.util as u; print(u.find_spec('torch').origin)"
    origin = _run(VENV / "bin/python", code, tmp_path).strip()
    assert _under(origin, VENV) and not _under(origin, UPSTREAM), origin


def test_ours_resolves_our_C(site: Path, tmp_path: Path):
    """The torch._C that .venv would load is ours (found, not imported: whether `import torch`
    succeeds is for the _C's own tests, not for this one)."""
    if not any((site / "torch").glob(EXT_GLOB)):
        pytest.skip("our _C is not built yet (no torch/_C.cpython-*.so in .venv): make build")
    code = (
        "import importlib.machinery as m, importlib.util as u\n"
        "torch = u.find_spec('torch')\n"
        "print(m.PathFinder.find_spec('torch._C', torch.submodule_search_locations).origin)"
    )
    c_file = _run(VENV / "bin/python", code, tmp_path).strip()
    assert _under(c_file, VENV) and not _under(c_file, UPSTREAM), c_file
    assert Path(c_file).resolve().is_relative_to(ROOT / "build"), c_file


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
