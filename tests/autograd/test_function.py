"""torch.autograd.Function and node hooks against upstream, each side in its own process: the
examples of upstream's docs (exp with its saved output, a mark_dirty in-place, double backward
through a custom function with setup_context and mark_non_differentiable), the ctx's
attributes, upstream's refusals (wrong number of gradients, a gradient for a non-tensor input,
an in-place change of a saved tensor, backward twice), set_materialize_grads, once_differentiable,
and grad_fn.register_hook / register_prehook with their checks. Gradients are compared as bits."""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
from torch.autograd.function import once_differentiable
out = {}
def hexof(t):
    return None if t is None else t.detach().contiguous().numpy().tobytes().hex()
def err(fn):
    try:
        r = fn()
        return ["ok", r]
    except Exception as e:
        return [type(e).__name__, str(e)]

class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 3, 3 * x ** 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        ctx.save_for_backward(x, output[1])
        ctx.mark_non_differentiable(output[1])
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x

class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 3, 3 * x ** 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output[1])
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x

class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2

class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, y):
        ctx.k = k
        out["needs_input_grad"] = list(ctx.needs_input_grad)
        return x * k + y, x.argmax()
    @staticmethod
    def backward(ctx, g, g_idx):
        out["g_idx is None"] = g_idx is None
        return g * ctx.k, None, g

class Passthrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 3

class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, ga, gb):
        out.setdefault("seen", []).append([ga is None, gb is None])
        if ga is None:
            ga = torch.zeros(2)
        if gb is None:
            gb = torch.zeros(2)
        return ga * 2 + gb * 3, None

class BadCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y
    @staticmethod
    def backward(ctx, g):
        return g

class BadNonTensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g, g

class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.cos()
'''

BODY = r'''
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = Exp.apply(x)
out["exp"] = [hexof(y), type(y.grad_fn).__name__, y.grad_fn.name(), y.requires_grad,
              y.is_leaf, [type(f).__name__ for f, _ in y.grad_fn.next_functions]]
y.sum().backward()
out["exp grad"] = hexof(x.grad)
out["exp twice"] = err(lambda: y.sum().backward())

x = torch.tensor([1.0, 2.0], requires_grad=True)
y, dy = Cube.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
out["cube"] = [hexof(y), hexof(dy), dy.requires_grad, hexof(g), g.requires_grad]
g2, = torch.autograd.grad(g.sum(), x)
out["cube double"] = hexof(g2)
y, dy = MyCube.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g2, = torch.autograd.grad(g.sum(), x)
out["mycube double"] = [hexof(g), hexof(g2), dy.requires_grad]

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
c = Double.apply(b)
out["dirty"] = [c is b, type(c.grad_fn).__name__, b._version, hexof(c)]
c.sum().backward()
out["dirty grad"] = hexof(a.grad)
out["dirty leaf"] = err(lambda: Double.apply(torch.ones(2, requires_grad=True)))

x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)
z = torch.tensor([0.5, 0.5, 0.5])
r, idx = Scale.apply(x, 4.0, z)
out["scale"] = [hexof(r), idx.item(), idx.requires_grad, r.grad_fn.name()]
r.sum().backward()
out["scale grad"] = hexof(x.grad)

x = torch.tensor([1.0, 2.0], requires_grad=True)
p = Passthrough.apply(x)
out["passthrough"] = [p is x, p._is_view(), p._base is x, type(p.grad_fn).__name__]
p.sum().backward()
out["passthrough grad"] = hexof(x.grad)
with torch.no_grad():
    q = Passthrough.apply(x)
out["no_grad"] = [q.requires_grad, q.grad_fn is None, q is x]

for mat in (True, False):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u, v = TwoOut.apply(x, mat)
    u.sum().backward()
    out["materialize %s" % mat] = hexof(x.grad)

x = torch.tensor([1.0, 2.0], requires_grad=True)
out["bad count"] = err(lambda: BadCount.apply(x, x).sum().backward())
out["bad non-tensor"] = err(lambda: BadNonTensor.apply(x, 2.0).sum().backward())
out["extra Nones"] = err(lambda: [Passthrough.apply(x) is not None])

e = Exp.apply(x)
e2 = e * 1
out["saved modified"] = err(lambda: (e.add_(1), e2.sum().backward()))
out["save non-tensor"] = err(lambda: type("S", (torch.autograd.Function,), {
    "forward": staticmethod(lambda ctx, t: (ctx.save_for_backward(3), t * 1)[1]),
    "backward": staticmethod(lambda ctx, g: g)}).apply(x))

x = torch.tensor([0.3, 0.7], requires_grad=True)
s = Once.apply(x)
g, = torch.autograd.grad(s.sum(), x, create_graph=True)
out["once"] = [hexof(g), g.requires_grad, type(g.grad_fn).__name__]
out["once twice"] = err(lambda: torch.autograd.grad(g.sum(), x))

# Node hooks: a pre-hook that scales, a post-hook that sees both sides, checks on results.
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = x * x
seen = []
h1 = w.grad_fn.register_prehook(lambda go: (go[0] * 10,))
h2 = w.grad_fn.register_hook(lambda gi, go: seen.append([hexof(gi[0]), hexof(go[0])]))
w.sum().backward()
out["node hooks"] = [seen, hexof(x.grad)]
h1.remove(); h2.remove()
x.grad = None
(x * x).sum().backward()
out["after remove"] = hexof(x.grad)
def wrong_count(go):
    return (go[0], go[0])
def wrong_size(gi, go):
    return (gi[0][:1],)
def wrong_type(go):
    return [go[0]]
for hook, pre in ((wrong_count, True), (wrong_size, False), (wrong_type, True)):
    v = x * 3
    (v.grad_fn.register_prehook if pre else v.grad_fn.register_hook)(hook)
    out["hook " + hook.__name__] = err(lambda: v.sum().backward())
e = Exp.apply(x)
e.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 1,))
x.grad = None
e.sum().backward()
out["function post hook"] = hexof(x.grad)
acc = (x * 1).grad_fn.next_functions[0][0]
got = []
handle = acc.register_prehook(lambda go: got.append(hexof(go[0])))
x.grad = None
(x * 1).sum().backward()
out["AccumulateGrad prehook"] = got
handle.remove()
'''


def test_autograd_function_and_node_hooks_agree_with_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    for key in upstream:
        assert ours.get(key) == upstream[key], key
    assert ours == upstream
