"""In-place writes into views of tensors that take part in autograd, against upstream, each
side in its own process (bits as hex): the base's history becomes CopySlices, the view and the
base's other views take theirs from it again (AsStridedBackward0), setitem into a fresh buffer,
copy_/fill_/zero_ (their own derivatives), a view made under no_grad refused as upstream
refuses it, and a view read after its base changed under no_grad (an optimizer step)."""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def hexof(t):
    return None if t is None else t.detach().contiguous().numpy().tobytes().hex()
def err(fn):
    try:
        return ["ok", fn()]
    except Exception as e:
        return [type(e).__name__, str(e)]
def seeded(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).requires_grad_()
def names(fn):
    return [fn.name(), [None if f is None else f.name() for f, _ in fn.next_functions]]
'''

BODY = r'''
x = seeded(4, 3)
b = x * 1
v = b[1]
v.mul_(2)
out["mul_ on a row"] = [names(b.grad_fn), names(v.grad_fn), v._base is b]
(b.pow(2).sum() + v.sum()).backward()
out["mul_ on a row grads"] = hexof(x.grad)

x = seeded(4, 3)
b = x * 2
w = b[:, 0]
c = b[2:]
b.add_(1)
out["other views regenerated"] = [names(w.grad_fn), names(c.grad_fn)]
(w * w).sum().backward(retain_graph=True)
out["other views grads"] = hexof(x.grad)
x.grad = None
c.sum().backward()
out["other view 2 grads"] = hexof(x.grad)

a = seeded(2, seed=1)
buf = torch.zeros(5)
buf[:2] = a
buf[2:4] = a * 3
buf[4] = a.sum()
out["setitem"] = [names(buf.grad_fn), buf.requires_grad, hexof(buf)]
(buf * torch.arange(5.0)).sum().backward()
out["setitem grads"] = hexof(a.grad)

x = seeded(3, 4, seed=2)
h = x * 1.5
h[:, 1:3].mul_(h[:, 1:3].detach() + 1)
h[0].fill_(0.5)
h[:, 3].zero_()
mask = torch.tensor([True, False, True])
h[:, 0].masked_fill_(mask, -1.0)
out["chain"] = [names(h.grad_fn), hexof(h)]
h.pow(3).sum().backward()
out["chain grads"] = hexof(x.grad)

x = seeded(3, seed=3)
y = seeded(3, seed=4)
d = x * 2
d.copy_(y * 3)
out["copy_"] = names(d.grad_fn)
d.sum().backward()
out["copy_ grads"] = [hexof(x.grad), hexof(y.grad)]
z = torch.zeros(2, 3)
z[0].copy_(y)
z.sum().backward()
out["copy_ into a view of a plain buffer"] = hexof(y.grad)

def no_grad_view():
    b = seeded(3) * 1
    with torch.no_grad():
        v = b[:2]
    v.mul_(2)
out["view made under no_grad"] = err(no_grad_view)

p = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3))
row = p[0]
with torch.no_grad():
    p.add_(1)
out["after a no_grad step"] = names(row.grad_fn)
(row * row).sum().backward()
out["after a no_grad step grads"] = hexof(p.grad)
'''


def test_inplace_writes_into_views_agree_with_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    for key in upstream:
        assert ours.get(key) == upstream[key], key
    assert ours == upstream


# An in-place op whose backward reads the input it overwrites (mul_'s other edge reads self):
# autograd keeps a clone of self made before the write, with self's history (CloneBackward0),
# so both gradients and the double backward through the saved copy are upstream's; a later
# write into the result still trips the version check of what the node keeps of it.
SAVED_CLONE = r'''
a, b = seeded(5, seed=1), seeded(5, seed=2)
y = (a * 2).mul_(b)
out["names"] = names(y.grad_fn)
ga, gb = torch.autograd.grad(y.sum(), (a, b), create_graph=True)
out["grads"] = [hexof(ga), hexof(gb)]
out["double"] = hexof(torch.autograd.grad(gb.sum(), a)[0])
c = seeded(5, seed=3)
w = c * 1
v = w.mul_(c)
def later_write():
    w.add_(1)
    v.sum().backward()
    return hexof(c.grad)
out["later write"] = err(later_write)
'''


def test_an_inplace_op_keeps_a_clone_of_what_it_overwrites_as_upstream():
    ours, upstream = _both.both(PRELUDE, SAVED_CLONE)
    assert ours == upstream
