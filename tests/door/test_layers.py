"""The door in layers, seen from Python, against upstream computed in its own process.

Each snippet prints JSON under ours (.venv) and under upstream (.venv-upstream); the two must be
equal. What is checked: composites are views exactly where upstream's are (F.linear, matmul);
meta tensors combine with Python numbers and CPU scalars; versions are bumped once, by the
ADInplaceOrView layer, exactly where upstream bumps them; results of tensors that require grad
require grad (the Autograd layer) exactly where upstream's do.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
import torch.nn.functional as F
torch.manual_seed(0)
out = {}
def case(name, fn):
    try:
        out[name] = fn()
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
'''


def both(body: str):
    return _both.both(PRELUDE, body)


def test_composites_are_views_exactly_where_upstreams_are():
    ours, theirs = both(r'''
w, b = torch.randn(2, 3), torch.randn(2)
for shape in [(4, 3), (5, 4, 3), (3,), (2, 5, 4, 3)]:
    x = torch.randn(*shape)
    case(f"linear{shape}", lambda: [F.linear(x, w, b)._is_view(), list(F.linear(x, w, b).stride()),
                                    F.linear(x, w)._is_view()])
xt, w4, b2 = torch.randn(5, 3, 4).transpose(0, 1), torch.randn(2, 4), torch.randn(2)
case("linear_noncontig3d", lambda: [F.linear(xt, w4, b2)._is_view(),
                                    list(F.linear(xt, w4, b2).stride())])
pairs = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
         ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((7, 5, 2, 3), (5, 3, 4)),
         ((2, 5, 2, 3), (3,))]
for a, c in pairs:
    A, C = torch.randn(*a), torch.randn(*c)
    case(f"matmul{a}{c}", lambda: [list((A @ C).shape), (A @ C)._is_view(),
                                   list((A @ C).stride())])
    A.requires_grad_(True)
    case(f"matmul_grad{a}{c}", lambda: [(A @ C)._is_view(), (A @ C).requires_grad,
                                        (A @ C).is_leaf])
''')
    assert ours == theirs


def test_meta_tensors_combine_with_python_numbers_and_cpu_scalars():
    ours, theirs = both(r'''
m = torch.ones(3, device="meta")
h = torch.ones(2, 3, dtype=torch.float16, device="meta")
def rec(t):
    return [t.device.type, list(t.shape), str(t.dtype)]
case("meta+1", lambda: rec(m + 1))
case("2.5*half", lambda: rec(2.5 * h))
case("cpu_scalar*meta", lambda: rec(torch.tensor(2.) * m))
case("meta.add_(1)", lambda: rec(m.clone().add_(1)))
case("where", lambda: rec(torch.where(m > 0, m, 0.0)))
case("mm(meta, cpu)", lambda: rec(torch.mm(torch.ones(2, 2, device="meta"), torch.ones(2, 2))))
case("add(meta, cpu 1-d)", lambda: rec(m + torch.ones(3)))
case("out= on meta, cpu input", lambda: rec(torch.add(m, 1, out=torch.ones(3))))
case("add(cpu 1-d, meta)", lambda: rec(torch.ones(3) + m))
case("cpu.copy_(meta)", lambda: rec(torch.ones(3).copy_(m)))
case("meta.copy_(cpu)", lambda: rec(torch.empty(3, device="meta").copy_(torch.ones(3))))
case("item", lambda: m[0].item())
case("tolist", lambda: m.tolist())
''')
    assert ours == theirs


def test_versions_are_bumped_where_upstream_bumps_them():
    ours, theirs = both(r'''
def v(make):
    return make()._version
case("zeros", lambda: v(lambda: torch.zeros(3)))
case("ones", lambda: v(lambda: torch.ones(3)))
case("full", lambda: v(lambda: torch.full((2,), 3.)))
case("randn", lambda: v(lambda: torch.randn(3)))
case("arange", lambda: v(lambda: torch.arange(3)))
case("tensor", lambda: v(lambda: torch.tensor([1.])))
case("empty.fill_", lambda: v(lambda: torch.empty(3).fill_(1)))
case("clone", lambda: v(lambda: torch.randn(3).clone()))
case("add", lambda: v(lambda: torch.randn(3) + 1))
case("linear_weight", lambda: torch.nn.Linear(3, 2).weight._version)
def inplace():
    x = torch.zeros(4)
    seen = [x._version]
    x.add_(1); seen.append(x._version)
    x[0] = 5; seen.append(x._version)
    x.mul_(2).sub_(1); seen.append(x._version)
    y = x.view(2, 2); y.zero_(); seen += [x._version, y._version]
    torch.add(x, 1, out=x); seen.append(x._version)
    x.copy_(torch.ones(4)); seen.append(x._version)
    x.uniform_(); seen.append(x._version)
    return seen
case("inplace", inplace)
''')
    assert ours == theirs


def test_results_require_grad_where_upstreams_do():
    ours, theirs = both(r'''
p = torch.nn.Parameter(torch.randn(3))
x = torch.randn(3)
def g(t):
    return [t.requires_grad, t.is_leaf]
case("p*2", lambda: g(p * 2))
case("torch.add(p, x)", lambda: g(torch.add(p, x)))
case("x+x", lambda: g(x + x))
case("argmax", lambda: g(torch.argmax(p)))
case("p>0", lambda: g(p > 0))
case("p.view", lambda: g(p.view(3, 1)))
case("p[0]", lambda: g(p[0]))
case("p.double()", lambda: g(p.double()))
case("p.long()", lambda: g(p.long()))
case("linear", lambda: g(torch.nn.Linear(3, 2)(torch.randn(4, 3))))
case("softmax", lambda: g(torch.softmax(p, 0)))
def nograd():
    with torch.no_grad():
        return g(p * 2)
case("no_grad", nograd)
def inplace_on_result():
    y = x.clone(); y.add_(p); return g(y)
case("y.add_(p)", inplace_on_result)
def leaf_inplace():
    q = torch.ones(2, requires_grad=True); q.add_(1); return g(q)
case("leaf.add_", leaf_inplace)
def leaf_inplace_no_grad():
    q = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        q.mul_(2)
    return g(q) + [q._version]
case("leaf.mul_ under no_grad", leaf_inplace_no_grad)
case("leaf.requires_grad", lambda: [torch.ones(2, requires_grad=True).requires_grad,
                                    torch.ones(2, requires_grad=True).is_leaf])
''')
    assert ours == theirs
