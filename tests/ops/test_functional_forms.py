"""The functional forms torchgen generates from in-place ops (zero, uniform, random (.to,
.from), cauchy, log_normal, exponential, geometric, bernoulli.Tensor), and the functional copy
and fill.Scalar (issue 9), ours and upstream each in its own process: seeded draws bit for bit
(a clone, then the in-place sampler: the same stream), self left as it was, dtypes, strides,
meta shapes, errors, node names and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True)
A = torch.ops.aten
FORMS = {
    "zero": lambda t: A.zero(t),
    "uniform": lambda t: A.uniform(t, -2.0, 3.0),
    "random": lambda t: A.random(t),
    "random_to": lambda t: A.random.to(t, 17),
    "random_from": lambda t: getattr(A.random, "from")(t, -5, 9),
    "cauchy": lambda t: A.cauchy(t, 0.5, 2.0),
    "log_normal": lambda t: A.log_normal(t, 0.2, 0.7),
    "exponential": lambda t: A.exponential(t, 1.5),
    "geometric": lambda t: A.geometric(t, 0.3),
    "bernoulli": lambda t: A.bernoulli.Tensor(t, torch.full(t.shape, 0.4, dtype=t.dtype)),
}
base = torch.linspace(-1, 1, 24).reshape(4, 6)
for name, fn in FORMS.items():
    for dt in ("float32", "float64", "bfloat16", "int64"):
        x = base.to(getattr(torch, dt))
        def draw(t=x):
            torch.manual_seed(123)
            before = t.clone()
            r = fn(t)
            return [bits(r), bool(torch.equal(before, t)), r.data_ptr() != t.data_ptr()]
        case(f"{name}_{dt}", draw)
        case(f"{name}_{dt}_t", lambda: draw(x.t()))
    case(f"{name}_meta", lambda: [fn(base.to("meta")).shape, str(fn(base.to("meta")).dtype)])
    def grad(fn=fn):
        t = base.double().requires_grad_()
        r = fn(t * 2)
        return [r.grad_fn.name(), bits(torch.autograd.grad((r * t).sum(), [t])[0])]
    case(f"{name}_grad", grad)
case("uniform_bad", lambda: A.uniform(base, 3.0, 1.0))
case("random_to_bad", lambda: A.random.to(base, 0))
case("geometric_bad", lambda: A.geometric(base, 1.5))
case("random_int_bool", lambda: bits(A.random(torch.zeros(5, dtype=torch.bool))))
case("copy", lambda: bits(A.copy(torch.ones(2, 3).t(), torch.arange(3.))))
case("copy_cast", lambda: bits(A.copy(torch.ones(2, 3, dtype=torch.int32), torch.arange(3.) + 0.5)))
case("copy_bad", lambda: A.copy(torch.ones(2, 3), torch.ones(4)))
case("fill", lambda: bits(A.fill(torch.ones(2, 3, dtype=torch.int32).t(), 2.5)))
case("fill_bad", lambda: A.fill(torch.ones(2, dtype=torch.uint8), 300))
case("fill_meta", lambda: A.fill(torch.ones(2, 3, device="meta"), 2).shape)
print(json.dumps(out))
"""


def test_functional_forms_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    # the draws are draws (not zeros) and leave self alone
    assert len(set(upstream["uniform_float32"][0][-1])) > 20
    assert upstream["uniform_float32"][1:] == [True, True]
