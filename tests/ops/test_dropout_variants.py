"""feature_dropout, alpha_dropout, feature_alpha_dropout and their in-place forms (through
F.dropout1d/2d/3d, F.alpha_dropout, F.feature_alpha_dropout and torch's own spellings), ours
and upstream each in its own process after the same manual_seed: the values bit for bit (the
noise is bernoulli_'s draws, one per element or per (N, C) channel, then the same scalings),
every p edge (0, 1, out of range), train off, empty and non-contiguous inputs, the in-place
results and versions, the errors, meta and the gradients (their node names).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
F = torch.nn.functional
ops = {"fd": torch.feature_dropout, "ad": torch.alpha_dropout,
       "fad": torch.feature_alpha_dropout}
inplace = {"fd": torch.feature_dropout_, "ad": torch.alpha_dropout_,
           "fad": torch.feature_alpha_dropout_}
def seeded(fn):
    torch.manual_seed(5)
    return bits(fn())
x = torch.randn(4, 6, 3, 5)
for dt in ["float32", "float64", "float16", "bfloat16"]:
    xd = x.to(getattr(torch, dt))
    for name, f in ops.items():
        for p in (0.0, 0.25, 0.5, 0.9, 1.0):
            case(f"{name}_{dt}_{p}", lambda: seeded(lambda: f(xd, p, True)))
        case(f"{name}_{dt}_eval", lambda: seeded(lambda: f(xd, 0.5, False)))
        case(f"{name}_{dt}_t", lambda: seeded(lambda: f(xd.transpose(1, 3), 0.3, True)))
        case(f"{name}_{dt}_inplace", lambda: seeded(lambda: inplace[name](xd.clone(), 0.3, True)))
for name, f in ops.items():
    case(f"{name}_2d", lambda: seeded(lambda: f(torch.randn(5, 7), 0.5, True)))
    case(f"{name}_1d", lambda: seeded(lambda: f(torch.randn(5), 0.5, True)))
    case(f"{name}_0d", lambda: seeded(lambda: f(torch.tensor(2.0), 0.5, True)))
    case(f"{name}_1d_p1", lambda: seeded(lambda: f(torch.randn(5), 1.0, True)))
    case(f"{name}_empty", lambda: seeded(lambda: f(torch.randn(0, 3, 2), 0.5, True)))
    case(f"{name}_neg_p", lambda: f(x, -0.1, True))
    case(f"{name}_big_p", lambda: f(x, 1.5, False))
    case(f"{name}_nan", lambda: seeded(lambda: f(torch.full((2, 3), float("nan")), 1.0, True)))
    case(f"{name}_int", lambda: seeded(lambda: f(torch.arange(12).reshape(3, 4), 0.5, True)))
    case(f"{name}_int_p1", lambda: seeded(lambda: f(torch.arange(12).reshape(3, 4), 1.0, True)))
    case(f"{name}_meta", lambda: f(x.to("meta"), 0.5, True).shape)
    y = x.clone()
    case(f"{name}_same", lambda: inplace[name](y, 0.0, True) is y)
    case(f"{name}_same_eval", lambda: f(y, 0.5, False) is y)
    def grads(p, name=name):
        torch.manual_seed(3)
        t = x.double().clone().requires_grad_()
        r = ops[name](t, p, True)
        w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
        return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
    case(f"g_{name}", lambda: grads(0.4))
    case(f"g_{name}_p1", lambda: grads(1.0))
case("F_dropout1d", lambda: seeded(lambda: F.dropout1d(torch.randn(3, 4, 5), 0.5)))
case("F_dropout1d_unbatched", lambda: seeded(lambda: F.dropout1d(torch.randn(4, 5), 0.5)))
case("F_dropout2d", lambda: seeded(lambda: F.dropout2d(torch.randn(2, 3, 4, 5), 0.5)))
case("F_dropout2d_inplace", lambda: seeded(lambda: F.dropout2d(torch.randn(2, 3, 4, 5), 0.5,
                                                               inplace=True)))
case("F_dropout3d", lambda: seeded(lambda: F.dropout3d(torch.randn(2, 3, 2, 4, 5), 0.5)))
case("F_alpha", lambda: seeded(lambda: F.alpha_dropout(x, 0.2, True)))
case("F_alpha_inplace", lambda: seeded(lambda: F.alpha_dropout(x.clone(), 0.2, True, True)))
case("F_fad", lambda: seeded(lambda: F.feature_alpha_dropout(x, 0.2, True)))
case("F_fad_inplace", lambda: seeded(lambda: F.feature_alpha_dropout(x.clone(), 0.2, True,
                                                                      True)))
print(json.dumps(out))
"""


def test_dropout_variants_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_fd"][0] == "MulBackward0"
    assert upstream["g_fad"][0] == "AddBackward0"
    assert upstream["fd_1d"][0] == "raises"
