"""repeat_interleave with a tensor of repeats (self_Tensor), the index list it selects by
(repeat_interleave.Tensor, and .Tensor_out), ours and upstream each in its own process: values
exactly (a gather of self's elements), dtypes, strides, conjugate views, errors in upstream's
words and order, meta, out=, and the gradient through index_select.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
ri = torch.repeat_interleave
aten = torch.ops.aten
x = torch.randn(4, 3, 5)
for dt in ["int32", "int64"]:
    r = torch.tensor([2, 0, 3, 1], dtype=getattr(torch, dt))
    case(f"idx_{dt}", lambda: ri(r))
    case(f"idx_size_{dt}", lambda: ri(r, output_size=6))
    case(f"idx_size_bad_{dt}", lambda: ri(r, output_size=5))
    case(f"idx_empty_{dt}", lambda: ri(r[:0]))
    case(f"idx_strided_{dt}", lambda: ri(r[::2]))
    case(f"idx_neg_{dt}", lambda: ri(torch.tensor([1, -1, 2], dtype=r.dtype)))
    # (a negative repeat with a matching output_size writes out of bounds upstream: not run)
    neg = torch.tensor([2, -1], dtype=r.dtype)
    case(f"idx_neg_size_bad_{dt}", lambda: ri(neg, output_size=5))
    case(f"idx_neg_size_neg_{dt}", lambda: ri(torch.tensor([1, -6], dtype=r.dtype), output_size=-5))
    case(f"idx_neg_total_{dt}", lambda: ri(torch.tensor([1, -6], dtype=r.dtype)))
for dt in ["int16", "uint8", "bool", "float32"]:
    case(f"idx_dtype_{dt}", lambda: ri(torch.tensor([1, 1], dtype=getattr(torch, dt))))
case("idx_2d", lambda: ri(torch.tensor([[1, 2]])))
case("idx_2d_float", lambda: ri(torch.tensor([[1.0]])))
case("idx_0d", lambda: ri(torch.tensor(3)))
case("idx_overflow", lambda: ri(torch.tensor([2**62, 2**62])))
case("idx_wrap_small", lambda: ri(torch.tensor([2**62, 2**62, 2**62])))
case("idx_size_neg", lambda: ri(torch.tensor([1, 2]), output_size=-1))
case("idx_meta", lambda: ri(torch.tensor([1, 2], device="meta")))
case("idx_meta_size", lambda: ri(torch.tensor([1, 2], device="meta"), output_size=7))
case("idx_meta_size_neg", lambda: ri(torch.tensor([1, 2], device="meta"), output_size=-2))
o = torch.zeros(2, dtype=torch.long)
case("idx_out", lambda: [aten.repeat_interleave.Tensor_out(torch.tensor([1, 2]), out=o), o])
case("idx_out_dtype", lambda: aten.repeat_interleave.Tensor_out(torch.tensor([1, 2]),
                                                                out=torch.empty(0)))
for dt in ["float32", "float64", "float16", "bfloat16", "int8", "bool", "complex64"]:
    xd = (x * 3).to(getattr(torch, dt))
    for dim in (None, 0, 1, -1):
        n = xd.numel() if dim is None else xd.shape[dim]
        reps = torch.arange(n) % 3
        case(f"self_{dt}_{dim}", lambda: bits(ri(xd, reps, dim)) if dt != "complex64"
             else ri(xd, reps, dim))
    case(f"self_one_{dt}", lambda: ri(xd, torch.tensor([2]), 1))
    case(f"self_0d_{dt}", lambda: ri(xd, torch.tensor(2)))
case("self_t", lambda: ri(x.transpose(0, 2), torch.tensor([1, 0, 2, 1, 1]), 0))
case("self_int32", lambda: ri(x, torch.tensor([1, 2, 3], dtype=torch.int32), 1))
case("self_size", lambda: ri(x, torch.tensor([1, 2, 3]), 1, output_size=6))
case("self_size_bad", lambda: ri(x, torch.tensor([1, 2, 3]), 1, output_size=7))
case("self_len", lambda: ri(x, torch.tensor([1, 2]), 1))
case("self_2d", lambda: ri(x, torch.tensor([[1, 2]]), 1))
case("self_dim", lambda: ri(x, torch.tensor([1]), 3))
case("self_float", lambda: ri(x, torch.tensor([1.0, 2, 3]), 1))
case("self_empty", lambda: ri(x[:, :0], torch.tensor([], dtype=torch.long), 1))
case("self_scalar_dim", lambda: ri(torch.tensor(2.5), torch.tensor([3]), -1))
case("self_scalar", lambda: ri(torch.tensor(2.5), torch.tensor([3])))
c = (torch.randn(3, 2) + 1j * torch.randn(3, 2)).conj()
case("self_conj", lambda: ri(c, torch.tensor([1, 0, 2]), 0))
case("self_neg", lambda: ri(c.imag, torch.tensor([1, 2]), 1))
case("self_meta", lambda: ri(x.to("meta"), torch.tensor([1, 2, 3], device="meta"), 1,
                             output_size=6).shape)
case("self_meta_nosize", lambda: ri(x.to("meta"), torch.tensor([1, 2, 3], device="meta"), 1))
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
case("g_dim", lambda: grads(lambda t: ri(t, torch.tensor([2, 0, 1]), 1), x))
case("g_flat", lambda: grads(lambda t: ri(t, torch.tensor(2)), x))
print(json.dumps(out))
"""


def test_repeat_interleave_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_dim"][0] == "IndexSelectBackward0"
    assert upstream["idx_int32"][0] == "torch.int32"
