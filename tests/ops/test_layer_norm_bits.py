"""The kernels a language model's training step runs, bit for bit against upstream (issue 8).

Each side in its own process draws the same seeded inputs and computes the forward and the
gradients (a seeded cotangent through torch.autograd.grad), and every byte is compared:
native_layer_norm (mean, rstd, output) and its backward (input, weight, bias) over row lengths
that exercise every part of upstream's Welford cascade (a tail past the last whole vector,
several chunks, a stack that carries), with and without weight and bias, at 1 and 2 threads
(the weight's gradient sums per-thread partial rows); _softmax_backward_data and
_log_softmax_backward_data over the last dim and over another (where upstream's scalar tail
takes std::exp); gelu_backward ('tanh' on its vector and its scalar path, 'none' on its
scalar path) and silu_backward, contiguous and strided; linalg_vector_norm's 2-norm and
_foreach_norm; float32 and float64.

Not here, because not bit for bit (measured, kept within upstream's own error by the
harness): gelu('none')'s backward on contiguous float32 (upstream hands it to oneDNN) and on
contiguous float64 (its bundled SLEEF's erf); softmax's forward over a dim other than the last.
"""

from __future__ import annotations

import pytest

from tests.door import _both


@pytest.fixture(scope="module", autouse=True)
def avx2_build():
    # The fused steps were measured against upstream's AVX2 build (the kernels' comments); its
    # AVX-512 and baseline builds fuse as their compilers chose, unmeasured, so elsewhere this
    # runs only with ATEN_CPU_CAPABILITY=avx2 (tests/test_cpu_capability.py reruns tests/ops so).
    cap = _both.run_json(_both.OURS, "import json, torch\n"
                         "print(json.dumps(torch.backends.cpu.get_cpu_capability()))\n")
    if cap != "AVX2":
        pytest.skip(f"upstream's bits are modelled for its AVX2 build; this process runs {cap}")

PRELUDE = r'''
import json, torch, torch.nn.functional as F
out = {}
def hexof(t):
    return None if t is None else t.detach().contiguous().numpy().tobytes().hex()
def grads(name, fn, *shapes, dtype, seed=0, strided=False):
    g = torch.Generator().manual_seed(seed)
    xs = []
    for s in shapes:
        t = torch.randn(s, generator=g, dtype=dtype) * 2 + 0.5
        if strided:
            t = torch.randn(s[:-1] + (2 * s[-1],), generator=g, dtype=dtype)[..., ::2]
        xs.append(t.requires_grad_())
    y = fn(*xs)
    ys = y if isinstance(y, tuple) else (y,)
    diff = [t for t in ys if t.requires_grad]  # native_layer_norm's mean, rstd have no grad
    cot = [torch.randn(t.shape, generator=g, dtype=dtype) for t in diff]
    gs = torch.autograd.grad(diff, xs, cot, allow_unused=True)
    out[name] = [hexof(t) for t in ys] + [hexof(t) for t in gs]
'''

LAYER_NORM = r'''
for dt in (torch.float32, torch.float64):
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for n in (1, 7, 8, 37, 100, 256, 300, 768, 3000):
            rows = 11
            for affine in (True, False):
                name = f"{dt} t{threads} n{n} affine={affine}"
                if affine:
                    grads(name, lambda x, w, b: torch.ops.aten.native_layer_norm(x, [n], w, b, 1e-5),
                          (rows, n), (n,), (n,), dtype=dt, seed=n)
                else:
                    grads(name, lambda x: torch.ops.aten.native_layer_norm(x, [n], None, None, 1e-5),
                          (rows, n), dtype=dt, seed=n)
        grads(f"{dt} t{threads} module", lambda x: torch.nn.LayerNorm(64, dtype=dt)(x),
              (3, 5, 64), dtype=dt)
torch.set_num_threads(1)
'''

POINTWISE = r'''
gen = torch.Generator().manual_seed(5)
for dt in (torch.float32, torch.float64):
    for dim, shape in ((-1, (6, 37)), (-1, (4, 1000)), (1, (3, 9, 13)), (0, (7, 20))):
        # The forward carries upstream's bits over the last dim only (other dims are within
        # its error): the backward kernels are compared apart below.
        if dim == -1:
            grads(f"softmax {dt} {dim} {shape}", lambda x: torch.softmax(x, dim), shape, dtype=dt)
            grads(f"log_softmax {dt} {dim} {shape}", lambda x: torch.log_softmax(x, dim), shape,
                  dtype=dt)
        g = torch.randn(shape, generator=gen, dtype=dt)
        y = torch.rand(shape, generator=gen, dtype=dt)
        out[f"log_softmax_backward {dt} {dim} {shape}"] = hexof(
            torch.ops.aten._log_softmax_backward_data(g, -y, dim, dt))
        out[f"softmax_backward {dt} {dim} {shape}"] = hexof(
            torch.ops.aten._softmax_backward_data(g, y, dim, dt))
    for strided in (False, True):
        grads(f"gelu tanh {dt} strided={strided}", lambda x: F.gelu(x, approximate="tanh"),
              (5, 203), dtype=dt, strided=strided)
        grads(f"silu {dt} strided={strided}", F.silu, (5, 203), dtype=dt, strided=strided)
    grads(f"gelu none {dt} strided", F.gelu, (5, 203), dtype=dt, strided=True)
    # The 2-norm clip_grad_norm_ takes of every gradient and of their norms (its vector path:
    # rows of the innermost, contiguous elements), a tail past the last vector or none.
    for n in (1, 4, 5, 7, 12, 15, 28, 32, 33, 100, 1000, 65536):
        x = torch.randn(n, generator=gen, dtype=dt)
        out[f"vector_norm {dt} {n}"] = hexof(torch.linalg.vector_norm(x))
        out[f"foreach_norm {dt} {n}"] = [hexof(t) for t in torch._foreach_norm([x, 2 * x])]
        out[f"vector_norm rows {dt} {n}"] = hexof(
            torch.linalg.vector_norm(x.reshape(1, n).expand(3, n) + 1, dim=1))
'''


def compare(ours: dict, up: dict) -> list[str]:
    assert ours.keys() == up.keys() and up
    return [name for name in up if ours[name] != up[name]]


def test_layer_norm_forward_and_backward_carry_upstreams_bits():
    ours, up = _both.both(PRELUDE, LAYER_NORM)
    assert compare(ours, up) == []


def test_softmax_gelu_silu_backward_carry_upstreams_bits():
    ours, up = _both.both(PRELUDE, POINTWISE)
    assert compare(ours, up) == []
