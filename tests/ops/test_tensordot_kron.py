"""tensordot, inner and kron with their out= forms (issue 9, item 2), ours and upstream each in its
own process. Each is upstream's composition (sum, permute, reshape, mm; _unsafe_view and mul),
so results compare exactly: values, strides, errors and messages, the nodes recorded, and the
gradients (float64).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
g = torch.Generator().manual_seed(5)
a = torch.randn(3, 4, 5, generator=g)
b = torch.randn(4, 5, 6, generator=g)
case("td_int", lambda: torch.tensordot(a, b, 2))
case("td_lists", lambda: torch.tensordot(a, b, ([1, 2], [0, 1])))
case("td_neg", lambda: torch.tensordot(a, b, ([-1], [1])))
case("td_zero", lambda: torch.tensordot(a, b, 0).shape)
r31, r42 = torch.randn(3, 1, generator=g), torch.randn(4, 2, generator=g)
r34, r12 = torch.randn(3, 4, generator=g), torch.randn(1, 2, generator=g)
case("td_bcast", lambda: torch.tensordot(r31, r42, ([1], [0])))
case("td_bcast2", lambda: torch.tensordot(r34, r12, ([1], [0])))
case("td_mismatch", lambda: torch.tensordot(a, b, ([0], [0])))
case("td_lens", lambda: torch.tensordot(a, b, ([0, 1], [0])))
case("td_repeat", lambda: torch.tensordot(a, a, ([1, 1], [1, 1])))
case("td_dtype", lambda: torch.tensordot(a, b.double(), 2))
case("td_transposed", lambda: torch.tensordot(a.transpose(0, 2), b.permute(2, 1, 0), ([1], [1])))
case("td_out", lambda: torch.tensordot(a, b, 2, out=torch.empty(0)))
case("td_out_dtype", lambda: torch.tensordot(a, b, 2, out=torch.empty(0, dtype=torch.float64)))
case("td_int_dtype",
     lambda: torch.tensordot(torch.arange(6).reshape(2, 3), torch.arange(6).reshape(3, 2), 1))
case("inner", lambda: torch.inner(a, torch.randn(2, 5, generator=g)))
case("inner_1d", lambda: torch.inner(torch.arange(3.), torch.arange(3.)))
case("inner_0d", lambda: torch.inner(torch.tensor(2.), a))
case("inner_bad", lambda: torch.inner(a, b))
case("inner_devices", lambda: torch.inner(torch.ones(3), torch.ones(1, 3, device="meta")))
case("inner_out", lambda: torch.inner(a, torch.randn(2, 5, generator=g), out=torch.empty(0)))
case("inner_out_0d", lambda: torch.inner(torch.tensor(3.), torch.arange(3.), out=torch.empty(3)))
case("kron", lambda: torch.kron(torch.arange(6.).reshape(2, 3), torch.tensor([[1., -1], [2, 0.5]])))
case("kron_dims", lambda: torch.kron(torch.arange(3.), torch.randn(2, 2, 2, generator=g)))
case("kron_0d", lambda: torch.kron(torch.tensor(2.), torch.arange(3.)))
case("kron_int", lambda: torch.kron(torch.arange(4).reshape(2, 2), torch.arange(3)))
case("kron_mixed", lambda: torch.kron(torch.arange(2), torch.ones(2, dtype=torch.float64)))
case("kron_t", lambda: torch.kron(torch.arange(6.).reshape(2, 3).T, torch.ones(2, 1)))
case("kron_out", lambda: torch.kron(torch.arange(2.), torch.arange(3.), out=torch.empty(0)))
case("kron_out_dtype", lambda: torch.kron(torch.arange(2.), torch.arange(3.),
                                          out=torch.empty(6, dtype=torch.long)))
def ger_out_warns():
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = torch.ger(torch.arange(2.), torch.arange(3.), out=torch.empty(2, 3))
    # (upstream appends where in its C++ the warning was raised)
    return [r, [str(x.message).split(" (Triggered internally")[0] for x in w]]
case("ger_out", ger_out_warns)

def grads(fn, *shapes):
    ts = [torch.randn(*s, generator=g, dtype=torch.float64).requires_grad_() for s in shapes]
    y = fn(*ts)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + list(torch.autograd.grad((y * w).sum(), ts))
case("g_td",
     lambda: grads(lambda x, y: torch.tensordot(x, y, ([1, 2], [0, 1])), (3, 4, 5), (4, 5, 2)))
case("g_td_bcast", lambda: grads(lambda x, y: torch.tensordot(x, y, ([1], [0])), (3, 1), (4, 2)))
case("g_inner", lambda: grads(torch.inner, (3, 5), (2, 5)))
case("g_kron", lambda: grads(torch.kron, (2, 3), (2, 2)))
print(json.dumps(out))
"""


def test_tensordot_inner_kron_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["td_mismatch"][:2] == ["raises", "RuntimeError"]
    assert upstream["g_kron"][0] == "UnsafeViewBackward0"
