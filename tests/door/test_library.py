"""torch.library's Python kernels through the door, against upstream in its own process.

Upstream's own examples from its docs (torch.library.custom_op's numpy_sin with register_fake,
Library.impl's div_cpu override of an aten op), adapted to print what they compute: results,
meta shapes, version bumps, the dispatch log a mode sees, what a library's end restores, the
refusals and the dispatcher's answers about kernels.
"""

from __future__ import annotations

import math

from tests.door import _both

PRELUDE = r'''
import json, warnings
import numpy as np
import torch
from torch import Tensor
from torch.library import Library
from torch.utils._python_dispatch import TorchDispatchMode
out = {}
def case(name, fn):
    try:
        out[name] = fn()
    except Exception as e:
        out[name] = ["raises", type(e).__name__, str(e).split("\n")[0]]
class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
'''


def both(body: str):
    return _both.both(PRELUDE, body)


def test_custom_op_with_a_fake_kernel_runs_as_upstreams():
    """torch.library.custom_op's docs example: numpy_sin on CPU, its fake kernel on meta, the
    torch.ops spelling, and what a logging mode sees of it."""
    ours, theirs = both(r'''
@torch.library.custom_op("mylib::numpy_sin", mutates_args=())
def numpy_sin(x: Tensor) -> Tensor:
    return torch.from_numpy(np.sin(x.cpu().numpy())).to(device=x.device)
@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)
x = torch.linspace(-2, 2, 7)
case("cpu", lambda: numpy_sin(x).tolist())
case("ops", lambda: torch.ops.mylib.numpy_sin.default(x).tolist())
case("meta", lambda: [list(numpy_sin(torch.empty(3, 5, device="meta")).shape),
                      str(numpy_sin(torch.empty(3, 5, device="meta")).device)])
def logged():
    with Log() as log:
        numpy_sin(x) + 1
    return log.ops
case("log", logged)
case("has", lambda: [torch._C._dispatch_has_kernel_for_dispatch_key("mylib::numpy_sin", k)
                     for k in ("CPU", "Meta", "CompositeExplicitAutograd", "Autograd",
                               "CompositeImplicitAutograd")])
case("wrong", lambda: numpy_sin(x, x))
''')
    assert ours == theirs
    assert abs(ours["cpu"][0] - math.sin(-2.0)) < 1e-6 and ours["meta"] == [[3, 5], "meta"]


def test_a_mutating_custom_op_bumps_the_version_once():
    ours, theirs = both(r'''
@torch.library.custom_op("mylib::sin_", mutates_args=["x"])
def sin_(x: Tensor) -> None:
    a = x.numpy()
    np.sin(a, out=a)
def run():
    y = torch.linspace(0, 1, 5)
    v = y._version
    sin_(y)
    return [y.tolist(), y._version - v]
case("mutate", run)
''')
    assert ours == theirs
    assert ours["mutate"][1] == 1


def test_library_impl_overrides_an_aten_kernel_and_its_end_restores_it():
    """Library.impl's docs example (div_cpu for aten::div.Tensor on CPU), made visible by an
    offset: the override runs, warns once as upstream's does, and _destroy() brings back the
    kernel it hid; a second override hides the first until it ends."""
    ours, theirs = both(r'''
def div(a, b): return torch.div(a, b).tolist()
one, four = torch.ones(2), torch.full((2,), 4.0)
lib = Library("aten", "IMPL")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    lib.impl("div.Tensor", lambda self, other: self * (1 / other) + 100, "CPU")
out["warned"] = [str(x.category.__name__) for x in w]
out["override"] = div(one, four)
lib2 = Library("aten", "IMPL")
with warnings.catch_warnings(record=True) as w2:
    warnings.simplefilter("always")
    lib2.impl("div.Tensor", lambda self, other: self * 0 - 7, "CPU")
out["warned again"] = len(w2)
out["second"] = div(one, four)
lib2._destroy()
out["first back"] = div(one, four)
lib._destroy()
out["restored"] = div(one, four)
out["meta untouched"] = list(torch.div(torch.ones(2, device="meta"), 4.0).shape)
''')
    assert ours == theirs
    assert ours["override"] == [100.25, 100.25] and ours["restored"] == [0.25, 0.25]


