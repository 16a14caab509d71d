"""Saved-tensor hooks, non-reentrant activation checkpointing and the generator's state against
upstream, each side in its own process (bits as hex): what each pack hook sees and in which
order, what unpacking gives back (with its history, so double backward reaches through it),
upstream's errors (a non-tensor from unpack, a pack hook writing its input, hooks while
disabled, a second backward), save_on_cpu, custom Functions under hooks, SavedTensor objects,
the graph task id, register_multi_grad_hook; torch.utils.checkpoint(use_reentrant=False) with
and without preserve_rng_state; Generator.get_state/set_state in upstream's byte layout."""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn as nn, torch.utils.checkpoint as cp
from torch.autograd.graph import saved_tensors_hooks
out = {}
def hexof(t):
    return None if t is None else t.detach().contiguous().numpy().tobytes().hex()
def err(fn):
    try:
        return ["ok", fn()]
    except Exception as e:
        return [type(e).__name__, str(e)]
def seeded(*shape, seed=0, grad=True, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype).requires_grad_(grad)
'''

HOOKS = r'''
seen = []
def pack(x):
    seen.append([list(x.shape), x.requires_grad, x.grad_fn.name() if x.grad_fn else None,
                 x is a, hexof(x)])
    return ("box", x.clone())
def unpack(p):
    return p[1] * 2
a = seeded(3)
b = seeded(3, seed=1)
with saved_tensors_hooks(pack, unpack):
    y = a.exp()
    z = (y * a).sum() + (a / b).sum() + torch.tanh(b).sum()
z.backward()
out["order and values"] = [seen, hexof(a.grad), hexof(b.grad)]

# Inside the context, then backward outside: unpack still runs (the hooks are the node's).
seen.clear()
a = seeded(2, 3)
w = seeded(3, 4, seed=1)
with saved_tensors_hooks(pack, lambda p: p[1]):
    y = (a @ w).relu()
g, = torch.autograd.grad(y.sum(), w, create_graph=True)
gg, = torch.autograd.grad(g.pow(2).sum(), a)
out["mm relu double backward"] = [len(seen), hexof(g), hexof(gg)]

# Double backward through hooked saves: x.exp() saves its result, unpacked with history.
x = seeded(4)
with saved_tensors_hooks(lambda t: t, lambda t: t):
    y = x.exp()
    gx, = torch.autograd.grad(y.sum(), x, create_graph=True)
    ggx, = torch.autograd.grad(gx.sum(), x)
out["exp hessian"] = [hexof(gx), hexof(ggx)]

# Nesting: the innermost pair packs; popping restores the outer.
tags = []
with saved_tensors_hooks(lambda t: tags.append("outer") or t, lambda t: t):
    with saved_tensors_hooks(lambda t: tags.append("inner") or t, lambda t: t):
        y1 = seeded(2).exp()
    y2 = seeded(2).exp()
out["nesting"] = tags

def bad_unpack():
    x = seeded(3)
    with saved_tensors_hooks(lambda t: t, lambda t: 7):
        y = x.exp()
    y.sum().backward()
out["unpack returns int"] = err(bad_unpack)
def writes_input():
    x = seeded(3)
    with saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
        (x * 1).exp()
out["pack writes input"] = err(writes_input)
def twice():
    x = seeded(3)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.exp().sum()
    y.backward()
    y.backward()
out["second backward"] = err(twice)
def retained():
    x = seeded(3)
    n = []
    with saved_tensors_hooks(lambda t: t, lambda t: n.append(1) or t):
        y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    return [len(n), hexof(x.grad)]
out["retain_graph"] = err(retained)
def disabled():
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        out["enabled inside"] = torch._C._autograd._saved_tensors_hooks_is_enabled()
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
out["disabled"] = err(disabled)
out["enabled after"] = torch._C._autograd._saved_tensors_hooks_is_enabled()
out["message after"] = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()

# save_on_cpu (pin_memory off): the saved tensors take a round trip through a CPU copy.
x = seeded(3, 5)
w = seeded(5, 2, seed=3)
with torch.autograd.graph.save_on_cpu():
    loss = torch.sigmoid(x @ w).sum()
loss.backward()
out["save_on_cpu"] = [hexof(x.grad), hexof(w.grad)]

# A custom Function's save_for_backward goes through the hooks too.
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        r = i.exp()
        ctx.save_for_backward(r, i)
        return r
    @staticmethod
    def backward(ctx, g):
        r, i = ctx.saved_tensors
        return g * r + 0 * i
seen.clear()
a = seeded(3)
with saved_tensors_hooks(pack, unpack):
    y = Exp.apply(a)
y.sum().backward()
out["custom function"] = [[s[:3] for s in seen], hexof(a.grad)]

# SavedTensor objects (what non-reentrant checkpointing keeps its inputs in).
from torch._C._autograd import _make_saved_tensor, SavedTensor
t = seeded(3)
st = _make_saved_tensor(t, is_output=False)
out["SavedTensor"] = [type(st).__name__, st.unpack() is t, isinstance(st, SavedTensor)]
t.data.mul_(1)
with torch.no_grad():
    t.add_(1)
