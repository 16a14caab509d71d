"""float32 scaled_dot_product_attention in blocks (nn_attention.cpp, Note [Attention in blocks]).

Acceptance, against upstream torch 2.13.0 in separate processes:
- every output (and the flash op's logsumexp) lies within twice upstream's own float32 error of
  upstream's float64 result, on the whole tensor (max |ours - up64| <= 2 max |up32 - up64|, as
  tests/ops/test_reductions.py judges attention), with the same NaN positions: query lengths 1,
  7, 64, 128, 333, 1024, causal and not, L != S, additive, boolean and broadcast masks, rows
  masked throughout, grouped-query heads, the query layout of a (B, L, H, E) projection, scales;
- ours is bit-identical at 1 and 2 threads, and under ATEN_CPU_CAPABILITY=avx2 (8 lanes on an
  AVX-512 CPU); the plain loops (ATEN_CPU_CAPABILITY=default, std::exp) meet the same bound;
- one call at L = 2048 raises the peak RSS of a fresh process by about what upstream's does, far
  below the L x S score matrix the previous kernel held (16 MiB per head at that length).
"""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from helpers import OURS, UPSTREAM

# Inputs exact in float32, so the float64 run sees the same values. Each case is an expression
# over the names of `env`; a tuple result (the flash op's) contributes every tensor.
SETUP = """
import os, sys
import numpy as np
import torch
import torch.nn.functional as F
torch.set_num_threads(int(sys.argv[3]))
dt = getattr(torch, sys.argv[1])
rng = np.random.default_rng(0)
def t(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(dt)
flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
def pad_mask(L, S):
    m = np.float32(rng.standard_normal((2, 1, L, S)))
    m[:, :, :, S - S // 3:] = -np.inf          # padding keys
    m[1, 0, L // 2, :] = -np.inf                # one row masked throughout
    return torch.from_numpy(m).to(dt)
CASES = {}
for L in (1, 7, 64, 128, 333, 1024):
    for causal in (False, True):
        CASES[f"L{L} causal={causal}"] = (lambda L=L, c=causal: flash(
            t(1, 2, L, 64), t(1, 2, L, 64), t(1, 2, L, 64), is_causal=c))
CASES.update({
    "L7 S333": lambda: flash(t(2, 2, 7, 64), t(2, 2, 333, 64), t(2, 2, 333, 64)),
    "L333 S64 causal": lambda: flash(t(1, 3, 333, 64), t(1, 3, 64, 64), t(1, 3, 64, 64),
                                     is_causal=True),
    "L1024 S700 causal": lambda: flash(t(1, 1, 1024, 64), t(1, 1, 700, 64), t(1, 1, 700, 64),
                                       is_causal=True),
    "L64 S1025 head 40": lambda: flash(t(1, 2, 64, 40), t(1, 2, 1025, 40), t(1, 2, 1025, 40)),
    "additive mask": lambda: flash(t(2, 2, 333, 32), t(2, 2, 600, 32), t(2, 2, 600, 32),
                                   attn_mask=pad_mask(333, 600)),
    "additive mask 2-d, scale": lambda: flash(t(1, 2, 200, 64), t(1, 2, 130, 64),
                                              t(1, 2, 130, 64), attn_mask=t(200, 130),
                                              scale=0.3),
    "mask broadcast over keys": lambda: flash(t(1, 2, 50, 16), t(1, 2, 70, 16), t(1, 2, 70, 16),
                                              attn_mask=t(1, 2, 50, 1)),
    "bool mask": lambda: F.scaled_dot_product_attention(
        t(2, 3, 128, 64), t(2, 3, 200, 64), t(2, 3, 200, 64),
        attn_mask=torch.from_numpy(rng.random((128, 200)) > 0.3)),
    "negative scale": lambda: flash(t(1, 2, 100, 64), t(1, 2, 100, 64), t(1, 2, 100, 64),
                                    scale=-0.5),
    # -inf past the diagonal times a negative scale: upstream's NaN rows; the rows from S - 1
    # on see every key and stay finite.
    "negative scale causal": lambda: flash(t(1, 1, 40, 8), t(1, 1, 20, 8), t(1, 1, 20, 8),
                                           is_causal=True, scale=-0.5),
    "gqa": lambda: F.scaled_dot_product_attention(t(1, 8, 333, 64), t(1, 2, 600, 64),
                                                  t(1, 2, 600, 64), enable_gqa=True),
    "gqa causal": lambda: F.scaled_dot_product_attention(t(2, 6, 129, 32), t(2, 3, 129, 32),
                                                         t(2, 3, 129, 32), is_causal=True,
                                                         enable_gqa=True),
    "query layout (B, L, H, E)": lambda: F.scaled_dot_product_attention(
        t(2, 300, 4, 64).transpose(1, 2), t(2, 300, 4, 64).transpose(1, 2),
        t(2, 300, 4, 64).transpose(1, 2), is_causal=True),
    "nan input": lambda: flash(torch.where(torch.arange(64)[:, None] == 5, float("nan"),
                                           t(1, 1, 64, 64)), t(1, 1, 80, 64), t(1, 1, 80, 64)),
    # A NaN in a value row no query row of the block sees: upstream takes the whole key block,
    # whose weight 0 times NaN makes every row's output NaN in that column.
    "nan in a hidden value row causal": lambda: flash(
        t(1, 1, 300, 32), t(1, 1, 300, 32),
        torch.where((torch.arange(300)[:, None] == 290) & (torch.arange(32) == 3), float("nan"),
                    t(1, 1, 300, 32)), is_causal=True),
})
out = {}
for name, f in CASES.items():
    r = f()
    for i, x in enumerate(r if isinstance(r, tuple) else (r,)):
        out[f"{name} [{i}]"] = x.double().numpy()
np.savez(sys.argv[2], **out)
"""