def test_a_defined_op_runs_its_python_kernels_by_key():
    """Library DEF + define + impl at CompositeExplicitAutograd (every back end), at CPU only
    (Meta then refused in upstream's words), then register_fake; and the OpOverload's
    redispatch on an explicit key set."""
    ours, theirs = both(r'''
lib = Library("mylib2", "DEF")
lib.define("twice(Tensor x) -> Tensor")
lib.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")
case("twice", lambda: torch.ops.mylib2.twice(torch.arange(3.)).tolist())
case("twice meta", lambda: list(torch.ops.mylib2.twice(torch.ones(2, 2, device="meta")).shape))
lib.define("thrice(Tensor x) -> Tensor")
torch.library.impl(lib, "thrice", "CPU")(lambda x: x * 3)
case("thrice", lambda: torch.ops.mylib2.thrice(torch.arange(3.)).tolist())
case("thrice meta", lambda: torch.ops.mylib2.thrice(torch.ones(2, device="meta")))
torch.library.register_fake("mylib2::thrice", lambda x: torch.empty_like(x))
case("thrice fake", lambda: list(torch.ops.mylib2.thrice(torch.ones(4, device="meta")).shape))
lib.define("keyed(Tensor x) -> Tensor")
def keyed(keyset, x):
    return torch.ops.mylib2.twice.default.redispatch(keyset, x) + 1
lib.impl("keyed", keyed, "CPU", with_keyset=True)
case("keyed", lambda: torch.ops.mylib2.keyed(torch.arange(3.)).tolist())
case("redispatch", lambda: torch.ops.mylib2.twice.default.redispatch(
    torch._C.DispatchKeySet(torch._C.DispatchKey.CPU), torch.ones(2)).tolist())
lib._destroy()
case("gone", lambda: torch.ops.mylib2.twice(torch.ones(1)))
''')
    assert ours == theirs
    assert ours["keyed"] == [1.0, 3.0, 5.0]


def test_the_dispatchers_answers_about_keys_and_kernels():
    ours, theirs = both(r'''
C = torch._C
has = C._dispatch_has_kernel_for_dispatch_key
out["has"] = [has("aten::linear", "CompositeImplicitAutograd"), has("aten::add.Tensor", "CPU"),
              has("aten::add.Tensor", "Meta"), has("aten::linear", "CPU"),
              has("aten::matmul", "CompositeImplicitAutograd")]
out["device keys"] = [C._dispatch_key_for_device(d) for d in ("cpu", "meta", "cuda")]
case("bad device", lambda: C._dispatch_key_for_device("bogus"))
out["keys"] = [C._dispatch_keys(torch.ones(1)).has(k) for k in
               (C.DispatchKey.CPU, C.DispatchKey.ADInplaceOrView, C.DispatchKey.AutogradCPU,
                C.DispatchKey.Python, C.DispatchKey.Meta)]
out["after autograd"] = [C._after_autograd_keyset.has(k) for k in
                         (C.DispatchKey.CPU, C.DispatchKey.Meta, C.DispatchKey.ADInplaceOrView,
                          C.DispatchKey.Python, C.DispatchKey.AutogradCPU)]
out["after view"] = [C._after_ADInplaceOrView_keyset.has(k) for k in
                     (C.DispatchKey.CPU, C.DispatchKey.ADInplaceOrView)]
a = torch.ones(3)
alias = C._any_output_is_alias_to_input_or_output
out["alias"] = [alias((a,), {}, (a[1:],)), alias((a,), {}, (a.clone(),)),
                alias(([a],), {}, (a,)), alias((), {"x": a}, (a,)), alias((a,), {}, a)]
v = a._version
C._increment_version([a])
C._increment_version([a, a])
C._increment_version(a)  # upstream reads a tensor as the list of its rows
out["versions"] = a._version - v
def redispatched():
    # A key set without Python: the mode does not see the call (nor what the kernel calls).
    ks = C.DispatchKeySet(C.DispatchKey.CPU)
    with Log() as log:
        r = torch.ops.aten.add.Tensor.redispatch(ks, torch.ones(2), torch.ones(2))
        torch.ops.aten.mul.Tensor(r, 2)
    return [r.tolist(), log.ops]
case("redispatch below the mode", redispatched)
with C._AutoDispatchBelowAutograd():
    out["below autograd"] = (torch.ones(2) + 1).tolist()
''')
    assert ours == theirs
