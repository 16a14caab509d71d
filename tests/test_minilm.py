"""all-MiniLM-L6-v2 embeddings, ours against upstream, and the rule that compares them.

Acceptance: over the demo sentences, max |ours - upstream_f64| <= 2 x max |upstream_f32 -
upstream_f64|, each side computed by torchnative/_embed_worker.py in its own process. Also: the
upstream half on its own, the comparison functions, and the demo's exit status and labels.
"""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest

from torchnative import demo
from torchnative.agree import max_abs_diff, within_own_error
from torchnative.embed import run_embed
from torchnative.envs import OURS, ROOT, UPSTREAM

EPS = 2.0**-20  # exactly representable in float32 next to values in [-1, 1)


def arrays():
    """(upstream_f64, upstream_f32) whose own float32 error is exactly EPS, at one element."""
    ref64 = (np.arange(24, dtype=np.float64) - 12) / 16
    ref32 = ref64.astype(np.float32)
    ref32[5] += np.float32(EPS)
    return ref64, ref32


def test_max_abs_diff_is_exact_and_checks_shapes():
    ref64, ref32 = arrays()
    assert max_abs_diff(ref64, ref64) == 0.0
    assert max_abs_diff(ref32, ref64) == EPS
    assert max_abs_diff(np.zeros((0, 3)), np.zeros((0, 3))) == 0.0
    with pytest.raises(ValueError, match="shapes differ"):
        max_abs_diff(ref64[:3], ref64[:4])


def test_max_abs_diff_non_finite_values():
    ref = np.array([1.0, np.nan, np.inf, -np.inf])
    assert max_abs_diff(ref, ref) == 0.0  # NaN for NaN, same infinity: equal
    for got in ([np.nan, np.nan, np.inf, -np.inf], [1.0, 0.0, np.inf, -np.inf],
                [1.0, np.nan, -np.inf, -np.inf], [1.0, np.nan, 1e300, -np.inf]):
        assert max_abs_diff(got, ref) == math.inf, got


def test_within_own_error_rejects_three_times_over_the_allowance():
    ref64, ref32 = arrays()
    ours = ref32.copy()
    ours[7] = np.float32(ref64[7] + 3 * (2 * EPS))
    verdict = within_own_error(ours, ref32, ref64)
    assert not verdict.ok, verdict
    assert (verdict.error, verdict.own_error, verdict.allowance) == (6 * EPS, EPS, 2 * EPS)


def test_within_own_error_accepts_one_times_own_error_and_the_allowance_itself():
    ref64, ref32 = arrays()
    for offset in (EPS, 2 * EPS):  # under the allowance (1 x own error), and at it
        ours = ref64.astype(np.float32)
        ours[7] = np.float32(ref64[7] - offset)
        verdict = within_own_error(ours, ref32, ref64)
        assert verdict.ok, verdict
        assert verdict.error == offset


def test_within_own_error_rejects_nan_where_upstream_is_finite():
    ref64, ref32 = arrays()
    ours = ref32.copy()
    ours[3] = np.nan
    verdict = within_own_error(ours, ref32, ref64)
    assert not verdict.ok and verdict.error == math.inf, verdict


def test_within_own_error_rejects_wrong_dtype_shape_or_no_allowance():
    ref64, ref32 = arrays()
    assert not within_own_error(ref32.astype(np.float64), ref32, ref64).ok
    assert not within_own_error(ref32[:-1], ref32, ref64).ok
    broken = ref32.copy()
    broken[0] = np.inf
    verdict = within_own_error(ref32, broken, ref64)
    assert not verdict.ok and "not finite" in verdict.reason, verdict


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return run_embed(UPSTREAM, demo.SENTENCES, ("float32", "float64"),
                     tmp_path_factory.mktemp("upstream"), echo=False)


def test_upstream_float32_error_is_finite_and_small(upstream):
    assert upstream.ok, upstream.describe_failure()
    assert upstream.message["torch"]["version"] == "2.13.0+cpu", upstream.message["torch"]
    up32, up64 = upstream.embeddings["float32"], upstream.embeddings["float64"]
    assert (up32.dtype, up64.dtype) == (np.float32, np.float64)
    assert up32.shape == up64.shape == (len(demo.SENTENCES), 384)
    assert np.allclose(np.linalg.norm(up64, axis=1), 1.0)
    own = max_abs_diff(up32, up64)
    assert math.isfinite(own) and own < 1e-4, own


def test_minilm_ours_within_twice_upstream_own_float32_error(upstream, tmp_path):
    """The acceptance rule: max |ours - upstream_f64| <= 2 x max |upstream_f32 - upstream_f64|."""
    assert upstream.ok, upstream.describe_failure()
    ours = run_embed(OURS, demo.SENTENCES, ("float32",), tmp_path, echo=False)
    assert ours.ok, ours.describe_failure()
    assert ours.message["input_ids"] == upstream.message["input_ids"]
    verdict = within_own_error(ours.embeddings["float32"], upstream.embeddings["float32"],
                               upstream.embeddings["float64"], factor=2.0)
    assert verdict.ok, verdict


def test_demo_exit_status_and_labels_follow_the_outcome(tmp_path):
    proc = subprocess.run([str(OURS.python), "-m", "torchnative", "demo", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = proc.stdout
    assert "upstream: does not run" not in out, out + proc.stderr
    if "ours: does not run" in out:
        assert proc.returncode == 1, out
        assert "from UPSTREAM (float32), since ours did not run" in out, out
        assert "from OURS" not in out, out
    else:
        assert "from OURS (float32)" in out, out
        assert proc.returncode == (0 if "result: agrees" in out else 1), out
