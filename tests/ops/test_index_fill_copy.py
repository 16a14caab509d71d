"""index_copy and index_fill in their spellings (issue 9, item 2), with their gradients, ours and
upstream each in its own process: values, strides, errors and messages, node names and
gradients compare exactly (the ops only move and fill values).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
x = torch.arange(12.).reshape(3, 4)
src = -torch.arange(8.).reshape(2, 4)
i2 = torch.tensor([2, 0])
case("copy", lambda: torch.index_copy(x, 0, i2, src))
case("copy_dim1", lambda: x.index_copy(1, torch.tensor([3, 1]), src.T[:3, :2].contiguous()))
case("copy_repeat", lambda: x.index_copy(0, torch.tensor([1, 1]), src))
case("copy_neg_dim", lambda: x.index_copy(-1, torch.tensor([0]), torch.ones(3, 1)))
case("copy_inplace", lambda: x.clone().index_copy_(0, i2, src))
case("copy_out", lambda: torch.index_copy(x, 0, i2, src, out=torch.empty(0)))
case("copy_out_dtype",
     lambda: torch.index_copy(x, 0, i2, src, out=torch.empty(0, dtype=torch.long)))
case("copy_0d", lambda: torch.tensor(5.).index_copy(0, torch.tensor([0]), torch.tensor(7.)))
case("copy_0d_src", lambda: torch.zeros(3).index_copy(0, torch.tensor([1]), torch.tensor(7.)))
case("copy_oob", lambda: x.index_copy(0, torch.tensor([3]), src[:1]))
case("copy_negative", lambda: x.index_copy(0, torch.tensor([-1]), src[:1]))
case("copy_int_index", lambda: x.index_copy(0, i2.int(), src))
case("copy_dtype", lambda: x.index_copy(0, i2, src.double()))
case("copy_2d_index", lambda: x.index_copy(0, i2.reshape(1, 2), src))
case("copy_count", lambda: x.index_copy(0, torch.tensor([0, 1, 2]), src))
case("copy_slices", lambda: x.index_copy(0, i2, torch.ones(2, 3)))
case("copy_dims", lambda: x.index_copy(0, i2, torch.ones(2)))
case("copy_scalar_src", lambda: x.index_copy(0, i2, torch.tensor(1.)))
case("copy_strided", lambda: x.T.index_copy(0, torch.tensor([1]), torch.ones(1, 3)))
case("copy_meta", lambda: x.to("meta").index_copy(0, i2.to("meta"), src.to("meta")).shape)
case("fill", lambda: x.index_fill(1, torch.tensor([0, 2]), -1.5))
case("fill_neg", lambda: x.index_fill(0, torch.tensor([-1, 0]), 9))
case("fill_int", lambda: x.long().index_fill(1, torch.tensor([1]), 7))
case("fill_bool",
     lambda: torch.zeros(2, 3, dtype=torch.bool).index_fill(1, torch.tensor([1]), True))
case("fill_tensor", lambda: x.index_fill(1, torch.tensor([3]), torch.tensor(4.5)))
case("fill_tensor_1d", lambda: x.index_fill(1, torch.tensor([3]), torch.tensor([4.5])))
case("fill_inplace", lambda: x.clone().index_fill_(0, torch.tensor(1), 0.25))
case("fill_0d", lambda: torch.tensor(5.).index_fill(0, torch.tensor([0]), 1.0))
case("fill_oob", lambda: x.index_fill(0, torch.tensor([3]), 1.0))
case("fill_oob_neg", lambda: x.index_fill(0, torch.tensor([-4]), 1.0))
case("fill_int_index", lambda: x.index_fill(0, torch.tensor([1], dtype=torch.int32), 1.0))
case("fill_2d_index", lambda: x.index_fill(0, torch.tensor([[1]]), 1.0))
case("fill_complex_value", lambda: x.index_fill(0, torch.tensor([1]), 1 + 2j))
case("fill_complex_self", lambda: x.cfloat().index_fill(0, torch.tensor([1]), 1 + 2j))
case("fill_overflow", lambda: x.to(torch.int8).index_fill(0, torch.tensor([1]), 300))
case("fill_strided", lambda: x.T.index_fill(1, torch.tensor([2]), 0.0).stride())
case("fill_transposed_keeps_layout", lambda: x.T.index_fill(1, torch.tensor([2]), 0.0))
case("fill_meta", lambda: x.to("meta").index_fill(0, torch.tensor([1], device="meta"), 2.0).shape)

def grads(fn, *shapes):
    ts = [torch.arange(1.0, 1.0 + torch.Size(s).numel(), dtype=torch.float64).reshape(s)
          .requires_grad_() for s in shapes]
    y = fn(*ts)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    gs = torch.autograd.grad((y * w).sum(), ts)
    return [y.grad_fn.name()] + list(gs)
case("g_copy", lambda: grads(lambda a, b: a.index_copy(0, i2, b), (3, 4), (2, 4)))
case("g_copy_repeat",
     lambda: grads(lambda a, b: a.index_copy(1, torch.tensor([1, 1]), b), (3, 4), (3, 2)))
case("g_copy_0d_src", lambda: grads(lambda a, b: a.index_copy(0, torch.tensor([1]), b), (3,), ()))
case("g_copy_inplace", lambda: grads(lambda a, b: (a * 1).index_copy_(0, i2, b), (3, 4), (2, 4)))
case("g_fill", lambda: grads(lambda a: a.index_fill(1, torch.tensor([0, 2]), 3.0), (3, 4)))
case("g_fill_tensor",
     lambda: grads(lambda a, v: a.index_fill(1, torch.tensor([0, 2, 0]), v), (3, 4), ()))
case("g_fill_inplace",
     lambda: grads(lambda a: (a * 1).index_fill_(0, torch.tensor([-1]), 3.0), (3, 4)))
print(json.dumps(out))
"""


def test_index_copy_and_fill_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["copy_oob"][:2] == ["raises", "IndexError"]
    assert upstream["g_fill_tensor"][0] == "IndexFillBackward1"
