"""_unsafe_masked_index and _unsafe_masked_index_put_accumulate (upstream's eager versions),
ours and upstream each in its own process, bit for bit: the clamped indices, fill where the mask
is false, the empty-self path, accumulation of repeated indices, errors, meta shapes, and the
gradients with their node names (UnsafeMaskedIndexBackward0, ...PutAccumulateBackward0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
x = torch.randn(4, 5)
i0 = torch.tensor([[0, 3, 7], [-9, 2, 1]])
i1 = torch.tensor([[4, 0, 1], [2, 2, 9]])
mask = torch.tensor([[True, True, False], [False, True, True]])
for dt in ("float32", "float64", "bfloat16", "int64", "bool"):
    d = getattr(torch, dt)
    xd = x.to(d) if d != torch.bool else x > 0
    case(f"mi_{dt}", lambda: bits(aten._unsafe_masked_index(xd, mask, [i0, i1], 3)))
    case(f"mi_none_{dt}", lambda: bits(aten._unsafe_masked_index(xd, mask[0], [None, i1[0]],
                                                                  -2)))
    vals = torch.randn(2, 3).to(d) if d != torch.bool else torch.ones(2, 3, dtype=torch.bool)
    case(f"mip_{dt}", lambda: bits(aten._unsafe_masked_index_put_accumulate(
        xd, mask, [i0, i1.clamp(max=4)], vals)))
case("mi_int32", lambda: bits(aten._unsafe_masked_index(x, mask, [i0.int(), i1], 0.5)))
case("mi_bool_idx", lambda: aten._unsafe_masked_index(x, mask, [mask, None], 0))
case("mi_empty", lambda: bits(aten._unsafe_masked_index(torch.empty(0, 5), mask, [i0, i1], 7)))
case("mi_empty2", lambda: bits(aten._unsafe_masked_index(torch.empty(4, 0), mask[0],
                                                          [None, i1[0]], 7)))
case("mip_empty", lambda: bits(aten._unsafe_masked_index_put_accumulate(
    torch.empty(0, 5), mask, [i0, i1], torch.randn(2, 3))))
case("mip_repeat", lambda: bits(aten._unsafe_masked_index_put_accumulate(
    torch.zeros(4), torch.ones(6, dtype=torch.bool), [torch.tensor([1, 1, 1, 2, 9, -9])],
    torch.randn(6))))
case("mi_meta", lambda: aten._unsafe_masked_index(x.to("meta"), mask.to("meta"),
                                                  [i0.to("meta"), i1.to("meta")], 0).shape)
def grads():
    t = x.double().clone().requires_grad_()
    r = aten._unsafe_masked_index(t, mask, [i0, i1], 2.0)
    g, = torch.autograd.grad((r * torch.arange(6.).view(2, 3)).sum(), t)
    return [r.grad_fn.name(), bits(g)]
case("g_mi", grads)
def grads_put():
    t = x.double().clone().requires_grad_()
    v = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
    r = aten._unsafe_masked_index_put_accumulate(t, mask, [i0, i1.clamp(max=4)], v)
    gs = torch.autograd.grad((r * torch.arange(20.).view(4, 5)).sum(), [t, v])
    return [r.grad_fn.name()] + [bits(g) for g in gs]
case("g_mip", grads_put)
print(json.dumps(out))
"""


def test_masked_index_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_mi"][0] == "UnsafeMaskedIndexBackward0"
