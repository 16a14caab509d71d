"""logit (logit_, logit.out, special_logit and its .out) and logit_backward (.grad_input), ours
and upstream each in its own process, bit for bit in every float dtype: eps None, 0, 1e-6, 0.25
and negative, values in and outside [0, 1], 0, -0.0, 1, infinities and NaN, on each of upstream's
paths (contiguous rows go to its MKL kernel, other rows to its vector blocks and scalar tails,
strided ones to its scalar path); integer inputs, an eps that overflows float16, errors, meta,
out= casts and the gradients (node names, the kernel backward and the double backward).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
x = torch.cat([torch.rand(500), torch.rand(200) * 1.4 - 0.2,
               torch.tensor([0.0, -0.0, 1.0, 1e-7, 1 - 1e-7, 0.5, 0.25, 0.75, 1.5, -0.5,
                             float("inf"), -float("inf"), float("nan"), 1e-30, 2e-6])])
dys = torch.randn(x.numel()) * 3
dys[:4] = torch.tensor([0.0, -1.0, 2.0, float("nan")])
for dt in ["float32", "float64", "float16", "bfloat16"]:
    d = getattr(torch, dt)
    xd, gd = x.to(d), dys.to(d)
    for e in [None, 0.0, 1e-6, 0.25, -1.0]:
        n = f"{dt}_{e}"
        case(f"logit_{n}", lambda: bits(torch.logit(xd, e)))
        case(f"logit_{n}_strided", lambda: bits(torch.logit(xd[::3], e)))
        case(f"logit_{n}_rows", lambda: bits(torch.logit(xd[:700].reshape(10, 70)[:, :65], e)))
        case(f"logit_{n}_2d_t", lambda: bits(torch.logit(xd[:700].reshape(35, 20).t(), e)))
        case(f"logit__{n}", lambda: bits(xd.clone().logit_(e)))
        case(f"sp_logit_{n}", lambda: bits(torch.special.logit(xd[:100], e)))
        case(f"lb_{n}", lambda: bits(aten.logit_backward(gd, xd, e)))
        case(f"lb_{n}_strided", lambda: bits(aten.logit_backward(gd[::3], xd[::3], e)))
        case(f"lb_{n}_rows", lambda: bits(aten.logit_backward(
            gd[:700].reshape(10, 70)[:, :65], xd[:700].reshape(10, 70)[:, :65], e)))
    nan = torch.full((70,), float("nan"), dtype=d)
    case(f"logit_nan_{dt}", lambda: bits(torch.logit(nan)))
    case(f"logit_nan_{dt}_rows", lambda: bits(torch.logit(nan.reshape(2, 35)[:, :34])))
for dt in ["int64", "uint8", "bool"]:
    xi = torch.arange(0, 3).to(getattr(torch, dt))
    case(f"logit_{dt}", lambda: bits(torch.logit(xi)))
    case(f"logit_{dt}_strided", lambda: bits(torch.logit(torch.arange(9)[::3] % 2)))
    case(f"logit__{dt}", lambda: xi.clone().logit_())
    case(f"lb_{dt}", lambda: aten.logit_backward(xi, xi))
case("logit_eps_overflow_f16", lambda: torch.logit(x[:5].half(), 1e6))
case("logit_eps_big_f32", lambda: bits(torch.logit(x[:5], 1e30)))
case("logit_complex", lambda: torch.logit(torch.ones(2, dtype=torch.complex64)))
case("logit_empty", lambda: bits(torch.logit(torch.ones(0, 3))))
case("logit_0d", lambda: bits(torch.logit(torch.tensor(0.3))))
case("logit_meta", lambda: torch.logit(torch.ones(2, 3, device="meta"), 1e-6).shape)
case("logit_meta_int",
     lambda: str(torch.logit(torch.ones(2, dtype=torch.long, device="meta")).dtype))
case("logit__meta_bool",
     lambda: str(torch.ones(2, dtype=torch.bool, device="meta").logit_().dtype))
case("lb_meta", lambda: aten.logit_backward(torch.ones(2, device="meta"),
                                            torch.ones(2, device="meta")).shape)
case("lb_broadcast", lambda: bits(aten.logit_backward(dys[:5], x[:20].reshape(4, 5), 0.1)))
for dt in ["float32", "float64", "float16"]:
    o = torch.zeros(7, dtype=getattr(torch, dt))
    case(f"logit_out_{dt}", lambda: [bits(torch.logit(x[:7], 0.1, out=o)), bits(o)])
    o2 = torch.zeros(7, dtype=getattr(torch, dt))
    case(f"sp_logit_out_{dt}", lambda: [bits(torch.special.logit(x[:7], out=o2)), bits(o2)])
    o3 = torch.zeros(7, dtype=getattr(torch, dt))
    case(f"lb_out_{dt}", lambda: [bits(aten.logit_backward.grad_input(
        dys[:7], x[:7], None, grad_input=o3)), bits(o3)])
o = torch.zeros(7, dtype=torch.long)
case("logit_out_long", lambda: torch.logit(x[:7], out=o))
o = torch.zeros(3)
case("logit_out_resize", lambda: [bits(torch.logit(x[:7], out=o)), bits(o)])
def grads(fn, v, dt, create_graph=False):
    t = v.to(dt).clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=dt).reshape(y.shape)
    g = torch.autograd.grad((y * w).sum(), [t], create_graph=create_graph)
    return [y.grad_fn.name()] + [bits(r) for r in g]
gx = torch.cat([x[:200], torch.tensor([0.0, 1.0, 1e-3, -0.1, 1.1])])
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
    for e in [None, 1e-3, 0.25]:
        n = f"{str(dt)[6:]}_{e}"
        case(f"g_logit_{n}", lambda: grads(lambda t: torch.logit(t, e), gx, dt))
        case(f"g_logit_cg_{n}", lambda: grads(lambda t: torch.logit(t, e), gx, dt, True))
        case(f"g_logit__{n}", lambda: grads(lambda t: t.clone().logit_(e), gx, dt))
        case(f"g_sp_logit_{n}", lambda: grads(lambda t: torch.special.logit(t, e), gx, dt))
case("gg_logit", lambda: second_order(lambda t: torch.logit(t, 1e-3), gx[:100]))
print(json.dumps(out))
"""


def test_logit_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_logit_float64_None"][0] == "LogitBackward0"
    assert upstream["logit_eps_overflow_f16"][0] == "raises"
    assert upstream["logit_nan_bfloat16"] != upstream["logit_nan_bfloat16_rows"]
