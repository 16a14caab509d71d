"""take (functional, out=), put_ / put (with and without accumulate) and fill_diagonal_ (issue 9,
item 2), ours and upstream each in its own process: values, shapes, strides, errors and
messages, node names and gradients compare exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
x = torch.randn(3, 4)
idx = torch.tensor([[0, -1, 5], [11, 2, -12]])
case("take", lambda: torch.take(x, idx))
case("take_t", lambda: torch.take(x.t(), idx))
case("take_0d", lambda: torch.take(x, torch.tensor(7)))
case("take_0d_self", lambda: torch.take(torch.tensor(2.5), torch.tensor([0, -1])))
case("take_empty_idx", lambda: torch.take(x, torch.zeros(0, 2, dtype=torch.long)))
case("take_idx_t", lambda: torch.take(x, idx.t()))
case("take_int", lambda: torch.take(torch.arange(10), torch.tensor([9, 0])))
case("take_bool", lambda: torch.take(x > 0, idx))
case("take_complex", lambda: torch.take(torch.randn(4, dtype=torch.complex64), torch.tensor([3])))
case("take_oob", lambda: torch.take(x, torch.tensor([1, 12])))
case("take_oob_neg", lambda: torch.take(x, torch.tensor([-13])))
case("take_int_idx", lambda: torch.take(x, torch.tensor([1], dtype=torch.int32)))
case("take_from_empty", lambda: torch.take(torch.ones(0), torch.tensor([0])))
o = torch.empty(7)
case("take_out", lambda: [torch.take(x, idx, out=o), o])
case("take_out_dtype", lambda: torch.take(x, idx, out=torch.empty(0, dtype=torch.float64)))
case("take_meta", lambda: torch.take(x.to("meta"), idx.to("meta")).shape)
def put(inplace, accumulate, target, index, source):
    t = target.clone()
    if inplace:
        r = t.put_(index, source, accumulate)
        return [r, t]
    return [torch.put(target, index, source, accumulate), target]
src = torch.arange(6.).reshape(2, 3) + 0.5
case("put_", lambda: put(True, False, x, idx, src))
case("put_acc", lambda: put(True, True, x, torch.tensor([[1, 1, -11], [3, 1, 5]]), src))
case("put_repeat", lambda: put(True, False, x, torch.tensor([[2, 2, 2], [2, 2, 0]]), src))
case("put_fn", lambda: put(False, False, x, idx, src))
case("put_fn_acc_t", lambda: put(False, True, x.t(), idx, src.t()))
case("put_strided_self", lambda: [torch.zeros(4, 6)[:, ::2].put_(idx, src)])
case("put_half_acc", lambda: put(True, True, x.half(), torch.tensor([0, 0, 0]),
                                 torch.tensor([0.1, 0.2, 0.3]).half()))
case("put_bool_acc", lambda: put(True, True, torch.zeros(4, dtype=torch.bool),
                                 torch.tensor([1, 1]), torch.tensor([True, False])))
case("put_oob", lambda: put(True, False, x, torch.tensor([12]), torch.tensor([1.])))
case("put_numel", lambda: put(True, False, x, torch.tensor([1, 2]), torch.tensor([1.])))
case("put_dtype", lambda: put(True, False, x, torch.tensor([1]), torch.tensor([1.]).double()))
case("put_idx_dtype", lambda: put(True, False, x, torch.tensor([1.]), torch.tensor([1.])))
case("put_empty", lambda: put(True, False, torch.ones(0), torch.tensor([0]), torch.tensor([1.])))
case("put_meta", lambda: torch.zeros(3, device="meta").put_(torch.tensor([1], device="meta"),
                                                            torch.ones(1, device="meta")).shape)
def grads(fn, *xs):
    ts = [t.double().clone().requires_grad_() for t in xs]
    y = fn(*ts)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + list(torch.autograd.grad((y * w).sum(), ts))
case("g_take", lambda: grads(lambda t: torch.take(t, torch.tensor([[1, 1], [-1, 4]])), x))
case("g_put", lambda: grads(lambda t, s: torch.put(t, idx, s), x, src))
case("g_put_acc", lambda: grads(lambda t, s: torch.put(t, idx, s, True), x, src))
case("g_put_", lambda: grads(lambda t, s: t.clone().put_(idx, s), x, src))
# fill_diagonal_
def fd(t, v, wrap=False):
    t = t.clone()
    r = t.fill_diagonal_(v, wrap)
    return [r, r.data_ptr() == t.data_ptr()]
case("fd", lambda: fd(torch.zeros(3, 4), 5))
case("fd_tall", lambda: fd(torch.zeros(7, 3), 2.5))
case("fd_tall_wrap", lambda: fd(torch.zeros(7, 3), 2.5, True))
case("fd_tall_wrap2", lambda: fd(torch.zeros(8, 2), -1, True))
case("fd_wide_wrap", lambda: fd(torch.zeros(2, 5), 1, True))
case("fd_cube", lambda: fd(torch.zeros(3, 3, 3), 7))
case("fd_t", lambda: [torch.zeros(4, 3).t().fill_diagonal_(1)])
case("fd_int", lambda: fd(torch.zeros(3, 3, dtype=torch.long), 4))
case("fd_1d", lambda: fd(torch.zeros(3), 1))
case("fd_bad_cube", lambda: fd(torch.zeros(3, 3, 2), 1))
case("fd_complex_into_real", lambda: fd(torch.zeros(2, 2), 1j))
case("fd_slice", lambda: [torch.zeros(5, 5)[1:, 1:].fill_diagonal_(3)])
case("g_fd", lambda: grads(lambda t: t.clone().fill_diagonal_(2.0, True), torch.randn(7, 3)))
print(json.dumps(out))
"""


def test_take_put_fill_diagonal_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["g_take"][0] == "TakeBackward0"
    assert upstream["take_oob"][:2] == ["raises", "IndexError"]
