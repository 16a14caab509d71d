"""The view ops' *_copy twins (issue 9): each a contiguous copy of its view, its out= spelling,
and its gradient under upstream's "_copy" node name, ours and upstream each in its own process,
bit for bit: values, strides, dtypes, errors (bad arguments as the view refuses them, outs of
another dtype), meta shapes, the list-returning ones' out= rules (unbind_copy and
split_with_sizes_copy resize their outs, split_copy copies into them as they are).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
_bits = functools.partial(bits, strides=True)
def bits(t):  # complex tensors as their (real, imag) pairs
    return _bits(torch.view_as_real(t.resolve_conj()) if t.is_complex() else t)
A = torch.ops.aten
x = torch.randn(2, 3, 4)
z = torch.randn(3, 2, dtype=torch.cfloat)
FORMS = {
    "alias": (A.alias_copy, (x,)),
    "as_strided": (A.as_strided_copy, (x, [3, 2], [1, 3])),
    "as_strided_offset": (A.as_strided_copy, (x.detach().int(), [3, 2], [1, 3], 1)),
    "expand": (A.expand_copy, (x[:, :1], [2, 5, 4])),
    "permute": (A.permute_copy, (x, [2, 0, 1])),
    "reshape_alias": (A._reshape_alias_copy, (x, [6, 4], [4, 1])),
    "select": (A.select_copy.int, (x, 1, -1)),
    "slice": (A.slice_copy.Tensor, (x, 2, 1, 4, 2)),
    "squeeze": (A.squeeze_copy, (x[:1],)),
    "squeeze_dim": (A.squeeze_copy.dim, (x[:1], 0)),
    "squeeze_dims": (A.squeeze_copy.dims, (x[:1, :, :1], [0, 2])),
    "t": (A.t_copy, (x[0],)),
    "transpose": (A.transpose_copy.int, (x, 0, 2)),
    "unsqueeze": (A.unsqueeze_copy, (x, -1)),
    "unfold": (A.unfold_copy, (x, 2, 2, 1)),
    "view": (A.view_copy, (x, [6, 4])),
    "view_as_real": (A.view_as_real_copy, (z,)),
    "view_as_complex": (A.view_as_complex_copy, (x[:, :, :2].contiguous(),)),
    "conj": (A._conj_copy, (z,)),
    "neg_view": (A._neg_view_copy, (x,)),
    "unbind": (A.unbind_copy.int, (x, 1)),
    "split": (A.split_copy.Tensor, (x, 2, 2)),
    "split_with_sizes": (A.split_with_sizes_copy, (x, [1, 2], 1)),
    "view_dtype": (A.view_copy.dtype, (x, torch.int32)),
}
def enc_all(r, src):
    # values, and the copy's own layout: its strides and that it shares no memory with src
    rs = r if isinstance(r, (list, tuple)) else [r]
    ptr = src.untyped_storage().data_ptr()
    return [[bits(t), list(t.stride()), t.untyped_storage().data_ptr() == ptr] for t in rs]
for name, (op, args) in FORMS.items():
    case(f"{name}", lambda: enc_all(op(*args), args[0]))
    case(f"{name}_t", lambda: enc_all(op(args[0].transpose(0, -1), *args[1:]), args[0])
         if args[0].dim() > 1 and name not in ("view_as_complex", "view_as_real", "view")
         else "skip")
    meta = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
    case(f"{name}_meta", lambda: [list(t.shape) for t in (lambda r: r if isinstance(r, (list, tuple))
                                                          else [r])(op(*meta))])
    if args[0].is_floating_point() or args[0].is_complex():
        def grad(op=op, args=args):
            t = args[0].detach().clone().double() if not args[0].is_complex() else \
                args[0].detach().clone().cdouble()
            t.requires_grad_()
            r = op(t, *args[1:])
            rs = r if isinstance(r, (list, tuple)) else [r]
            loss = sum((v.real if v.is_complex() else v).sum() * (i + 1) for i, v in
                       enumerate(rs))
            return [rs[0].grad_fn.name()] + [bits(g) for g in torch.autograd.grad(loss, [t])]
        case(f"{name}_grad", grad)
case("bad_permute", lambda: A.permute_copy(x, [0, 0, 1]))
case("bad_view", lambda: A.view_copy(x, [5, 5]))
case("bad_select", lambda: A.select_copy.int(x, 1, 7))
# out= spellings
for name, op in (("permute", A.permute_copy.out), ("t", A.t_copy.out),
                 ("transpose", A.transpose_copy.int_out), ("view", A.view_copy.out),
                 ("expand", A.expand_copy.out), ("select", A.select_copy.int_out)):
    args = FORMS[name][1]
    case(f"{name}_out", lambda: bits(op(*args, out=torch.empty(0))))
    case(f"{name}_out_resize", lambda: bits(op(*args, out=torch.empty(2, 2))))
    case(f"{name}_out_dtype", lambda: op(*args, out=torch.empty(0, dtype=torch.float64)))
for name, op in (("unbind", A.unbind_copy.int_out), ("split", A.split_copy.Tensor_out),
                 ("split_with_sizes", A.split_with_sizes_copy.out)):
    args = FORMS[name][1]
    n = len(FORMS[name][0](*args))
    for tag, outs in (("empty", lambda: [torch.empty(0) for _ in range(n)]),
                      ("short", lambda: [torch.empty(0)]),
                      ("typed", lambda: [torch.empty(0, dtype=torch.float64) for _ in range(n)]),
                      ("shaped", lambda: [torch.zeros(p.shape) for p in FORMS[name][0](*args)])):
        def run(op=op, args=args, outs=outs):
            o = outs()
            r = op(*args, out=o)
            return [r, [bits(t) for t in o]]
        case(f"{name}_out_{tag}", run)
# torch.* binds one Tensor[] out= from a list or a tuple
def bound(outs):
    o = outs(torch.empty(0) for _ in range(3))
    r = torch.unbind_copy(x, 1, out=o)
    return [r, [bits(t) for t in o]]
case("bound_out_list", lambda: bound(list))
case("bound_out_tuple", lambda: bound(tuple))
case("bound_out_short", lambda: torch.split_with_sizes_copy(x, [1, 2], 1, out=[torch.empty(0)]))
print(json.dumps(out))
"""


def test_view_copies_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["permute_grad"][0] == "PermuteBackward0_copy"
    assert upstream["split_out_empty"][0] == "raises"  # split_copy does not resize its outs
