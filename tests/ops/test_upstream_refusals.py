"""Refusals the agreement harness found ours missing (upstream raises, ours returned): each
case is run under ours and under upstream, in separate processes, and must raise (type and
message) or return (dtype, shape, values) alike.

- a dim list on a tensor of more than 64 dims (upstream keeps dim lists as a 64-bit mask);
- arange with an int64 result whose step is 0 in int64 (ValueError) but not as given (an
  int32 result then holds start everywhere, as upstream's does);
- index_select's out= tensor with internal overlap, or overlapping its input.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def case(name, fn):
    try:
        r = fn()
        out[name] = {"returns": [str(r.dtype), list(r.shape), r.flatten()[:8].tolist()]}
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

BODY = r'''
big = torch.ones([1] * 65)
case("amax dim 65 dims", lambda: torch.amax(big, 0))
case("amax no dims 65 dims", lambda: torch.amax(big, ()))
case("sum dim 65 dims", lambda: torch.sum(big, 0))
case("sum 65 dims", lambda: torch.sum(big))
case("max.dim 65 dims", lambda: torch.max(big, 0).values)
case("amax dim 64 dims", lambda: torch.amax(torch.ones([1] * 64), [0, 1]))
case("arange int64 step 0.5", lambda: torch.arange(0, 64, 0.5, out=torch.empty(0, dtype=torch.int64)))
case("arange int64 dtype step 0.5", lambda: torch.arange(0, 8, 0.5, dtype=torch.int64))
case("arange int32 step 0.5", lambda: torch.arange(0, 8, 0.5, out=torch.empty(0, dtype=torch.int32)))
case("arange int step 0", lambda: torch.arange(0, 3, 0))
case("arange int64 step 1.5", lambda: torch.arange(0, 6, 1.5, dtype=torch.int64))
case("arange bad sign", lambda: torch.arange(0, 3, -0.5, dtype=torch.int64))
x = torch.arange(12.).view(3, 4)
i = torch.tensor([0, 2])
case("index_select out expanded", lambda: torch.index_select(
    x, 0, i, out=torch.empty(1, 4).expand(2, 4)))
case("index_select out is self", lambda: torch.index_select(x, 0, torch.tensor([0, 1, 2]), out=x))
case("index_select out fresh", lambda: torch.index_select(x, 0, i, out=torch.empty(0)))
'''


def test_refusals_match_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    assert ours == upstream
    assert upstream["amax dim 65 dims"]["raises"][0] == "RuntimeError"
    assert upstream["arange int64 step 0.5"]["raises"][0] == "ValueError"
    assert "returns" in upstream["arange int32 step 0.5"]
