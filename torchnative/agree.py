"""The agreement rule: ours against upstream, with an allowance derived from upstream itself.

Upstream runs the same inputs in float32 and in float64; its own float32 error is
max |upstream_f32 - upstream_f64|, and ours (float32) agrees when max |ours - upstream_f64| is at
most `factor` (2) times that. Nothing here is chosen by hand but the factor. NumPy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def max_abs_diff(got, ref) -> float:
    """max |got - ref| in float64 over all elements; shapes must match (ValueError if not).

    NaN against NaN and an infinity against the same infinity count as equal; any other
    non-finite value on either side is an infinite difference (so NaN never passes a bound)."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        raise ValueError(f"shapes differ: {got.shape} against {ref.shape}")
    if got.size == 0:
        return 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        same = (got == ref) | (np.isnan(got) & np.isnan(ref))
        diff = np.where(same, 0.0, np.abs(got - ref))
    return float(np.where(np.isfinite(diff), diff, np.inf).max())


@dataclass(frozen=True)
class Verdict:
    ok: bool
    error: float  # max |ours - upstream_f64|
    own_error: float  # max |upstream_f32 - upstream_f64|
    allowance: float  # factor * own_error
    reason: str

    def __str__(self) -> str:
        return self.reason


def within_own_error(ours, upstream_f32, upstream_f64, factor: float = 2.0,
                     name: str = "ours") -> Verdict:
    """Does ours (float32) agree with upstream within `factor` times upstream's own float32 error?

    Ours must also have upstream float32's shape and dtype. `name` labels ours in the reason."""
    ours, upstream_f32 = np.asarray(ours), np.asarray(upstream_f32)
    nan = float("nan")
    if ours.dtype != upstream_f32.dtype or ours.shape != upstream_f32.shape:
        return Verdict(False, nan, nan, nan,
                       f"{name} is {ours.dtype} {ours.shape}, upstream's is "
                       f"{upstream_f32.dtype} {upstream_f32.shape}")
    own = max_abs_diff(upstream_f32, upstream_f64)
    if not math.isfinite(own):
        return Verdict(False, nan, own, nan,
                       "upstream's own float32 error is not finite: no allowance can be derived")
    error = max_abs_diff(ours, upstream_f64)
    allowance = factor * own
    ok = error <= allowance
    relation = "within" if ok else "outside"
    return Verdict(ok, error, own, allowance,
                   f"max |{name} - upstream_f64| = {error:.3g} is {relation} {factor:g} x "
                   f"upstream's own float32 error {own:.3g} (allowance {allowance:.3g})")
