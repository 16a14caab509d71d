"""The fast subset of the agreement harness, run once per session and shared by its tests.

A few OpInfo entries chosen so that every comparator meets real upstream results (views, an
in-place form, out=, a pair result, integer and floating dtypes, error inputs, a non-tensor
result), drawn with 3 samples each; the draw is cached in build/harness like `make agree`'s.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "harness"
SUBSET = ("add", "nn.functional.gelu", "max.reduction_with_dim", "transpose", "split", "abs",
          "div.floor_rounding", "extra:aten.is_floating_point.default", "extra:aten.add.Scalar")


def run_harness(*args: str) -> dict:
    """Runs `python -m torchnative.harness` under ours (it imports no torch itself) and returns
    its JSON summary."""
    out = CACHE / f"summary-{hashlib.sha1(repr(args).encode()).hexdigest()[:12]}.json"
    proc = subprocess.run([sys.executable, "-m", "torchnative.harness", "--no-report",
                           "--json", str(out), "--cache", str(CACHE), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="session")
def subset() -> dict:
    return run_harness("--only", ",".join(SUBSET), "--max-samples", "3")


@pytest.fixture(scope="session")
def draw_folder(subset) -> Path:
    return Path(subset["draw_folder"])
