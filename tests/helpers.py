"""Running code in our environment and in upstream's, each in its own process.

Two torch packages never share a process (ARCHITECTURE.md, section 2): every comparison runs a
snippet under .venv (ours) and under .venv-upstream (the official wheel) and compares the JSON each
prints. `OURS_C` loads our torch._C alone, without torch/__init__.py, for parts that do not need
the whole tree.
"""

from __future__ import annotations

import json
import math
import subprocess
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / ".venv" / "bin" / "python"
UPSTREAM = ROOT / ".venv-upstream" / "bin" / "python"

# Loads our extension as torch._C without executing torch/__init__.py, and checks which file it is.
OURS_C = textwrap.dedent(
    """
    import importlib.util, json, sys, sysconfig
    from pathlib import Path
    site = Path(sysconfig.get_paths()["purelib"])
    path = next((site / "torch").glob("_C.cpython-*.so"))
    spec = importlib.util.spec_from_file_location("torch._C", path)
    C = importlib.util.module_from_spec(spec)
    assert Path(C.__file__).resolve() == path.resolve(), C.__file__
    """
)

UPSTREAM_C = "import json, sys\nimport torch\nC = torch._C\n"


def run(python: Path, code: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """Runs code with python -I (isolated: no user site, no cwd on sys.path)."""
    return subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True,
                          timeout=timeout, cwd="/")


def run_json(python: Path, code: str):
    """Runs code that prints one JSON document as its last line; returns it decoded."""
    proc = run(python, code)
    assert proc.returncode == 0, f"{python} failed:\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def both(body: str):
    """Runs body against our _C (loaded alone) and upstream's torch._C; returns (ours, upstream).
    body uses `C` and ends by printing json."""
    body = textwrap.dedent(body)
    return run_json(OURS, OURS_C + body), run_json(UPSTREAM, UPSTREAM_C + body)


# docs/AGREEMENT_RULES.md: the float32 (and complex64) floor of 4 ulp.
FLOAT32_FLOOR = 4 * 2.0 ** -23


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield float(v)


def scaled_error(got, ref) -> float:
    """AGREEMENT_RULES.md's error of nested lists of reals (complex values as pairs): max
    |got - ref| over max finite |ref|, where both are finite; the non-finite positions must
    match."""
    g, r = list(_flat(got)), list(_flat(ref))
    assert len(g) == len(r)
    assert [math.isfinite(a) for a in g] == [math.isfinite(b) for b in r]
    pairs = [(a, b) for a, b in zip(g, r) if math.isfinite(a) and math.isfinite(b)]
    scale = max((abs(b) for _, b in pairs), default=0.0) or 1.0
    return max((abs(a - b) / scale for a, b in pairs), default=0.0)
