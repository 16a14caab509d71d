"""torch.gradient's seven overloads (uniform spacing as a scalar, a list of scalars or none;
coordinate tensors; one dim, a dim list or every dim; edge_order 1 and 2), ours and upstream
each in its own process, bit for bit: values, dtypes (integer inputs divide to float), errors
and the gradients through the composition.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
G = torch.gradient
x = torch.randn(4, 5, 6)
co = [torch.tensor([0.0, 0.5, 1.7, 2.0]), torch.randn(5).cumsum(0).abs() + torch.arange(5.),
      torch.linspace(-1, 3, 6) ** 2]
def L(rs):
    return [bits(r) for r in rs]
for dt in ("float32", "float64", "bfloat16", "int64"):
    d = getattr(torch, dt)
    xd = x.to(d) if d.is_floating_point else (x * 10).to(d)
    for eo in (1, 2):
        case(f"plain_{dt}_{eo}", lambda: L(G(xd, edge_order=eo)))
        case(f"unit_{dt}_{eo}", lambda: L(G(xd, spacing=0.3, edge_order=eo)))
        case(f"unit_int_{dt}_{eo}", lambda: L(G(xd, spacing=2, dim=1, edge_order=eo)))
        case(f"dimlist_{dt}_{eo}", lambda: L(G(xd, spacing=1.5, dim=[2, 0], edge_order=eo)))
        case(f"array_{dt}_{eo}", lambda: L(G(xd, dim=[-1, 1], edge_order=eo)))
        case(f"scalars_{dt}_{eo}", lambda: L(G(xd, spacing=[0.5, 2, 3.25], edge_order=eo)))
        case(f"scalars_dim_{dt}_{eo}", lambda: L(G(xd, spacing=[0.7], dim=1, edge_order=eo)))
        case(f"scalars_dims_{dt}_{eo}", lambda: L(G(xd, spacing=[0.7, 3], dim=[1, 2],
                                                    edge_order=eo)))
        case(f"coords_{dt}_{eo}", lambda: L(G(xd, spacing=co, edge_order=eo)))
        case(f"coords_dim_{dt}_{eo}", lambda: L(G(xd, spacing=co[1:2], dim=1, edge_order=eo)))
        case(f"coords_dims_{dt}_{eo}", lambda: L(G(xd, spacing=[co[2], co[0]], dim=[2, 0],
                                                   edge_order=eo)))
case("coords_f64", lambda: L(G(x, spacing=[c.double() for c in co])))
case("strided", lambda: L(G(x.transpose(0, 2), dim=0, edge_order=2)))
case("uint8", lambda: G(x.to(torch.uint8)))
case("edge3", lambda: G(x, edge_order=3))
case("short", lambda: G(x[:2], edge_order=2))
case("bad_len", lambda: G(x, spacing=[1.0, 2.0]))
case("bad_len_dim", lambda: G(x, spacing=[1.0, 2.0], dim=[0]))
case("dup_dim", lambda: G(x, dim=[1, 1]))
case("bad_dim", lambda: G(x, dim=[3]))
case("coords_2d", lambda: G(x, spacing=[torch.ones(4, 1)], dim=0))
case("zero_dim", lambda: G(torch.tensor(3.0)))
def grads():
    t = x.double().clone().requires_grad_()
    c = co[0].double().clone().requires_grad_()
    r = G(t, spacing=[c], dim=0, edge_order=2)[0]
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t, c])]
case("g_coords", grads)
def grads_u():
    t = x.double().clone().requires_grad_()
    r = G(t, spacing=0.25, edge_order=2)[2]
    return [r.grad_fn.name(), bits(torch.autograd.grad(r.sum(), t)[0])]
case("g_uniform", grads_u)
print(json.dumps(out))
"""


def test_gradient_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_coords"][0] == "CatBackward0"