def run(python, path, dtype="float32", threads=1, capability=None):
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if capability:
        env["ATEN_CPU_CAPABILITY"] = capability
    proc = subprocess.run([str(python), "-I", "-c", SETUP, dtype, str(path), str(threads)],
                          capture_output=True, text=True, timeout=600, env=env, cwd="/")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(np.load(path))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("sdpa")
    return {
        "ours": run(OURS, d / "o1.npz"),
        "ours2": run(OURS, d / "o2.npz", threads=2),
        "avx2": run(OURS, d / "oa.npz", capability="avx2"),
        "plain": run(OURS, d / "op.npz", capability="default"),
        "up": run(UPSTREAM, d / "u32.npz"),
        "up64": run(UPSTREAM, d / "u64.npz", dtype="float64"),
    }


def names():
    return [f"{n} [{i}]" for n in (
        [f"L{L} causal={c}" for L in (1, 7, 64, 128, 333, 1024) for c in (False, True)]
        + ["L7 S333", "L333 S64 causal", "L1024 S700 causal", "L64 S1025 head 40",
           "additive mask", "additive mask 2-d, scale", "mask broadcast over keys",
           "negative scale", "negative scale causal", "nan input",
           "nan in a hidden value row causal"]) for i in (0, 1)] + [
        f"{n} [0]" for n in ("bool mask", "gqa", "gqa causal", "query layout (B, L, H, E)")]


def within_twice_own_error(ours, up, up64):
    assert ours.shape == up.shape
    assert (np.isnan(ours) == np.isnan(up)).all()
    fin = ~np.isnan(up)
    err = np.max(np.abs(ours - up64)[fin], initial=0.0)
    own = np.max(np.abs(up - up64)[fin], initial=0.0)
    assert err <= 2 * own, f"max |ours - upstream_f64| = {err:.3g}, upstream's own {own:.3g}"


@pytest.mark.parametrize("case", names())
def test_within_twice_upstreams_own_error(runs, case):
    within_twice_own_error(runs["ours"][case], runs["up"][case], runs["up64"][case])


@pytest.mark.parametrize("case", names())
def test_plain_loops_within_twice_upstreams_own_error(runs, case):
    within_twice_own_error(runs["plain"][case], runs["up"][case], runs["up64"][case])


def test_cases_all_compared(runs):
    assert sorted(runs["ours"]) == sorted(names())


@pytest.mark.parametrize("other", ["ours2", "avx2"])
def test_same_bits_at_two_threads_and_at_avx2(runs, other):
    for case in names():
        a, b = runs["ours"][case], runs[other][case]
        assert a.tobytes() == b.tobytes(), case


MEMORY = """
import resource, sys, torch, torch.nn.functional as F
torch.set_num_threads(int(sys.argv[1]))
q, k, v = (torch.randn(1, 12, 2048, 64) for _ in range(3))
F.scaled_dot_product_attention(q[:, :, :64], k[:, :, :64], v[:, :, :64])  # first-call setup
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
F.scaled_dot_product_attention(q, k, v)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_peak_memory_of_one_call(threads):
    rise = {}
    for side, python in (("ours", OURS), ("up", UPSTREAM)):
        proc = subprocess.run([str(python), "-I", "-c", MEMORY, str(threads)],
                              capture_output=True, text=True, timeout=300, cwd="/")
        assert proc.returncode == 0, proc.stderr[-4000:]
        rise[side] = int(proc.stdout.split()[-1]) / 1024  # MiB
    # The output is 6 MiB; one head's L x S scores would be 16 MiB more. Upstream's rise, its
    # per-thread blocks and MKL's buffers, measured 6.9-7.9 MiB; ours within 5 % of it.
    assert rise["ours"] <= max(1.05 * rise["up"], rise["up"] + 0.25), rise
    assert rise["ours"] < 6 + 4, rise
