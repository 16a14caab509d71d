"""resize_ and resize_as_, ours and upstream each in its own process: the geometry after the
call (sizes, strides, storage offset, storage bytes), the kept values (the elements the old
storage held; new bytes are uninitialised and not compared), whether the storage moved, the
version counter, memory formats, views, empty results, storages that cannot grow (numpy's),
meta, every error in upstream's words (negative and overflowing sizes, a format of the wrong
rank or preserve), and the refusal of tensors that require grad or carry a tangent.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + r"""
import numpy as np
import torch.autograd.forward_ad as fwAD
def geo(r):
    return [list(r.shape), list(r.stride()), r.storage_offset(), r.untyped_storage().nbytes(),
            str(r.dtype), str(r.device)]
def resized(x, fn, keep=None):
    ptr = x.untyped_storage().data_ptr()
    v = x._version
    r = fn(x)
    out = geo(r) + [r is x, x._version - v]
    if x.device.type != "meta":
        out.append(x.untyped_storage().data_ptr() == ptr)
        if keep:
            kept = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage(), 0, (keep,))
            out.append([str(v) for v in kept.tolist()])
    return out
base = torch.arange(6.0)
M = {"cl": torch.channels_last, "cl3": torch.channels_last_3d, "c": torch.contiguous_format,
     "p": torch.preserve_format}
shapes = [(4, 5), (2,), (6,), (2, 3), (0,), (3, 0, 2), (1, 1, 6), (), (7,)]
for dt in ["float32", "float64", "int64", "bool", "complex64", "float16"]:
    x0 = base.to(getattr(torch, dt))
    for s in shapes:
        case(f"r_{dt}_{s}", lambda: resized(x0.clone(), lambda t: t.resize_(s), keep=6))
case("r_list", lambda: resized(base.clone(), lambda t: t.resize_([3, 4]), keep=6))
case("r_aten", lambda: resized(base.clone(), lambda t: torch.ops.aten.resize_(t, [9]), keep=6))
for m, f in M.items():
    for s in [(2, 3, 4, 5), (2, 3, 4, 5, 2), (2, 3, 4), (1, 3, 1, 1), (2, 0, 4, 5)]:
        case(f"r_mf_{m}_{s}", lambda: resized(base.clone(), lambda t: t.resize_(s,
                                                                               memory_format=f)))
    case(f"r_mf_same_{m}", lambda: resized(torch.empty(2, 3, 4, 5),
                                           lambda t: t.resize_(2, 3, 4, 5, memory_format=f)))
case("r_view", lambda: resized(base.clone()[2:], lambda t: t.resize_(5), keep=6))
case("r_view_t", lambda: resized(base.clone().reshape(2, 3).t(), lambda t: t.resize_(3, 2)))
case("r_view_t_same", lambda: resized(base.clone().reshape(2, 3).t(), lambda t: t.resize_(2, 3)))
case("r_view_shared", lambda: (lambda b: [resized(b[1:3], lambda t: t.resize_(8)),
                                          b.untyped_storage().nbytes()])(base.clone()))
case("r_empty_offset", lambda: resized(base.clone()[3:], lambda t: t.resize_(0, 2)))
case("r_neg", lambda: base.clone().resize_(-1, 2))
case("r_neg_zero", lambda: resized(base.clone(), lambda t: t.resize_(0, -1)))
case("r_big", lambda: base.clone().resize_(2**62, 4))
case("r_big2", lambda: base.clone().resize_(2**40, 2**40))
case("r_numpy", lambda: torch.from_numpy(np.zeros(3)).resize_(10))
case("r_numpy_shrink", lambda: resized(torch.from_numpy(np.arange(3.0)), lambda t: t.resize_(2),
                                       keep=3))
case("r_meta", lambda: resized(base.to("meta"), lambda t: t.resize_(4, 5)))
case("r_meta_cl", lambda: resized(base.to("meta"), lambda t: t.resize_(
    2, 3, 4, 5, memory_format=torch.channels_last)))
case("r_req", lambda: base.clone().requires_grad_().resize_(3))
case("r_req_same", lambda: base.clone().requires_grad_().resize_(6))
case("r_req_nonleaf", lambda: (base.clone().requires_grad_() * 2).resize_(3))
def tangent(fn):
    with fwAD.dual_level():
        d = fwAD.make_dual(base.clone(), torch.ones(6))
        try:
            fn(d)
            return "ok"
        except RuntimeError as e:
            return [str(e), list(d.shape)]
case("r_tangent", lambda: tangent(lambda d: d.resize_(9)))
case("ra_tangent", lambda: tangent(lambda d: d.resize_as_(torch.empty(2, 2))))
tmpl = {"plain": torch.empty(3, 4), "t": torch.empty(3, 4).t(),
        "cl": torch.empty(2, 3, 4, 5).to(memory_format=torch.channels_last),
        "cl3": torch.empty(2, 3, 2, 4, 5).to(memory_format=torch.channels_last_3d),
        "empty": torch.empty(0, 3), "0d": torch.tensor(1.0),
        "int": torch.empty(7, dtype=torch.long),
        "meta": torch.empty(2, 5, device="meta"), "same": torch.empty(6)}
for k, tm in tmpl.items():
    case(f"ra_{k}", lambda: resized(base.clone(), lambda t: t.resize_as_(tm), keep=6))
    for m, f in M.items():
        case(f"ra_{k}_{m}", lambda: resized(base.clone(), lambda t: t.resize_as_(
            tm, memory_format=f)))
case("ra_fn", lambda: resized(base.clone(), lambda t: torch.resize_as_(t, tmpl["plain"])))
case("ra_req", lambda: base.clone().requires_grad_().resize_as_(torch.empty(3)))
case("ra_tmpl_req", lambda: resized(base.clone(), lambda t: t.resize_as_(
    torch.empty(3, requires_grad=True))))
case("ra_meta_self", lambda: resized(base.to("meta"), lambda t: t.resize_as_(torch.empty(4, 4))))
case("ra_numpy", lambda: torch.from_numpy(np.zeros(3)).resize_as_(torch.empty(5)))
print(json.dumps(out))
"""


def test_resize_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["r_req"][0] == "raises"
    assert upstream["r_numpy"][0] == "raises"