out["SavedTensor after in-place"] = err(lambda: hexof(st.unpack()))
st2 = _make_saved_tensor(seeded(2), is_output=False)
st2.register_hooks(lambda x: x.tolist(), lambda l: torch.tensor(l) * 3)
out["register_hooks"] = [hexof(st2.unpack()), err(lambda: st2.register_hooks(lambda x: x, lambda x: x))]

# The graph task id: -1 outside backward, one id per backward run inside.
ids = []
x = seeded(3)
y = x.exp()
y.register_hook(lambda g: ids.append(torch._C._current_graph_task_id()))
out["task id outside"] = torch._C._current_graph_task_id()
y.sum().backward(retain_graph=True)
y.sum().backward()
out["task ids"] = [len(ids), ids[0] >= 0, ids[0] != ids[1]]
out["current node outside"] = torch._C._current_autograd_node() is None

# register_multi_grad_hook (mode "all"): runs once, with every gradient (None where unused).
a, b, c = seeded(2), seeded(2, seed=1), seeded(2, seed=2)
got = []
torch.autograd.graph.register_multi_grad_hook(
    (a, b, c), lambda gs: got.append([None if g is None else hexof(g) for g in gs]))
(a * b).exp().sum().backward()
out["multi grad hook"] = got
'''

CHECKPOINT = r'''
def net(p=0.0):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(p), nn.Linear(8, 3))
for preserve in (False, True):
    m = net(0.5 if preserve else 0.0)
    x = seeded(5, 4, seed=1)
    torch.manual_seed(3)
    y = cp.checkpoint(m, x, use_reentrant=False, preserve_rng_state=preserve)
    y.pow(2).sum().backward()
    out[f"non-reentrant preserve={preserve}"] = [hexof(y), hexof(x.grad),
                                                 [hexof(p.grad) for p in m.parameters()]]
m = net()
x = seeded(5, 4, seed=1)
y = cp.checkpoint(m, x, use_reentrant=False)
gx, = torch.autograd.grad(y.sum(), x)
out["non-reentrant autograd.grad"] = hexof(gx)
m = net()
y = cp.checkpoint_sequential(m, 2, x, use_reentrant=False)
y.sum().backward()
out["checkpoint_sequential"] = [hexof(y), [hexof(p.grad) for p in m.parameters()]]

# Recomputation that saves different tensors than the forward did is refused.
state = {"n": 0}
def changes(t):
    state["n"] += 1
    return t.exp() if state["n"] == 1 else t.exp().exp()
def mismatch():
    x = seeded(3)
    cp.checkpoint(changes, x, use_reentrant=False).sum().backward()
out["recompute mismatch"] = err(mismatch)
'''

RNG = r'''
g = torch.Generator().manual_seed(1234)
out["fresh state"] = [list(g.get_state().shape), str(g.get_state().dtype), hexof(g.get_state())]
torch.randn(3, generator=g)
out["after float randn"] = hexof(g.get_state())
cached = torch.Generator().set_state(g.get_state())  # a normal sample is cached: it moves too
out["cached normal moves"] = [hexof(torch.randn(3, generator=cached)),
                              hexof(torch.randn(3, generator=g))]
torch.randn(3, dtype=torch.float64, generator=g)
torch.randn(20, generator=g)
out["after more draws"] = hexof(g.get_state())
s = g.get_state()
a = torch.rand(5, generator=g)
g.set_state(s)
out["replay"] = [hexof(a), hexof(torch.rand(5, generator=g)), g.initial_seed()]
g2 = torch.Generator()
g2.set_state(s)
out["moved"] = [hexof(torch.randn(7, generator=g2)), g2.initial_seed()]
out["bad size"] = err(lambda: g.set_state(torch.zeros(10, dtype=torch.uint8)))
out["bad dtype"] = err(lambda: g.set_state(torch.zeros(5056)))
out["bad type"] = err(lambda: g.set_state([1, 2]))
bad = s.clone()
bad[12:16] = 0
out["not seeded"] = err(lambda: g.set_state(bad))
out["legacy size"] = err(lambda: hexof(g.set_state(s[:5048].clone()).get_state()))
torch.manual_seed(7)
st = torch.get_rng_state()
r1 = torch.rand(3)
torch.set_rng_state(st)
out["global"] = [hexof(r1), hexof(torch.rand(3))]
with torch.random.fork_rng():
    torch.rand(10)
out["fork_rng"] = hexof(torch.rand(2))
'''


def _agree(body):
    ours, upstream = _both.both(PRELUDE, body)
    for key in upstream:
        assert ours.get(key) == upstream[key], key
    assert ours == upstream


def test_saved_tensor_hooks_agree_with_upstream():
    _agree(HOOKS)


def test_non_reentrant_checkpoint_agrees_with_upstream():
    _agree(CHECKPOINT)


def test_generator_state_agrees_with_upstream():
    _agree(RNG)
