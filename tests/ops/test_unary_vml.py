"""The float functions upstream computes through MKL's vector math (blas_loader.h), bit for bit.

sqrt, exp, log, log2, log10, sin, cos, tan, tanh and erf on float32 and float64 go through the
same oneMKL release's VML with upstream's mode, so every element, special values included, must
carry upstream's bits: contiguous and strided inputs, in place, out=, integer inputs (computed in
the default float dtype), lengths around the chunk size. float16 and bfloat16 are not MKL's in
upstream either and stay with the allowance tests (tests/test_elementwise_agreement.py).
"""

from __future__ import annotations

import pytest

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
'''

BODY = r'''
torch.manual_seed(0)
specials = [0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan"), 1e-30, -1e-30,
            1e30, 88.7, -103.0, 710.0, 3.0e38]
for name in ["sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "erf"]:
    fn = getattr(torch, name)
    for dt in (torch.float32, torch.float64):
        for n in (1, 7, 511, 512, 513, 3000):
            x = torch.randn(n, dtype=dt) * 4
            if name in ("sqrt", "log", "log2", "log10"):
                x = x.abs() + 1e-3
            out[f"{name} {dt} {n}"] = fn(x).numpy().tobytes().hex()
        s = torch.tensor(specials, dtype=dt)
        out[f"{name} {dt} specials"] = fn(s).numpy().tobytes().hex()
        m = torch.randn(40, 30, dtype=dt).abs() + 0.5
        out[f"{name} {dt} strided"] = fn(m.t()[::2]).contiguous().numpy().tobytes().hex()
        y = m.clone()
        getattr(y, name + "_")()
        out[f"{name} {dt} in place"] = y.numpy().tobytes().hex()
        o = torch.empty(40, 30, dtype=dt)
        fn(m, out=o)
        out[f"{name} {dt} out"] = o.numpy().tobytes().hex()
    out[f"{name} int64"] = fn(torch.arange(1, 60)).numpy().tobytes().hex()
'''


def test_vml_functions_have_upstreams_bits():
    ours, up = _both.both(PRELUDE, BODY)
    assert ours.keys() == up.keys()
    bad = [k for k in up if ours[k] != up[k]]
    assert not bad, f"{len(bad)} of {len(up)} differ: {bad[:20]}"
