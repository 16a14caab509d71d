"""The foreach ops' derivatives (issue 8: "`_foreach_*` ops (optimizers' default path)").

Acceptance: a foreach op records what upstream's generated code records, derived element by
element from its per-tensor op's formula (torchgen's gen_foreach_derivativeinfo), in ours as in
upstream, each in its own process. Out of place: one node over every element, named as
upstream's (ForeachMulBackward0List, ForeachPowBackward2 ...), its edges argument by argument
and element by element; every element's gradient bit-identical to upstream's; an element whose
result gets no gradient gets none. In place: one node per element, the per-tensor op's
(MulBackward0), each element's history rebased (CopySlices for a view); a leaf refuses with
upstream's error. Upstream's own refusals (_foreach_mul.Tensor's shared tensor, addcdiv's
tensor2[i][i]) are reproduced. (A formula we lack refuses by name at backward:
tests/cpp/test_foreach_grad.cpp, as no foreach op with a kernel lacks one.)
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
torch.manual_seed(0)
def leaves(n=2, shape=(3, 4), low=0.5):
    return [(torch.rand(shape, dtype=torch.float32) * 3 + low).requires_grad_(True)
            for _ in range(n)]
def names(g):
    return None if g is None else [g.name(), [None if n is None else n.name()
                                                for n, _ in g.next_functions]]
def grads_of(ts):
    return [None if t is None else [str(t.dtype), list(t.shape), t.flatten().tolist()]
            for t in ts]
def case(name, fn, inputs, cot_seed=1):
    try:
        rs = fn()
        g = torch.Generator().manual_seed(cot_seed)
        cots = [torch.randn(r.shape, generator=g, dtype=r.dtype) for r in rs]
        row = {"grad_fn": [names(r.grad_fn) for r in rs],
               "one_node": all(r.grad_fn is rs[0].grad_fn for r in rs),
               "edges_are_leaves": [n is not None and n.variable is t for (n, _), t in
                                    zip(rs[0].grad_fn.next_functions, inputs)]}
        try:
            row["grads"] = grads_of(torch.autograd.grad(rs, inputs, cots, allow_unused=True))
        except Exception as e:
            row["grads"] = [type(e).__name__, str(e)]
        out[name] = row
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

OUT_OF_PLACE = r'''
a, b, c = leaves(), leaves(), leaves()
s = torch.tensor(0.75)
F = torch
cases = {
    "mul.List": (lambda: F._foreach_mul(a, b), a + b),
    "mul.Scalar": (lambda: F._foreach_mul(a, 2.5), a),
    "mul.ScalarList": (lambda: F._foreach_mul(a, [2.5, -1.5]), a),
    "mul.Tensor": (lambda: F._foreach_mul(a, s), a),
    "add.List alpha": (lambda: F._foreach_add(a, b, alpha=0.5), a + b),
    "add.Scalar": (lambda: F._foreach_add(a, 2.5), a),
    "add.Tensor": (lambda: F._foreach_add(a, s, alpha=2), a),
    "sub.List": (lambda: F._foreach_sub(a, b, alpha=3), a + b),
    "div.List": (lambda: F._foreach_div(a, b), a + b),
    "div.ScalarList": (lambda: F._foreach_div(a, [2.5, 3.0]), a),
    "div.Tensor": (lambda: F._foreach_div(a, s), a),
    "exp": (lambda: F._foreach_exp(a), a),
    "sqrt": (lambda: F._foreach_sqrt(a), a),
    "rsqrt": (lambda: F._foreach_rsqrt(a), a),
    "neg": (lambda: F._foreach_neg(a), a),
    "log": (lambda: F._foreach_log(a), a),
    "sigmoid": (lambda: F._foreach_sigmoid(a), a),
    "tanh": (lambda: F._foreach_tanh(a), a),
    "reciprocal": (lambda: F._foreach_reciprocal(a), a),
    "abs": (lambda: F._foreach_abs(a), a),
    "sign": (lambda: F._foreach_sign(a), a),
    "max": (lambda: F._foreach_max(a), a),
    "clone": (lambda: F._foreach_clone(a), a),
    "pow.List": (lambda: F._foreach_pow(a, b), a + b),
    "pow.Scalar": (lambda: F._foreach_pow(a, 2.5), a),
    "pow.ScalarList": (lambda: F._foreach_pow(a, [2.5, 0.5]), a),
    "pow.ScalarAndTensor": (lambda: F._foreach_pow(2.5, a), a),
    "addcmul.Scalar": (lambda: F._foreach_addcmul(a, b, c, 0.5), a + b + c),
    "addcmul.ScalarList": (lambda: F._foreach_addcmul(a, b, c, [0.5, 2.0]), a + b + c),
    "addcdiv.Scalar": (lambda: F._foreach_addcdiv(a, b, c, 0.5), a + b + c),
    "addcdiv.ScalarList": (lambda: F._foreach_addcdiv(a, b, c, [0.5, 2.0]), a + b + c),
    "lerp.Scalar": (lambda: F._foreach_lerp(a, b, 0.25), a + b),
    "lerp.ScalarList": (lambda: F._foreach_lerp(a, b, [0.25, 0.75]), a + b),
    "lerp.List": (lambda: F._foreach_lerp(a, b, c), a + b + c),
    "clamp_min.Scalar": (lambda: F._foreach_clamp_min(a, 2.0), a),
    "clamp_max.List": (lambda: F._foreach_clamp_max(a, b), a + b),
    "maximum.List": (lambda: F._foreach_maximum(a, b), a + b),
    "maximum.Scalar": (lambda: F._foreach_maximum(a, 2.0), a),
    "minimum.ScalarList": (lambda: F._foreach_minimum(a, [2.0, 1.5]), a),
    "mm": (lambda: F._foreach_mm(a, [t.detach().t().requires_grad_() for t in b]), a),
}
for name, (fn, inputs) in cases.items():
    case(name, fn, inputs)
'''


def test_out_of_place_gradients_bits_and_nodes_agree():
    ours, upstream = _both.both(PRELUDE, OUT_OF_PLACE)
    assert ours == upstream
    # The cases reach what they are meant to: one node per call, upstream's names, gradients.
    assert upstream["mul.List"]["grad_fn"][0][0] == "ForeachMulBackward0List"
    assert upstream["mul.List"]["one_node"] and all(upstream["mul.List"]["edges_are_leaves"])
    assert upstream["pow.ScalarAndTensor"]["grad_fn"][0][0] == "ForeachPowBackward2"
    assert upstream["mul.Tensor"]["grad_fn"][0][1] == ["torch::autograd::AccumulateGrad"] * 2 + [
        None]
    assert all(g is not None for g in upstream["addcdiv.ScalarList"]["grads"])


QUIRKS = r'''
a, b, c = leaves(), leaves(), leaves()
s = torch.tensor(0.75, requires_grad=True)
# Only element 0's result is used: element 1 gets no gradient (None), as upstream's.
r = torch._foreach_exp(a)
out["partial"] = grads_of(torch.autograd.grad([r[0].sum()], a, allow_unused=True))
# Upstream's copy_range refuses a shared tensor's gradient list of two elements...
case("mul.Tensor other requires grad", lambda: torch._foreach_mul(a, s), a + [s])
# ... and takes one of one element (two values: the reduction to s's shape is one addition).
one = leaves(1, (2,))
case("mul.Tensor one element", lambda: torch._foreach_mul(one, s), one + [s])
# addcdiv's formula reads tensor2[i][i]: element 1 of shape (1,) has no row 1.
p, q, t = leaves(2, (1,)), leaves(2, (1,)), leaves(2, (1,))
case("addcdiv (1,)", lambda: torch._foreach_addcdiv(p, q, t, 0.5), p + q + t)
case("addcdiv (1,) tensor2 not needed",
     lambda: torch._foreach_addcdiv(p, q, [x.detach() for x in t], 0.5), p + q)
# Double backward through a foreach node.
x = leaves()
r = torch._foreach_mul(x, x)
g = torch.autograd.grad([t.sum() for t in r], x, create_graph=True)
out["double"] = [names(t.grad_fn) for t in g] + grads_of(
    torch.autograd.grad([t.sum() for t in g], x))
# A saved input changed in place since: refused at backward.
u = [t * 1 for t in leaves()]
r = torch._foreach_mul(a, u)
u[0].add_(1)
try:
    torch.autograd.grad([t.sum() for t in r], a)
    out["modified"] = "ran"
except Exception as e:
    out["modified"] = type(e).__name__
# Saved-tensor hooks see what upstream's node saves: out of place every saved input, list by
# list in its order of names, a single tensor once; in place what each element's formula reads.
def packs(fn):
    seen = []
    def pack(t):
        seen.append([list(t.shape), t.requires_grad,
                     None if t.grad_fn is None else t.grad_fn.name()])
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return seen
plain = [t.detach() for t in leaves()]
selfs = [t * 1 for t in a]
out["packs"] = {
    "mul.List one side": packs(lambda: torch._foreach_mul(a, plain)),
    "mul.Tensor": packs(lambda: torch._foreach_mul(a, s)),
    "add.Scalar": packs(lambda: torch._foreach_add(a, 2.5)),
    "addcdiv.Scalar": packs(lambda: torch._foreach_addcdiv(a, b, plain, 0.5)),
    "exp": packs(lambda: torch._foreach_exp(a)),
    "norm": packs(lambda: torch._foreach_norm(a)),
    "mul_.List": packs(lambda: torch._foreach_mul_(selfs, b)),
}
# retain_graph=False frees what was saved; a second backward refuses.
r = torch._foreach_mul(a, b)
torch.autograd.grad([t.sum() for t in r], a, retain_graph=False)
try:
    torch.autograd.grad([t.sum() for t in r], a)
    out["freed"] = "ran"
except Exception as e:
    out["freed"] = [type(e).__name__, str(e)]
'''


def test_upstreams_quirks_and_edges_agree():
    ours, upstream = _both.both(PRELUDE, QUIRKS)
    assert ours == upstream
    assert upstream["partial"][1] is None and upstream["partial"][0] is not None
    assert upstream["mul.Tensor other requires grad"]["grads"] == [
        "RuntimeError", "inconsistent range for TensorList output"]
    assert upstream["mul.Tensor one element"]["grads"][1] is not None
    assert upstream["addcdiv (1,)"]["grads"][0] == "IndexError"
    assert upstream["addcdiv (1,) tensor2 not needed"]["grads"][0] is not None
    assert upstream["modified"] == "RuntimeError" and upstream["freed"][0] == "RuntimeError"
    assert [p[1] for p in upstream["packs"]["mul.List one side"]] == [False, False, True, True]
    assert len(upstream["packs"]["mul.Tensor"]) == 3


IN_PLACE = r'''
def hist(ts):
    return [[names(t.grad_fn), t.requires_grad, t.is_leaf, t._version] for t in ts]
a, b, c = leaves(3), leaves(3), leaves(3)
# Non-leaf selfs: each element's history rebased onto its own MulBackward0 (element 2's
# self does not require grad, its other does).
selfs = [a[0] * 1, a[1] * 1, a[2].detach() * 1]
torch._foreach_mul_(selfs, b)
out["mul_.List"] = hist(selfs)
out["mul_.List grads"] = grads_of(torch.autograd.grad([t.sum() for t in selfs], a + b,
                                                      allow_unused=True))
# Elements that need no node keep their history (none).
plain = [torch.ones(2), torch.ones(2)]
torch._foreach_add_(plain, 1.5)
out["no grad"] = hist(plain)
for name, fn, ins in [
        ("exp_", lambda s: torch._foreach_exp_(s), a),
        ("sqrt_", lambda s: torch._foreach_sqrt_(s), a),
        ("mul_.Scalar", lambda s: torch._foreach_mul_(s, 2.5), a),
        ("div_.Tensor", lambda s: torch._foreach_div_(s, torch.tensor(0.5)), a),
        ("addcmul_.Scalar", lambda s: torch._foreach_addcmul_(s, b, c, 0.5), a + b + c),
        ("addcdiv_.ScalarList", lambda s: torch._foreach_addcdiv_(s, b, c, [0.5, 1, 2]),
         a + b + c),
        ("lerp_.List", lambda s: torch._foreach_lerp_(s, b, c), a + b + c),
        ("pow_.ScalarList", lambda s: torch._foreach_pow_(s, [2.0, 0.5, 3.0]), a),
        ("clamp_min_.List", lambda s: torch._foreach_clamp_min_(s, b), a + b),
        ("zero_", lambda s: torch._foreach_zero_(s), a),
        ("maximum_.Scalar (no formula upstream)", lambda s: torch._foreach_maximum_(s, 2.0),
         a),
        ("copy_ (no formula upstream)", lambda s: torch._foreach_copy_(s, b), a + b)]:
    selfs = [t * 1 for t in a]
    try:
        fn(selfs)
        row = {"hist": hist(selfs)}
        try:
            row["grads"] = grads_of(torch.autograd.grad([t.sum() for t in selfs], ins,
                                                        allow_unused=True))
        except Exception as e:
            row["grads"] = [type(e).__name__, str(e)]
        out[name] = row
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
# In place into views of a non-leaf: the base's history goes through CopySlices.
base = a[0] * 1
views = [base[0], base[1:]]
torch._foreach_mul_(views, 2.0)
out["views"] = [hist(views), names(base.grad_fn),
                grads_of(torch.autograd.grad([base.sum()], [a[0]]))]
# Leaves that require grad refuse, as upstream's check_inplace; a view of one too.
for name, fn in [("leaf", lambda: torch._foreach_mul_(a, 2.0)),
                 ("leaf other", lambda: torch._foreach_add_([a[0]], [b[0] * 1])),
                 ("view of leaf", lambda: torch._foreach_mul_([a[0][0]], 2.0))]:
    try:
        fn()
        out[name] = "ran"
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
'''


def test_in_place_rebases_each_element_and_refuses_leaves():
    ours, upstream = _both.both(PRELUDE, IN_PLACE)
    assert ours == upstream
    assert [h[0][0] for h in upstream["mul_.List"]] == ["MulBackward0"] * 3
    assert upstream["views"][1][0] == "torch::autograd::CopySlices"
    assert upstream["leaf"] == ["RuntimeError", "a leaf Variable that requires grad is being "
                                "used in an in-place operation."]
    assert upstream["view of leaf"][0] == "RuntimeError"
    assert upstream["copy_ (no formula upstream)"]["grads"] == [
        "RuntimeError", "derivative for _foreach_copy_ is not implemented"]


NORM = r'''
for ord in [1, 2, 3, 1.5, 0.5, float("inf"), 0, 4]:
    a = [torch.randn(3, 4).requires_grad_(), torch.zeros(2, 2).requires_grad_(),
         torch.tensor([1.0, -3.0, 3.0]).requires_grad_()]
    r = torch._foreach_norm(a, ord)
    out[str(ord)] = [names(r[0].grad_fn)] + grads_of(
        torch.autograd.grad([t * 1.7 for t in r], a, allow_unused=True))
'''


def test_norm_takes_upstreams_own_formula_for_every_ord():
    # derivatives.yaml's own _foreach_norm.Scalar formula (norm_backward), each ord's branch:
    # 0 gives no gradient, inf shares it among ties (-3 and 3), a zero tensor's norm is 0.
    ours, upstream = _both.both(PRELUDE, NORM)
    assert ours == upstream
    assert upstream["0"][1:] == [None, None, None]
    assert upstream["inf"][0][0] == "ForeachNormBackward0"



META = r'''
# Differentiable SGD steps through its foreach path (_foreach_add_, _foreach_mul_ recorded on
# non-leaf parameters and buffers), then a gradient through the steps back to the initial
# weights; with weight decay upstream's own saved tensors are overwritten by the later step,
# which both refuse alike.
for steps in (1, 2):
    for wd in (0, 0.01):
        for mom in (0, 0.9):
            torch.manual_seed(0)
            w0 = torch.randn(3, 2, requires_grad=True)
            w = w0.clone()
            x = torch.randn(4, 3)
            opt = torch.optim.SGD([w], lr=0.1, momentum=mom, weight_decay=wd,
                                  differentiable=True, foreach=True)
            for _ in range(steps):
                g, = torch.autograd.grad((x @ w).pow(2).sum(), w, create_graph=True)
                w.grad = g
                opt.step()
            key = f"{steps} {wd} {mom}"
            try:
                out[key] = [names(w.grad_fn)] + grads_of(
                    torch.autograd.grad((x @ w).sum(), w0))
            except Exception as e:
                out[key] = [type(e).__name__, str(e)]
'''


def test_differentiable_sgd_steps_through_foreach_agree():
    ours, upstream = _both.both(PRELUDE, META)
    assert ours == upstream
    assert upstream["2 0 0.9"][0][0] == "AddBackward0"
    assert upstream["2 0.01 0.9"][0] == "RuntimeError"
