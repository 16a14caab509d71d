"""Refusals the agreement harness found ours missing (upstream raises, ours returned): each
case is run under ours and under upstream, in separate processes, and must raise (type and
message) or return (dtype, shape, values) alike.

- a dim list on a tensor of more than 64 dims (upstream keeps dim lists as a 64-bit mask);
- arange with an int64 result whose step is 0 in int64 (ValueError) but not as given (an
  int32 result then holds start everywhere, as upstream's does);
- index_select's out= tensor with internal overlap, or overlapping its input;
- a foreach op's out= list: upstream's generated spelling resizes every out tensor, then
  refuses one whose dtype or device is not its result's (no cast), writing those before it.
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


FOREACH_OUT = r'''
import json, torch, warnings
warnings.simplefilter("ignore")
out = {}
def case(name, fn, outs):
    try:
        fn()
        out[name] = {"returns": [[str(t.dtype), list(t.shape), t.tolist()] for t in outs]}
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)],
                     "outs": [[str(t.dtype), list(t.shape)] for t in outs]}
x = [torch.tensor([0.5, 1.5, 2.0]), torch.tensor([[1., 2.]])]
o = [torch.empty(3, dtype=torch.float64), torch.empty(1, 2)]
case("exp into float64", lambda: torch.ops.aten._foreach_exp.out(x, out=o), o)
o = [torch.empty(2), torch.empty(0)]
case("exp resizes", lambda: torch.ops.aten._foreach_exp.out(x, out=o), o)
o = [torch.empty(3), torch.empty(1, 2, dtype=torch.bfloat16)]
case("add, second out wrong", lambda: torch.ops.aten._foreach_add.List_out(x, x, out=o), o)
o = [torch.empty(())]
case("lgamma half into float", lambda: torch.ops.aten._foreach_lgamma.out(
    [torch.tensor(1.5, dtype=torch.float16)], out=o), o)
print(json.dumps(out))
'''


def test_foreach_out_lists_are_checked_as_upstreams():
    from tests.helpers import OURS, UPSTREAM, run_json
    ours, upstream = run_json(OURS, FOREACH_OUT), run_json(UPSTREAM, FOREACH_OUT)
    assert ours == upstream
    assert upstream["exp into float64"]["raises"][0] == "RuntimeError"
    assert upstream["add, second out wrong"]["raises"][0] == "RuntimeError"
