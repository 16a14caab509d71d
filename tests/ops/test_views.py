"""Agreement of the views family (views, shape ops, copies, cat, indexing, factories) with upstream.

One snippet runs every case under our torch and under upstream's, each in its own process, and
prints, per case, the result's dtype, shape, strides, storage offset and values (or the exception
type and message). Every op here moves or generates values without rounding except arange and
linspace, whose float results are compared against upstream's own float64 run (tolerance derived
from upstream, ARCHITECTURE.md idea 5).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json

PRELUDE = r'''
import json, torch
A = torch.ops.aten
def rec(v):
    if isinstance(v, torch.Tensor):
        d = {"dtype": str(v.dtype), "shape": list(v.shape), "stride": list(v.stride()),
             "offset": v.storage_offset(), "device": v.device.type}
        if v.device.type != "meta":
            d["values"] = v.tolist()
        return d
    if isinstance(v, (list, tuple)):
        return [rec(x) for x in v]
    return v
def x23(dtype=torch.float32):
    return torch.arange(6, dtype=dtype).view(2, 3)
def x234():
    return torch.arange(24.).view(2, 3, 4)
out = {}
def case(name, fn):
    try:
        out[name] = {"ok": rec(fn())}
    except Exception as e:
        out[name] = {"err": type(e).__name__, "msg": str(e).split("\n")[0]}
'''

CASES = r'''
b = torch.arange(24.).view(2, 3, 4)
t = b.transpose(0, 2)
case("view_infer", lambda: x234().view(4, -1))
case("view_of_transposed_ok", lambda: t.view(4, 3, 2))
case("view_incompatible", lambda: x234().transpose(1, 2).view(-1))
case("view_bad_numel", lambda: x234().view(5, 5))
case("view_two_infer", lambda: x234().view(-1, -1))
case("view_dtype_same", lambda: x23().view(torch.int32))
case("view_dtype_smaller", lambda: x23().view(torch.float16))
case("view_dtype_larger", lambda: A.contiguous.default(x23(torch.int32)[:, :2]).view(torch.int64))
case("as_strided", lambda: torch.as_strided(x234(), (3, 2), (1, 4), 2))
case("as_strided_oob", lambda: torch.as_strided(x23(), (3, 3), (3, 1)))
case("transpose", lambda: t)
case("transpose_bad_dim", lambda: x23().transpose(0, 2))
case("t_vector", lambda: torch.arange(3.).t())
case("t_3d", lambda: x234().t())
case("permute", lambda: x234().permute(2, 0, 1))
case("permute_neg", lambda: x234().permute(-1, 0, 1))
case("permute_dup", lambda: x234().permute(0, 0, 1))
case("expand", lambda: torch.arange(3.).view(3, 1).expand(2, 3, -1, 4))
case("expand_scalar", lambda: torch.tensor(5.).expand(2, 1))
case("expand_bad", lambda: torch.arange(3.).expand(2, 4))
case("expand_as", lambda: torch.arange(3.).expand_as(x23()))
case("squeeze", lambda: torch.zeros(1, 3, 1, 2).squeeze())
case("squeeze_dim", lambda: torch.zeros(1, 3, 1, 2).squeeze(2))
case("squeeze_dim_noop", lambda: torch.zeros(1, 3, 1, 2).squeeze(1))
case("squeeze_dims", lambda: torch.zeros(1, 3, 1, 2).squeeze((0, 2)))
case("unsqueeze", lambda: x234()[:, 1].unsqueeze(1))
case("unsqueeze_last", lambda: x234().transpose(0, 1).unsqueeze(-1))
case("flatten", lambda: x234().flatten(1))
case("flatten_copy", lambda: x234().transpose(0, 1).flatten())
case("flatten_scalar", lambda: torch.tensor(3.).flatten())
case("unflatten", lambda: x234().unflatten(2, (2, -1)))
case("unflatten_bad", lambda: x234().unflatten(2, (3, -1)))
case("select_neg", lambda: x234().select(1, -1))
case("select_oob", lambda: x234().select(1, 3))
case("select_0d", lambda: torch.tensor(1.).select(0, 0))
case("slice_clamp", lambda: x234()[:, -10:100:2])
case("slice_empty", lambda: x234()[:, 2:1])
case("slice_step_op", lambda: A.slice.Tensor(x234(), 2, 1, None, 3))
case("slice_step_zero", lambda: A.slice.Tensor(x234(), 0, 0, 1, 0))
case("narrow", lambda: x234().narrow(2, -3, 2))
case("narrow_oob", lambda: x234().narrow(2, 3, 2))
case("split", lambda: A.split.Tensor(torch.arange(10.), 3))
case("split_sizes", lambda: A.split_with_sizes.default(x234(), [1, 3], 2))
case("split_sizes_bad", lambda: A.split_with_sizes.default(x234(), [1, 1], 2))
case("chunk", lambda: torch.arange(10.).chunk(4))
case("chunk_empty", lambda: torch.zeros(0, 2).chunk(3))
case("unbind", lambda: x234().unbind(1))
case("movedim", lambda: torch.movedim(x234(), 0, -1))
case("alias", lambda: A.alias.default(x234()[1]))
case("detach", lambda: x234()[1].detach())
case("view_as", lambda: x234().view_as(torch.zeros(6, 4)))
case("diagonal", lambda: x234().diagonal(1, 1, 2))
case("diagonal_neg", lambda: x234().diagonal(-1, 2, 0))
case("unfold", lambda: torch.arange(10.).unfold(0, 3, 2))
case("unfold_2d", lambda: x234().unfold(2, 2, 1))
case("reshape_view", lambda: x234().reshape(6, 4))
case("reshape_copy", lambda: x234().transpose(0, 2).reshape(-1))
case("contiguous_copy", lambda: A.contiguous.default(x234().transpose(1, 2)))
case("clone_preserve_t", lambda: x234().transpose(0, 2).clone())
case("clone_preserve_gap", lambda: x234()[:, ::2, 1:].clone())
case("clone_expanded", lambda: torch.arange(3.).expand(2, 3).clone())
case("to_copy_int", lambda: A._to_copy.default(torch.tensor([-2.7, -0.5, 0.5, 2.9, 300.]),
                                                dtype=torch.uint8))
case("to_copy_i32", lambda: A._to_copy.default(torch.tensor([-2.7, 2.9, 1e5]), dtype=torch.int32))
case("to_copy_bool", lambda: A._to_copy.default(torch.tensor([0., -0., 0.1, float("nan")]),
                                                 dtype=torch.bool))
case("to_copy_half", lambda: A._to_copy.default(
    torch.tensor([1/3, 65519., 1e-8], dtype=torch.float64),
                                                 dtype=torch.float16))
case("to_copy_bf16", lambda: A._to_copy.default(torch.tensor([1/3, 3.0e38, -7.1]),
                                                 dtype=torch.bfloat16))
case("to_copy_meta", lambda: A._to_copy.default(x234().transpose(0, 1), device="meta"))
case("to_copy_from_meta", lambda: A._to_copy.default(torch.zeros(2, device="meta"), device="cpu"))
case("to_dtype_alias", lambda: A.to.dtype(x234(), torch.float32) is not None)
case("copy_broadcast", lambda: A.copy_.default(torch.zeros(2, 3, dtype=torch.int64).t(),
                                                    torch.tensor([1.9, -2.9])))
case("copy_bad_shape", lambda: A.copy_.default(torch.zeros(3), torch.zeros(2, 3)))
case("copy_overlap", lambda: (lambda m: A.copy_.default(m, m.t()))(torch.zeros(3, 3)))
case("cat", lambda: torch.cat([x23(), x23(torch.int32).t().t(), torch.zeros(2, 1)], 1))
case("cat_legacy_empty", lambda: torch.cat([torch.zeros(0, dtype=torch.float64),
                                            x23(torch.int32)], 1))
case("cat_all_empty", lambda: torch.cat([torch.zeros(0), torch.zeros(0, dtype=torch.int64)]))
case("cat_0d", lambda: torch.cat([torch.tensor(1.), torch.tensor(2.)]))
case("cat_mismatch", lambda: torch.cat([x23(), torch.zeros(3, 3)], 1))
case("cat_ndim", lambda: torch.cat([x23(), torch.zeros(3)], 0))
case("cat_empty_list", lambda: torch.cat([]))
case("stack", lambda: torch.stack([x23(), x23().clone()], -1))
case("stack_bad", lambda: torch.stack([x23(), torch.zeros(3)]))
case("index_select", lambda: x234().index_select(1, torch.tensor([2, 0, 2])))
case("index_select_neg", lambda: x234().index_select(1, torch.tensor([-1])))
case("index_select_oob", lambda: x234().index_select(1, torch.tensor([3])))
case("index_select_float", lambda: x234().index_select(1, torch.tensor([1.])))
case("masked_fill", lambda: x23().masked_fill(torch.tensor([True, False, True]), -1.5))
case("masked_fill_bcast_self", lambda: torch.arange(3).masked_fill(
    torch.tensor([[True], [False]]), 7))
case("masked_fill_tensor", lambda: x23().masked_fill(torch.tensor([False, True, False]),
                                                     torch.tensor(9)))
case("masked_fill_long_mask", lambda: x23().masked_fill(torch.tensor([0, 1, 0]), 1.))
case("masked_fill_inplace_t", lambda: x23().t().masked_fill_(torch.tensor([True, False]), 0.))
case("index_long", lambda: x234()[torch.tensor([1, 0])])
case("index_two", lambda: A.index.Tensor(x234(), [torch.tensor([[0], [1]]),
                                                   torch.tensor([0, 2, 1])]))
case("index_none_first", lambda: A.index.Tensor(x234(), [None, torch.tensor([2, 0])]))
case("index_separated", lambda: A.index.Tensor(x234(), [torch.tensor([1, 0]), None,
                                                        torch.tensor([3, 1])]))
case("index_bool", lambda: A.index.Tensor(x234(), [None, torch.tensor([True, False, True])]))
case("index_bool_2d", lambda: A.index.Tensor(x234(), [torch.tensor(
    [[False] * 4, [True] * 4, [False, True] * 2])]))
case("index_neg", lambda: A.index.Tensor(x234(), [torch.tensor([-1]), None, torch.tensor([-4])]))
case("index_oob", lambda: A.index.Tensor(x234(), [torch.tensor([2])]))
case("index_mask_shape", lambda: A.index.Tensor(x234(), [torch.tensor([True, False, True])]))
case("index_float", lambda: A.index.Tensor(x234(), [torch.tensor([1.])]))
case("index_bcast_bad", lambda: A.index.Tensor(x234(), [torch.tensor([0, 1]),
                                                        torch.tensor([0, 1, 2])]))
case("index_too_many", lambda: A.index.Tensor(x23(), [torch.tensor([0])] * 3))
case("index_put", lambda: A.index_put.default(x234(), [None, torch.tensor([0, 2])],
                                              torch.tensor([-1., -2.]).view(2, 1)))
case("index_put_acc", lambda: x23().index_put_((torch.tensor([0, 0, 1, 0]),),
                                               torch.tensor([1., 2., 3.]), accumulate=True))
case("index_put_dup", lambda: torch.zeros(3, dtype=torch.int64).index_put_(
    (torch.tensor([1, 1, 2]),), torch.tensor([5, 6, 7])))
case("index_put_bool", lambda: x23().index_put_(
    (torch.tensor([[True, False, True], [False] * 3]),), torch.tensor(0.)))
case("index_put_dtype", lambda: x23().index_put_((torch.tensor([0]),), torch.tensor([1])))
case("index_put_shape", lambda: x23().index_put_((torch.tensor([0, 1]),), torch.ones(3, 3)))
def setitem():
    m = x23()
    m[:, torch.tensor([0, 2])] = 4.
    return m
case("setitem", setitem)
case("repeat", lambda: x23().t().repeat(2, 1, 3))
case("repeat_zero", lambda: x23().repeat(0, 2))
case("repeat_bad", lambda: x23().repeat(2))
case("tril", lambda: x234().tril())
case("triu_k", lambda: x234().transpose(1, 2).triu(-1))
case("tril_k2", lambda: x23(torch.int32).tril(1))
case("tril_1d", lambda: torch.arange(3.).tril())
case("tril_inplace", lambda: x23().t().tril_(-1))
case("flip", lambda: x234().flip(0, 2))
case("flip_t", lambda: x234().transpose(0, 2).flip(-1))
case("flip_dup", lambda: x234().flip(0, 0))
case("roll", lambda: torch.roll(x234(), 1))
case("roll_dims", lambda: torch.roll(x234(), (1, -5), (0, 2)))
case("roll_t", lambda: torch.roll(x234().transpose(0, 2), 2, 1))
case("roll_mismatch", lambda: torch.roll(x234(), (1, 2), (0,)))
case("zeros", lambda: torch.zeros(2, 3, dtype=torch.int16))
case("ones", lambda: torch.ones(2, dtype=torch.bool))
case("full_int", lambda: torch.full((2, 2), 7))
case("full_bool", lambda: torch.full((2,), True))
case("full_float", lambda: torch.full((2,), 1.5))
case("full_meta", lambda: torch.full((2, 3), 1.5, device="meta"))
case("zeros_like_t", lambda: torch.zeros_like(x234().transpose(0, 2)))
case("ones_like_gap", lambda: torch.ones_like(x234()[:, ::2]))
case("empty_like_expanded", lambda: torch.empty_like(torch.zeros(3, 1).expand(3, 4)).stride())
case("empty_like_perm_gap", lambda: torch.empty_like(x234().permute(2, 0, 1)[::2]).stride())
case("full_like", lambda: torch.full_like(x23(torch.int32), 2.7))
case("full_like_dtype", lambda: torch.full_like(x23(), 2.7, dtype=torch.float64))
case("arange", lambda: torch.arange(5))
case("arange_float", lambda: torch.arange(0, 1, 0.1))
case("arange_neg", lambda: torch.arange(10, 0, -3))
case("arange_int_from_float", lambda: torch.arange(0.5, 5, dtype=torch.int64))
case("arange_i32", lambda: torch.arange(-3, 7.5, 2.5, dtype=torch.int32))
case("arange_f64", lambda: torch.arange(-1, 1, 0.3, dtype=torch.float64))
case("arange_half", lambda: torch.arange(0, 2, 0.25, dtype=torch.float16))
case("arange_bad_sign", lambda: torch.arange(0, 5, -1))
case("arange_zero_step", lambda: torch.arange(0, 5, 0))
case("arange_meta", lambda: torch.arange(10, device="meta"))
case("linspace", lambda: torch.linspace(0, 1, 7))
case("linspace_int", lambda: torch.linspace(-3, 10, 5, dtype=torch.int64))
case("linspace_f64", lambda: torch.linspace(-1, 3, 11, dtype=torch.float64))
case("linspace_one", lambda: torch.linspace(2, 5, 1))
case("linspace_neg", lambda: torch.linspace(2, 5, -1))
case("scalar_tensor", lambda: torch.scalar_tensor(3))
case("eye", lambda: torch.eye(3))
case("eye_m", lambda: torch.eye(2, 4, dtype=torch.int64))
case("eye_neg", lambda: torch.eye(-1))
case("new_zeros", lambda: x23(torch.int32).new_zeros(2, 2))
case("new_ones", lambda: x23().new_ones((3,), dtype=torch.float64))
case("new_full", lambda: x23(torch.int32).new_full((2,), 7.9))
case("new_empty", lambda: x23().new_empty((0, 2)))
def write_through():
    base = x234()
    v = base.transpose(0, 2)[1].unsqueeze(0)
    v.fill_(-1.)
    return base
case("write_through_views", write_through)
print(json.dumps(out))
'''

# Float results computed (not moved): checked against upstream's own float64 run.
COMPUTED = {"arange_float", "arange_half", "linspace"}


@pytest.fixture(scope="module")
def results():
    ours = run_json(OURS, PRELUDE + CASES)
    upstream = run_json(UPSTREAM, PRELUDE + CASES)
    return ours, upstream


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


NAMES = [line.split('"')[1] for line in CASES.splitlines() if line.startswith("case(")]


@pytest.mark.parametrize("name", NAMES)
def test_agrees_with_upstream(results, name):
    ours, upstream = results
    o, u = ours[name], upstream[name]
    if "err" in u:
        assert "err" in o, f"{name}: upstream raised {u}, we returned {o}"
        assert o["err"] == u["err"], f"{name}: {o} vs {u}"
        assert o["msg"] == u["msg"]
        return
    assert "ok" in o, f"{name}: we raised {o}"
    assert o == u


def test_computed_floats_within_upstream_own_error():
    # Upstream's float32 arange/linspace against its own float64 run: our error may not exceed it.
    body = PRELUDE + r'''
for name, f32 in [("arange", lambda d: torch.arange(0, 1, 0.1, dtype=d)),
                  ("linspace", lambda d: torch.linspace(0, 1, 7, dtype=d))]:
    case(name + "32", lambda: f32(torch.float32))
    case(name + "64", lambda: f32(torch.float64))
print(json.dumps(out))
'''
    ours, upstream = run_json(OURS, body), run_json(UPSTREAM, body)
    for name in ("arange", "linspace"):
        ref = upstream[name + "64"]["ok"]["values"]
        up = upstream[name + "32"]["ok"]["values"]
        mine = ours[name + "32"]["ok"]["values"]
        allowed = max(abs(a - b) for a, b in zip(up, ref))
        worst = max(abs(a - b) for a, b in zip(mine, ref))
        assert len(mine) == len(ref) and worst <= allowed or math.isclose(worst, allowed)
