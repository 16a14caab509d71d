"""torch.diff against upstream, each side in its own process (issue 8: transformers' masking
utilities call it on position ids when no attention mask is given).

Acceptance: values, dtypes, shapes and strides bit for bit for orders 0 to 5 (an order past the
length clamps to it), every dim spelling, prepend and append (alone and together), bool (xor) and
integer and float inputs, a transposed input; gradients through it bit for bit with upstream's
node names; every misuse (0-dim input, negative order, a prepend of another rank or shape, a dim
out of range) raises upstream's exception type and message.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def enc(t):
    t = t.detach()
    return [str(t.dtype), list(t.shape), list(t.stride()), t.contiguous().numpy().tobytes().hex()]
def case(name, fn):
    try:
        out[name] = enc(fn())
    except Exception as e:
        out[name] = ["raises", type(e).__name__, str(e)]
torch.manual_seed(0)
x = torch.randn(3, 5)
'''

BODY = r'''
for dtype in (torch.bool, torch.uint8, torch.int64, torch.float32, torch.float64):
    v = (x * 4).to(dtype)
    for n in range(6):
        case(f"{dtype} n={n}", lambda: torch.diff(v, n=n))
        case(f"{dtype} n={n} dim=0", lambda: torch.diff(v, n=n, dim=0))
    case(f"{dtype} prepend", lambda: torch.diff(v, prepend=v[:, :2]))
    case(f"{dtype} append dim=-2", lambda: torch.diff(v, dim=-2, append=v[:1]))
    case(f"{dtype} both n=2", lambda: torch.diff(v, 2, 1, v[:, :1], v[:, 3:]))
    case(f"{dtype} both n=0", lambda: torch.diff(v, 0, 1, v[:, :1], v[:, 3:]))
case("transposed", lambda: torch.diff(x.t(), dim=0))
case("method", lambda: x.diff(n=2))
case("position ids", lambda: torch.diff(torch.arange(8).view(1, 8),
                                        prepend=torch.full((1, 1), -1), dim=-1))
case("0-dim", lambda: torch.diff(torch.tensor(1.0)))
case("negative n", lambda: torch.diff(x, n=-1))
case("prepend rank", lambda: torch.diff(x, prepend=torch.zeros(5)))
case("prepend shape", lambda: torch.diff(x, prepend=torch.zeros(2, 1)))
case("dim out of range", lambda: torch.diff(x, dim=2))
case("dim out of range with append", lambda: torch.diff(x, dim=2, append=x))
w = torch.randn(4, 6, requires_grad=True)
p = torch.randn(4, 2, requires_grad=True)
y = torch.diff(w, n=2, prepend=p)
out["grad_fn"] = type(y.grad_fn).__name__
y.backward(torch.randn(y.shape))
out["grads"] = [enc(w.grad), enc(p.grad)]
'''


def test_diff_matches_upstream():
    ours, up = _both.both(PRELUDE, BODY)
    assert ours.keys() == up.keys()
    bad = [f"{k}: {ours[k]} vs {up[k]}" for k in up if ours[k] != up[k]]
    assert not bad, "\n".join(bad)
