"""Ops upstream has no derivative for record its NotImplemented node, in ours as in upstream.

Acceptance (issue 8): "Ops that upstream marks non-differentiable refuse or return None as
upstream does". An op with no derivatives.yaml entry and a CPU kernel of its own gets upstream's
NotImplemented grad_fn (tools/gen_ops.py's upstream_no_derivative decides which, with torchgen's
own test): its floating results require grad, next_functions holds one edge per input that
requires grad, and backward raises upstream's RuntimeError "derivative for aten::X is not
implemented" (set_'s, from upstream's generated code rather than its fallback, names the C++
function: "derivative for set_"). A decomposition on CPU (narrow) still records its pieces;
in-place ones refuse a leaf and take the node on a non-leaf; their out= spellings (upstream's
fallback too) refuse only an out tensor that is a leaf requiring grad, naming the operator. _fw_primal (and _unpack_dual's primal),
written by hand upstream, record its Identity node.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn.functional as F
out = {}
def case(name, fn):
    try:
        r = fn()
        if isinstance(r, tuple):
            r = r[0]
        g = r.grad_fn
        row = {"requires_grad": r.requires_grad, "dtype": str(r.dtype),
               "grad_fn": None if g is None else [type(g).__name__, g.name(),
                                                  [None if n is None else type(n).__name__
                                                   for n, _ in g.next_functions]]}
        try:
            r.sum().backward()
            row["backward"] = "ran"
        except Exception as e:
            row["backward"] = [type(e).__name__, str(e)]
        out[name] = row
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

BODY = r'''
torch.manual_seed(0)
x = torch.randn(2, 4, 3, requires_grad=True)
y = torch.randn(2, 4, 3)
idx = torch.tensor([[[0, 1, 0]]])
case("silu_backward", lambda: torch.ops.aten.silu_backward(y, x))
case("silu_backward both", lambda: torch.ops.aten.silu_backward(x * 2, x))
case("group_norm_backward", lambda: torch.ops.aten.native_group_norm_backward(
    y, x, torch.randn(2, 2), torch.rand(2, 2), None, 2, 4, 3, 2, [True, False, False]))
case("scatter.reduce", lambda: torch.scatter(x, 0, idx, y, reduce="add"))
case("scatter.value_reduce", lambda: torch.scatter(x, 0, idx, 2.0, reduce="multiply"))
case("scatter_.reduce non-leaf", lambda: (x * 1).scatter_(0, idx, y, reduce="add"))
case("scatter_.reduce leaf", lambda: x.scatter_(0, idx, y, reduce="add"))
case("bernoulli.p", lambda: torch.bernoulli(x, 0.5))
case("bernoulli_.float", lambda: (x * 1).bernoulli_(0.5))
case("remainder.Scalar_Tensor", lambda: torch.remainder(3.0, x))
case("narrow (a decomposition)", lambda: x.narrow(0, 0, 1))
case("set_ non-leaf", lambda: (x * 2).set_(y))
case("set_ leaf", lambda: x.set_(y))
case("silu_backward out=", lambda: torch.ops.aten.silu_backward.grad_input(
    y, x, grad_input=torch.empty(2, 4, 3)))
case("silu_backward out= a leaf requiring grad", lambda: torch.ops.aten.silu_backward.grad_input(
    y, x, grad_input=torch.empty(2, 4, 3, requires_grad=True)))
case("silu_backward out= a non-leaf", lambda: torch.ops.aten.silu_backward.grad_input(
    y, x.detach(), grad_input=x * 1))
case("_fw_primal", lambda: torch.ops.aten._fw_primal(x, 0))
case("_unpack_dual primal", lambda: torch.ops.aten._unpack_dual(x * 1, 0)[0])
case("randint_like (integral)", lambda: torch.randint_like(x, 10, dtype=torch.int64))
'''


def test_no_derivative_ops_record_upstreams_not_implemented_node():
    ours, upstream = _both.both(PRELUDE, BODY)
    assert ours == upstream
    # The cases reach what they are meant to: upstream's node and message.
    assert upstream["silu_backward"]["grad_fn"][1] == "torch::autograd::NotImplemented"
    assert upstream["silu_backward"]["backward"] == [
        "RuntimeError", "derivative for aten::silu_backward is not implemented"]
    assert upstream["narrow (a decomposition)"]["grad_fn"][0] == "SliceBackward0"
