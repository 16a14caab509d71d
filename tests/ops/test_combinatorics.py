"""cartesian_prod, combinations, nanmean and the deprecated qr (issue 9), ours and upstream each
in its own process, bit for bit: upstream's compositions (meshgrid, masked_select and stack;
nansum over the non-NaN count; linalg_qr), so values, strides, errors, meta shapes, gradients
and the grad_fn chain agree (qr's gradient, linalg_qr's, is tested in test_qr_backward.py).
nanmean over a strided view checks nansum's fold: it walks the view's own strides, as upstream's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True, nan_payload=False)
a, b, e = torch.randn(4), torch.arange(3), torch.empty(0)
case("cart_2", lambda: bits(torch.cartesian_prod(a, a.flip(0))))
case("cart_3", lambda: bits(torch.cartesian_prod(a, a[:2], a[1:])))
case("cart_1", lambda: bits(torch.cartesian_prod(a)))
case("cart_int", lambda: bits(torch.cartesian_prod(b, b)))
case("cart_empty", lambda: bits(torch.cartesian_prod(a, e)))
case("cart_mixed", lambda: torch.cartesian_prod(a, b))
case("cart_2d", lambda: torch.cartesian_prod(a, a.reshape(2, 2)))
for r in range(0, 6):
    for rep in (False, True):
        case(f"comb_{r}_{rep}", lambda: bits(torch.combinations(a, r, with_replacement=rep)))
case("comb_int", lambda: bits(torch.combinations(b, 2)))
case("comb_bool", lambda: bits(torch.combinations(b > 0, 2, True)))
case("comb_empty", lambda: bits(torch.combinations(e, 2)))
case("comb_neg", lambda: torch.combinations(a, -1))
case("comb_2d", lambda: torch.combinations(a.reshape(2, 2)))
case("comb_meta", lambda: torch.combinations(a.to("meta"), 2).shape)
x = torch.randn(3, 4, 5)
x[0, 1, :2] = float("nan")
x[2, :, 3] = float("nan")
for dt in ("float32", "float64", "bfloat16", "float16", "complex64"):
    xd = x.to(getattr(torch, dt))
    case(f"nanmean_{dt}", lambda: bits(torch.view_as_real(torch.nanmean(xd)) if xd.is_complex()
                                       else torch.nanmean(xd)))
    for dim in (0, (1, 2), -1):
        case(f"nanmean_{dim}_{dt}", lambda: bits(torch.nanmean(xd.real, dim, keepdim=True)))
case("nanmean_dtype", lambda: bits(torch.nanmean(x, 1, dtype=torch.float64)))
case("nanmean_out", lambda: bits(torch.nanmean(x, 2, out=torch.empty(0))))
case("nanmean_out_resize", lambda: bits(torch.nanmean(x, 2, out=torch.empty(5))))
case("nanmean_int", lambda: torch.nanmean(b))
case("nanmean_int_dtype", lambda: torch.nanmean(x, dtype=torch.int32))
case("nansum_complex_dtype", lambda: torch.nansum(x, dtype=torch.complex64))
case("nanmean_all_nan", lambda: bits(torch.nanmean(torch.full((3,), float("nan")))))
case("nanmean_empty", lambda: bits(torch.nanmean(e)))
case("nanmean_meta", lambda: torch.nanmean(x.to("meta"), 1).shape)
m = torch.randn(5, 3)
for some in (True, False):
    case(f"qr_{some}", lambda: [bits(t) for t in torch.qr(m, some)])
    case(f"qr_wide_{some}", lambda: [bits(t) for t in torch.qr(m.t(), some)])
qo = (torch.empty(0), torch.empty(0))
case("qr_out", lambda: [bits(t) for t in torch.qr(m, out=qo)] + [bits(qo[0])])
case("qr_1d", lambda: torch.qr(a))
def grads(fn, *vs):
    ts = [v.double().clone().requires_grad_() for v in vs]
    r = fn(*ts)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    chain, node = [], r.grad_fn
    while node is not None and len(chain) < 4:
        chain.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return [chain] + [bits(g) for g in torch.autograd.grad((r * w).nansum(), ts)]
case("g_cart", lambda: grads(lambda p, q: torch.cartesian_prod(p, q), a, a[:3]))
case("g_comb", lambda: grads(lambda p: torch.combinations(p, 3), a))
case("g_nanmean", lambda: grads(lambda p: torch.nanmean(p, 1), x))
print(json.dumps(out))
"""


def test_combinatorics_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    # masked_select has no meta kernel upstream (a data-dependent shape): both refuse
    assert ours["comb_meta"][:2] == upstream["comb_meta"][:2] == ["raises", "NotImplementedError"]
    differ.pop("comb_meta")
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_comb"][0][0] == "StackBackward0"
