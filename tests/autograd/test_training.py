"""Seeded training loops against upstream, step by step, each side in its own process (issue 8).

An MLP (Linear, Tanh, Linear; mean squared error written out) takes five steps with every
optimizer upstream ships on the CPU, through its for-loop path and its foreach path, each step
with clip_grad_norm_ (which groups tensors and runs _foreach_norm / _foreach_mul_): the forward
and backward are bit-identical to upstream's (the cascade sum of bias gradients, MKL's GEMM and
vector math, addcmul/addcdiv/lerp with upstream's contractions), so every loss and every final
parameter must carry upstream's bits. Also: learning-rate schedulers, an optimizer's state_dict
round trip, and the profiler's record_function that every step enters.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn as nn
out = {}
def hexof(t):
    return t.detach().contiguous().numpy().tobytes().hex()
def mlp(width=16):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, width), nn.Tanh(), nn.Linear(width, 4))
def data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(32, 8, generator=g), torch.randn(32, 4, generator=g)
def train(make_opt, steps=5, sched=None, clip=True, width=16):
    model = mlp(width)
    opt = make_opt(model.parameters())
    s = sched(opt) if sched else None
    x, y = data()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if s:
            s.step()
        losses.append(loss.item().hex())
    return {"losses": losses, "params": [hexof(p) for p in model.parameters()]}
def case(name, make_opt, **kw):
    try:
        out[name] = train(make_opt, **kw)
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

OPTIMIZERS = r'''
O = torch.optim
configs = {
    "sgd": lambda p, f: O.SGD(p, lr=0.1, foreach=f),
    "sgd_momentum": lambda p, f: O.SGD(p, lr=0.1, momentum=0.9, foreach=f),
    "sgd_nesterov_wd": lambda p, f: O.SGD(p, lr=0.1, momentum=0.9, nesterov=True,
                                          weight_decay=0.01, foreach=f),
    "adam": lambda p, f: O.Adam(p, lr=1e-2, foreach=f),
    "adam_amsgrad_wd": lambda p, f: O.Adam(p, lr=1e-2, amsgrad=True, weight_decay=0.1,
                                           foreach=f),
    "adamw": lambda p, f: O.AdamW(p, lr=1e-2, foreach=f),
    "adamw_amsgrad": lambda p, f: O.AdamW(p, lr=1e-2, amsgrad=True, foreach=f),
    "rmsprop": lambda p, f: O.RMSprop(p, lr=1e-2, foreach=f),
    "rmsprop_centered": lambda p, f: O.RMSprop(p, lr=1e-2, momentum=0.5, centered=True,
                                               foreach=f),
    "adagrad": lambda p, f: O.Adagrad(p, lr=0.1, foreach=f),
    "adadelta": lambda p, f: O.Adadelta(p, foreach=f),
    "adamax": lambda p, f: O.Adamax(p, foreach=f),
    "nadam": lambda p, f: O.NAdam(p, foreach=f),
    "radam": lambda p, f: O.RAdam(p, foreach=f),
}
for name, make in configs.items():
    for f in (False, True):
        case(f"{name} foreach={f}", lambda p, make=make, f=f: make(p, f))
case("no clip", lambda p: O.SGD(p, lr=0.1), clip=False)
# fused=True: one _fused_adam(w)_ pass per parameter, split among threads as upstream splits it
# (the split decides which elements take its vector body and which its scalar tail).
fused = {
    "adam fused": lambda p: O.Adam(p, lr=1e-2, fused=True),
    "adam fused wd maximize": lambda p: O.Adam(p, lr=1e-2, weight_decay=0.1, maximize=True,
                                               fused=True),
    "adamw fused": lambda p: O.AdamW(p, lr=1e-2, fused=True),
    "adamw fused amsgrad wd": lambda p: O.AdamW(p, lr=1e-2, amsgrad=True, weight_decay=0.1,
                                                fused=True),
    "adamw fused tensor lr": lambda p: O.AdamW(p, lr=torch.tensor(1e-2), fused=True),
}
for threads in (1, 2, 3):
    torch.set_num_threads(threads)
    for name, make in fused.items():
        case(f"{name} threads={threads}", make)
    case(f"adamw fused width 100 threads={threads}", lambda p: O.AdamW(p, lr=1e-2, fused=True),
         steps=3, width=100)
torch.set_num_threads(1)
'''


def compare(ours: dict, up: dict) -> list[str]:
    assert ours.keys() == up.keys()
    bad = []
    for name, want in up.items():
        got = ours[name]
        assert "raises" not in want, (name, want)
        if got != want:
            what = "raises " + str(got["raises"]) if "raises" in got else (
                "losses differ" if got["losses"] != want["losses"] else "parameters differ")
            bad.append(f"{name}: {what}")
    return bad


def test_every_optimizer_trains_bit_for_bit_as_upstream():
    ours, up = _both.both(PRELUDE, OPTIMIZERS)
    bad = compare(ours, up)
    assert not bad, "\n".join(bad)


SCHEDULERS = r'''
O, S = torch.optim, torch.optim.lr_scheduler
case("step_lr", lambda p: O.SGD(p, lr=0.1, momentum=0.9),
     sched=lambda o: S.StepLR(o, step_size=2, gamma=0.5), steps=6)
case("cosine", lambda p: O.AdamW(p, lr=1e-2), sched=lambda o: S.CosineAnnealingLR(o, T_max=4),
     steps=6)
case("one_cycle", lambda p: O.SGD(p, lr=0.1, momentum=0.9),
     sched=lambda o: S.OneCycleLR(o, max_lr=0.2, total_steps=6), steps=6)
case("lambda", lambda p: O.Adam(p, lr=1e-2),
     sched=lambda o: S.LambdaLR(o, lambda e: 1.0 / (1 + e)), steps=6)
# state_dict round trip: three steps, a fresh optimizer loaded from the first's state, two more.
model = mlp()
opt = O.Adam(model.parameters(), lr=1e-2)
x, y = data()
def step(o):
    o.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    o.step()
    return loss.item().hex()
losses = [step(opt) for _ in range(3)]
state = opt.state_dict()
opt2 = O.Adam(model.parameters(), lr=1e-2)
opt2.load_state_dict(state)
losses += [step(opt2) for _ in range(2)]
out["state_dict"] = {"losses": losses, "params": [hexof(p) for p in model.parameters()],
                     "steps": [float(v["step"]) for v in opt2.state_dict()["state"].values()]}
with torch.autograd.profiler.record_function("my_region") as r:
    t = torch.ones(2) * 3
out["record_function"] = {"type": type(r.record).__name__, "value": hexof(t)}
'''


def test_schedulers_state_dict_and_record_function_are_upstreams():
    ours, up = _both.both(PRELUDE, SCHEDULERS)
    assert ours == up
