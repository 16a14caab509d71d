"""numpy-style stacking, splitting and view spellings (issue 9, item 2): hstack, vstack, dstack,
column_stack, row_stack, atleast_1d/2d/3d, tensor_split in its three forms, hsplit, vsplit,
dsplit, ravel, fliplr, flipud, broadcast_to, narrow with a tensor start, positive, movedim and
moveaxis with lists, diagflat, sum_to_size, and the alias spellings (concat, ger, swapaxes, the
arc- names, torch.special's), ours and upstream each in its own process.

Each is upstream's composition of cat, reshape, slice and friends, so results compare exactly:
values, shapes, strides, errors and their messages, and the autograd nodes the pieces record.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
a = torch.arange(6.).reshape(2, 3); b = torch.arange(3.); s = torch.tensor(7.)
case("hstack_2d", lambda: torch.hstack([a, a]))
case("hstack_1d", lambda: torch.hstack([b, b, s]))
case("hstack_out", lambda: torch.hstack([a, a], out=torch.empty(0)))
case("hstack_empty", lambda: torch.hstack([]))
case("hstack_mixed", lambda: torch.hstack([b, a]))
case("vstack", lambda: torch.vstack([b, a, b]))
case("vstack_out", lambda: torch.vstack([b, b], out=torch.empty(2, 3)))
case("row_stack", lambda: torch.row_stack([b, b]))
case("dstack", lambda: torch.dstack([a, a, s.expand(2, 3)]))
case("dstack_1d", lambda: torch.dstack([b, b]))
case("column_stack", lambda: torch.column_stack([b, a.T, s.expand(3)]))
case("column_stack_empty", lambda: torch.column_stack([]))
case("atleast_1d", lambda: torch.atleast_1d(s))
case("atleast_2d", lambda: torch.atleast_2d(b))
case("atleast_3d_0", lambda: torch.atleast_3d(s))
case("atleast_3d_1", lambda: torch.atleast_3d(b))
case("atleast_3d_2", lambda: torch.atleast_3d(a))
case("atleast_2d_seq", lambda: torch.atleast_2d([b, s, a]))
case("atleast_1d_seq", lambda: torch.atleast_1d(s, b))
x7 = torch.arange(7.)
case("tsplit_sections", lambda: torch.tensor_split(x7, 3))
case("tsplit_more_sections", lambda: torch.tensor_split(x7, 9))
case("tsplit_indices", lambda: torch.tensor_split(x7, [1, 5, 9, 2]))
case("tsplit_neg", lambda: torch.tensor_split(x7, [-2]))
case("tsplit_dim", lambda: torch.tensor_split(a, 2, dim=1))
case("tsplit_tensor_idx", lambda: torch.tensor_split(x7, torch.tensor([1, 5])))
case("tsplit_tensor_strided", lambda: torch.tensor_split(x7, torch.tensor([1, 9, 5, 9])[::2]))
case("tsplit_tensor_sections", lambda: torch.tensor_split(x7, torch.tensor(2)))
case("tsplit_tensor_float", lambda: torch.tensor_split(x7, torch.tensor([1.])))
case("tsplit_tensor_2d", lambda: torch.tensor_split(x7, torch.tensor([[1]])))
case("tsplit_0d", lambda: torch.tensor_split(s, 2))
case("tsplit_zero", lambda: torch.tensor_split(x7, 0))
case("tsplit_dim_bad", lambda: torch.tensor_split(x7, 2, dim=1))
case("tsplit_too_many", lambda: torch.tensor_split(x7, 2**63 - 1))
case("hsplit_no_symint", lambda: torch.hsplit(x7, [-(1 << 62) - 1]))
case("cat_devices", lambda: torch.cat([torch.ones(3, 2), torch.ones(2, device="meta")], 1))
case("cat_out_cast_first", lambda: torch.cat([torch.ones(1, 3), torch.ones(2, 2)], 1,
                                             out=torch.empty(0, dtype=torch.int8)))
m = torch.arange(24.).reshape(2, 3, 4)
case("hsplit_int", lambda: torch.hsplit(m, 3))
case("hsplit_1d", lambda: torch.hsplit(torch.arange(6.), 2))
case("hsplit_bad", lambda: torch.hsplit(m, 2))
case("hsplit_zero", lambda: torch.hsplit(m, 0))
case("hsplit_0d", lambda: torch.hsplit(s, 1))
case("hsplit_array", lambda: torch.hsplit(m, [1, 2]))
case("vsplit_int", lambda: torch.vsplit(m, 2))
case("vsplit_1d", lambda: torch.vsplit(b, 3))
case("vsplit_array", lambda: torch.vsplit(m, [1]))
case("dsplit_int", lambda: torch.dsplit(m, 2))
case("dsplit_array", lambda: torch.dsplit(m, [1, 3]))
case("dsplit_2d", lambda: torch.dsplit(a, 1))
case("ravel", lambda: torch.ravel(a.T))
case("ravel_contig", lambda: torch.ravel(a))
case("fliplr", lambda: torch.fliplr(a))
case("fliplr_1d", lambda: torch.fliplr(b))
case("flipud", lambda: torch.flipud(a))
case("flipud_0d", lambda: torch.flipud(s))
case("broadcast_to", lambda: torch.broadcast_to(b, (2, 3)))
case("broadcast_to_bad", lambda: torch.broadcast_to(b, (2, 4)))
case("narrow_t", lambda: torch.narrow(a, 1, torch.tensor(1), 2))
case("narrow_t_float", lambda: torch.narrow(a, 1, torch.tensor(1.), 2))
case("narrow_t_1d", lambda: torch.narrow(a, 1, torch.tensor([1]), 2))
case("positive", lambda: torch.positive(a))
case("positive_bool", lambda: +torch.tensor([True]))
z = torch.zeros(2, 3, 4, 5)
case("movedim_list", lambda: torch.movedim(z, (0, 1), (2, 0)).stride())
case("movedim_neg", lambda: torch.movedim(z, (-1, 0), (0, -1)).stride())
case("movedim_len", lambda: torch.movedim(z, (0, 1), (2,)))
case("movedim_repeat_src", lambda: torch.movedim(z, (0, 0), (2, 1)))
case("movedim_repeat_dst", lambda: torch.movedim(z, (0, 1), (2, 2)))
case("movedim_0d", lambda: torch.movedim(s, (0,), (0,)))
case("moveaxis_int", lambda: torch.moveaxis(z, 3, 0).stride())
case("moveaxis_list", lambda: torch.moveaxis(z, [1, 2], [3, 0]).stride())
case("diagflat", lambda: torch.diagflat(a, 1))
case("diagflat_t", lambda: torch.diagflat(a.T, -2))
case("sum_to_size", lambda: a.sum_to_size(1, 3))
case("sum_to_size_lead", lambda: a.sum_to_size(3))
case("sum_to_size_same", lambda: a.sum_to_size(2, 3))
case("sum_to_size_empty", lambda: a.sum_to_size([]))
case("sum_to_size_bad", lambda: a.sum_to_size(4, 3))
case("concat", lambda: torch.concat([a, a], 1))
case("concatenate", lambda: torch.concatenate([a, a]))
case("concat_out", lambda: torch.concat([b, b], out=torch.empty(6)))
case("ger", lambda: torch.ger(b, b + 1))
case("swapaxes", lambda: torch.swapaxes(m, 0, 2).stride())
case("swapdims", lambda: torch.swapdims(m, 1, -1).stride())
case("arccos", lambda: torch.arccos(torch.tensor([0.3, -0.5])))
case("arcsinh", lambda: torch.arcsinh(torch.tensor([0.3, -5.0])))
case("special_psi", lambda: torch.special.psi(torch.tensor([1.5, 3.0])))
case("special_gammaln", lambda: torch.special.gammaln(torch.tensor([1.5, 3.0])))
case("special_round", lambda: torch.special.round(torch.tensor([1.567, -2.5]), decimals=2))
case("special_log_softmax", lambda: torch.special.log_softmax(a, 1))
case("special_softmax", lambda: torch.special.softmax(a, 0, dtype=torch.float64))
case("special_logsumexp", lambda: torch.special.logsumexp(a, 1))
case("special_ndtr", lambda: torch.special.ndtr(torch.tensor([0.3, -1.0, 2.0])))
case("special_ndtr_int", lambda: torch.special.ndtr(torch.tensor([1, 2])))
case("special_ndtr_out", lambda: torch.special.ndtr(b, out=torch.empty(3, dtype=torch.float64)))
case("special_ndtr_out_bad", lambda: torch.special.ndtr(b, out=torch.empty(3, dtype=torch.long)))
case("chalf", lambda: torch.tensor([1.5, -2.0]).chalf())

# The nodes their pieces record, as upstream's.
def names(ts):
    return [t.grad_fn.name() if t.grad_fn is not None else None for t in ts]
g = torch.randn(2, 6, requires_grad=True)
case("nodes_hsplit", lambda: names(torch.hsplit(g, 3)))
case("nodes_tsplit", lambda: names(torch.tensor_split(g, [1, 4], dim=1)))
case("nodes_hstack", lambda: names([torch.hstack([g, g])]))
case("nodes_column_stack", lambda: names([torch.column_stack([g[0], g[1]])]))
case("nodes_ravel", lambda: names([torch.ravel(g.T)]))
case("nodes_movedim", lambda: names([torch.movedim(g, [0], [1])]))
case("nodes_sum_to_size", lambda: names([g.sum_to_size(1, 6)]))
case("nodes_fliplr", lambda: names([torch.fliplr(g)]))
case("grad_dstack", lambda: torch.autograd.grad(torch.dstack([g, 2 * g]).pow(2).sum(), g))
print(json.dumps(out))
"""


def test_stacking_splitting_and_views_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    # The cases reach what they mean to: a split, a refusal with upstream's message, a node.
    assert len(upstream["tsplit_indices"]) == 5
    assert upstream["hsplit_bad"][:2] == ["raises", "RuntimeError"]
    assert upstream["nodes_hsplit"] == ["SliceBackward0"] * 3
