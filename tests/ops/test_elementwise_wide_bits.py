"""The optimizers' pointwise ops against upstream, bit for bit, at 1 and 2 threads.

These ops take ew_run_wide's AVX2+FMA build on this machine (Note [Wide builds of exact
elementwise loops], docs/DESIGN_NOTES.md): add/sub with and without alpha, mul, div, addcmul,
addcdiv and lerp (scalar weight on either side of 0.5, and tensor weight), in place and
functional, on contiguous odd-length, strided, broadcast and 0-dim operands, with NaN, infinities,
signed zeros and subnormals among the values. Each result's bytes are hashed in each process and
the hashes compared; upstream runs in its own process.
"""

from __future__ import annotations

import textwrap

import pytest

from helpers import OURS, UPSTREAM, run_json

CODE = textwrap.dedent(
    """
    import hashlib, json, torch
    torch.set_num_threads(THREADS)

    def h(t):
        t = t.contiguous()
        t = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
        return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]

    def draw(g, n, dt, positive=False):
        x = torch.randn(n, generator=g, dtype=torch.float64) * 3
        if positive:
            x = x.abs() + 0.25
        else:
            x[::97] = float("nan"); x[5::101] = float("inf"); x[7::103] = -0.0
            x[9::107] = 1e-39 if dt == torch.float32 else 1e-310
        return x.to(dt)

    out = {}
    for dt in (torch.float32, torch.float64, torch.bfloat16):
        g = torch.Generator().manual_seed(7)
        n = 100003
        a, b, c = draw(g, n, dt), draw(g, n, dt), draw(g, n, dt, positive=True)
        w = torch.rand(n, generator=g).to(dt)
        row = draw(g, 61, dt)
        layouts = {
            "flat": (a, b, c, w),
            "strided": (a[:99999:3], b[1:100000:3], c[2:100001:3], w[:99999:3]),
            "bcast": (a[: 61 * 1000].view(1000, 61), row, c[: 61 * 1000].view(1000, 61), row),
            "zerodim": (a, b[3].clone(), c, w[4].clone()),
        }
        for name, (x, y, z, ww) in layouts.items():
            k = f"{dt}/{name}/"
            out[k + "add"] = h(x + y)
            out[k + "add_alpha"] = h(torch.add(x, y, alpha=-0.37))
            out[k + "sub_alpha"] = h(torch.sub(x, y, alpha=0.9))
            out[k + "add_scalar"] = h(x + 1e-8)
            out[k + "mul"] = h(x * y)
            out[k + "mul_scalar"] = h(x * 0.999)
            out[k + "div"] = h(x / z)
            out[k + "div_scalar"] = h(x / 1.7)
            if dt == torch.bfloat16:
                continue
            out[k + "addcmul"] = h(torch.addcmul(x, y, y, value=0.001))
            out[k + "addcdiv"] = h(torch.addcdiv(x, y, z, value=-0.01))
            out[k + "lerp_small"] = h(torch.lerp(x, y, 0.1))
            out[k + "lerp_big"] = h(torch.lerp(x, y, 0.75))
            out[k + "lerp_neg"] = h(torch.lerp(x, y, -0.6))
            out[k + "lerp_tensor"] = h(torch.lerp(x, y, ww))
            x2 = x.clone()
            x2.mul_(0.9).add_(y, alpha=0.1).addcmul_(y, y, value=0.5).lerp_(y, 0.2)
            x2.addcdiv_(y, z, value=-0.3).add_(y, alpha=-0.01)
            out[k + "in_place_chain"] = h(x2)
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module", params=[1, 2])
def runs(request):
    code = CODE.replace("THREADS", str(request.param))
    return run_json(OURS, code), run_json(UPSTREAM, code)


def test_every_case_ran_on_both_sides(runs):
    ours, up = runs
    assert sorted(ours) == sorted(up)
    assert len(ours) > 100


# Measured on main before ew_run_wide existed (the same keys differ there): bfloat16 binary ops
# over these specials, and float64 add with alpha by a 0-dim tensor. Not this file's change;
# kept visible so that a fix shows up as an XPASS.
def known(key: str) -> bool:
    return key.startswith("torch.bfloat16/") or key == "torch.float64/zerodim/add_alpha"


def test_results_are_bit_identical(runs):
    ours, up = runs
    differ = [k for k in up if not known(k) and ours[k] != up[k]]
    assert not differ, f"{len(differ)} of {len(up)} differ from upstream: {differ[:20]}"


@pytest.mark.xfail(strict=True, reason="differs on main too (bfloat16 specials, float64 0-dim "
                   "add alpha); not yet investigated")
def test_known_differences_are_bit_identical(runs):
    ours, up = runs
    assert all(ours[k] == up[k] for k in up if known(k))
