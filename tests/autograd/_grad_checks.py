"""Checks shared by the autograd tests that compare per-case gradients and node names with
upstream's (test_derivatives_more.py, test_inplace_formulas.py)."""

from __future__ import annotations

import numpy as np


def bound(up32: list, up64: list) -> float:
    """The allowance for a float32 gradient: upstream's own largest |float32 - float64|, never
    below 4 float32 ulps of the largest element."""
    a, b = np.asarray(up32, np.float64), np.asarray(up64, np.float64)
    own = float(np.abs(a - b).max()) if a.size else 0.0
    scale = float(np.abs(b).max()) if b.size else 0.0
    return max(own, 4 * 2.0 ** -23 * max(scale, 1e-30))


def node_name_mismatches(ours: dict, upstream: dict) -> dict:
    """Cases whose float32 node is named otherwise than upstream's: {case: (upstream, ours)}."""
    names = {n: (u["torch.float32"].get("node"), ours[n]["torch.float32"].get("node"))
             for n, u in upstream.items()}
    return {n: p for n, p in names.items() if p[0] != p[1]}
