"""torch.return_types: ops with named returns give upstream's named tuples (issue 8's note).

torch._C._return_types must hold the same classes as upstream's (torch.return_types
re-exports them at import, and torch.utils._pytree registers each), with the same fields;
Python API calls (torch.max(x, 0), x.min(1), out= forms) return instances of them, indexable
and unpackable as tuples, while torch.ops spellings return plain tuples, as upstream's do.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def face(r):
    return [type(r).__module__, type(r).__name__, list(getattr(type(r), "__match_args__", ())),
            [t.tolist() for t in r]]
def attempt(name, fn):
    try:
        out[name] = face(fn())
    except NotImplementedError as e:  # an op we do not implement: compared where both run
        out[name] = "refuses"
'''

BODY = r'''
rt = torch._C._return_types
out["classes"] = {n: [getattr(rt, n).n_fields, list(getattr(rt, n).__match_args__)]
                  for n in dir(rt) if not n.startswith("__")}
x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]])
attempt("torch.max dim", lambda: torch.max(x, 0))
attempt("method min", lambda: x.min(1, keepdim=True))
attempt("aminmax", lambda: torch.aminmax(x, dim=1))
attempt("kthvalue", lambda: torch.kthvalue(x, 2, 1))
attempt("topk", lambda: torch.topk(x, 2))
v, i = torch.empty(3), torch.empty(3, dtype=torch.long)
attempt("max out", lambda: torch.max(x, 0, out=(v, i)))
attempt("ops spelling", lambda: torch.ops.aten.max.dim(x, 0))
m = torch.max(x, 1)
out["fields"] = [m.values.tolist(), m.indices.tolist(), m[0].tolist(), len(m)]
vals, idx = m
out["unpacked"] = [vals.tolist(), idx.tolist(), isinstance(m, tuple)]
import torch.utils._pytree as pytree
leaves, spec = pytree.tree_flatten(m)
out["pytree"] = [len(leaves), type(pytree.tree_unflatten(leaves, spec)).__name__]
'''


def test_named_returns_are_upstreams_named_tuples():
    ours, up = _both.both(PRELUDE, BODY)
    assert ours["classes"] == up["classes"] and len(up["classes"]) > 50
    for key in up:
        if "refuses" in (ours[key], up[key]):
            continue
        assert ours[key] == up[key], key
    assert ours["torch.max dim"][1] == "max" and ours["ops spelling"][1] == "tuple"
