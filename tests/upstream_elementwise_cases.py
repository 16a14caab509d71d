"""Elementwise agreement cases, made and answered by upstream torch in its own process.

Run only under .venv-upstream (tests/test_elementwise_agreement.py does it):
    python upstream_elementwise_cases.py CASES_OUT EXPECTED_OUT

Writes every case's inputs in the text format of tests/cpp/test_agreement_driver.cpp (views
are written as their whole storage plus sizes, strides and offset, so ours rebuilds the same
layout), and upstream's answer as JSON: the exception's type and message, or the result's dtype,
shape, strides, aliasing and bytes. Cases whose values are computed with transcendental functions
are "tolerant": upstream also runs them with every tensor in float64, so the test can derive an
allowance from upstream's own float32 error (ARCHITECTURE.md, idea 5).
"""

from __future__ import annotations

import itertools
import json
import struct
import sys

import torch

torch.manual_seed(0)

F32, F64, F16, BF16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
U8, I8, I16, I32, I64 = torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64
BOOL = torch.bool
FLOATS = [F32, F64, F16, BF16]
INTS = [U8, I8, I16, I32, I64]
ALL = FLOATS + INTS + [BOOL]
NAMES = {F32: "float32", F64: "float64", F16: "float16", BF16: "bfloat16", U8: "uint8",
         I8: "int8", I16: "int16", I32: "int32", I64: "int64", BOOL: "bool"}
SPECIALS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5,
            1e-8, 100.0, -7.0, 3.0]


NARROW = {"unit": 0.5, "milli": 1e-3}  # kinds of base_values: randn times this, no specials


def base_values(dtype, n, kind="any"):
    """A 1-D tensor of n values of dtype: special floats first, then random ones."""
    if dtype.is_floating_point:
        v = torch.randn(n, dtype=F64) * 3
        k = min(n, len(SPECIALS)) if kind == "any" else 0
        v[:k] = torch.tensor(SPECIALS[:k], dtype=F64)
        if kind == "small":  # exponents for pow
            v = torch.rand(n, dtype=F64) * 4 - 1
        if kind in NARROW:  # one magnitude only, so that a larger one's error cannot hide it
            v = v / 3 * NARROW[kind]
        return v.to(dtype)
    if dtype == BOOL:
        return torch.randint(0, 2, (n,)).bool()
    lo, hi = (0, 20) if dtype == U8 else (-10, 10)
    if kind == "small":
        lo, hi = 0, 5
    v = torch.randint(lo, hi, (n,), dtype=I64)
    if kind == "nonzero":
        v[v == 0] = 3
    return v.to(dtype)


class TV:
    """A tensor argument: a view (sizes, strides, offset) of a 1-D base."""

    def __init__(self, base, size, stride, offset):
        self.base, self.size, self.stride, self.offset = base, list(size), list(stride), offset

    def make(self, dtype=None):
        base = self.base.clone() if dtype is None else self.base.to(dtype)
        return base.as_strided(self.size, self.stride, self.offset)


def tv(dtype, shape, layout="contig", kind="any"):
    numel = 1
    for s in shape:
        numel *= s
    contig = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        contig[d] = contig[d + 1] * max(shape[d + 1], 1)
    if layout == "contig":
        return TV(base_values(dtype, numel, kind), shape, contig, 0)
    if layout == "offset":
        return TV(base_values(dtype, numel + 3, kind), shape, contig, 3)
    if layout == "step":
        return TV(base_values(dtype, 2 * numel, kind), shape, [2 * s for s in contig], 0)
    if layout == "t":  # the transpose of a contiguous (b, a)
        a, b = shape
        return TV(base_values(dtype, numel, kind), shape, [1, a], 0)
    if layout == "expand":  # rows broadcast from one
        return TV(base_values(dtype, shape[-1], kind), shape, [0] * (len(shape) - 1) + [1], 0)
    raise ValueError(layout)


class Ref:
    """The same tensor object as argument k (out= aliasing self)."""

    def __init__(self, k):
        self.k = k


class Wrapped:
    """A Python number passed where the schema says Tensor (a wrapped number upstream)."""

    def __init__(self, v):
        self.v = v


def hexd(x):
    return struct.pack(">d", float(x)).hex()


def tensor_bytes(t):
    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex()


def write_arg(f, a, schema_type):
    if isinstance(a, TV):
        b = tensor_bytes(a.base)
        f.write(f"T {NAMES[a.base.dtype]} {len(a.size)} {' '.join(map(str, a.size))} "
                f"{' '.join(map(str, a.stride))} {a.offset} {len(b) // 2} {b}\n")
    elif isinstance(a, Ref):
        f.write(f"A {a.k}\n")
    elif a is None:
        f.write("N\n")
    elif isinstance(a, (Wrapped,)) or schema_type in ("number", "Optional[number]"):
        v = a.v if isinstance(a, Wrapped) else a
        if isinstance(v, bool):
            f.write(f"S b {int(v)}\n")
        elif isinstance(v, int):
            f.write(f"S i {v}\n")
        else:
            f.write(f"S d {hexd(v)}\n")
    elif isinstance(a, str):
        f.write(f"STR {a}\n")
    elif isinstance(a, bool):
        f.write(f"B {int(a)}\n")
    elif isinstance(a, int):
        f.write(f"I {a}\n")
    elif isinstance(a, float):
        f.write(f"F {hexd(a)}\n")
    else:
        raise TypeError(a)


def materialize(args, dtype64=False):
    """Fresh tensors for args; with dtype64 every tensor is float64 (the reference run)."""
    out = []
    for a in args:
        if isinstance(a, TV):
            out.append(a.make(F64 if dtype64 else None))
        elif isinstance(a, Ref):
            out.append(out[a.k])
        elif isinstance(a, Wrapped):
            out.append(a.v)
        else:
            out.append(a)
    return out


def overload(key):
    name, _, ov = key.split("::")[1].partition(".")
    return getattr(getattr(torch.ops.aten, name), ov or "default")


def call_upstream(op, args, python_fn):
    if python_fn is not None:
        return python_fn(*args)
    pos, kw = [], {}
    for a, s in zip(args, op._schema.arguments):
        if s.kwarg_only:
            kw[s.name] = a
        else:
            pos.append(a)
    return op(*pos, **kw)


def answer(op, spec_args, python_fn, dtype64=False):
    args = materialize(spec_args, dtype64)
    try:
        r = call_upstream(op, args, python_fn)
    except Exception as e:  # noqa: BLE001 - every upstream exception is an expected answer
        return {"ok": False, "type": type(e).__name__, "msg": str(e).split("\n")[0]}
    alias = next((i for i, a in enumerate(args) if a is r), -1)
    return {"ok": True, "dtype": NAMES[r.dtype], "shape": list(r.shape),
            "strides": list(r.stride()), "alias": alias, "hex": tensor_bytes(r)}


CASES = []  # (name, key, args, tolerant, python_fn)


def case(key, args, tolerant=False, python_fn=None, tag=""):
    CASES.append((f"c{len(CASES)}_{key.split('::')[1]}{tag}", key, args, tolerant, python_fn))


# --- binary ops ---------------------------------------------------------------------------------

TRANSCENDENTAL = {"pow"}
MIXED = [(F32, I64), (I32, F64), (BF16, F16), (U8, I8), (BOOL, I32), (F16, F32), (I64, BOOL),
         (BF16, F32), (I16, U8)]


def binary_family(name, ovs, rhs_kind="any", scalars=(2, 2.5, True, -3), extra=(),
                  dtypes=ALL):
    t_ov, s_ov, i_t, i_s, o_t, o_s = ovs
    tol = name in TRANSCENDENTAL
    for d in dtypes:  # same dtype, several layouts
        case(t_ov, [tv(d, (4, 5)), tv(d, (4, 5), kind=rhs_kind), *extra], tol)
        case(t_ov, [tv(d, (5, 4), "t"), tv(d, (5, 4), "step", rhs_kind), *extra], tol)
        case(t_ov, [tv(d, (4, 1)), tv(d, (5,), kind=rhs_kind), *extra], tol)
    for d in (F32, BF16, I32):
        case(t_ov, [tv(d, (1500,), "offset"), tv(d, (1500,), kind=rhs_kind), *extra], tol)
        case(t_ov, [tv(d, (3, 700), "expand"), tv(d, (700,), kind=rhs_kind), *extra], tol)
    for a, b in MIXED:
        case(t_ov, [tv(a, (3, 4)), tv(b, (3, 4), kind=rhs_kind), *extra], tol)
        case(t_ov, [tv(b, (3, 4)), tv(a, (4,), kind=rhs_kind), *extra], tol)
    for a, b in [(F16, F64), (I32, F64), (I8, I64), (F32, I64), (BOOL, F32), (BF16, F64)]:
        case(t_ov, [tv(a, (6,)), tv(b, (), kind=rhs_kind), *extra], tol, tag="_zerodim")
        case(t_ov, [tv(b, ()), tv(a, (6,), kind=rhs_kind), *extra], tol, tag="_zerodim")
    if s_ov:
        for d in ALL:
            for s in scalars:
                case(s_ov, [tv(d, (2, 3)), s, *extra], tol)
        for d in (F32, I64, BF16):  # numbers where the schema says Tensor: wrapped numbers
            for s in scalars:
                fn = getattr(torch, name, None)
                if fn is not None and not extra:
                    case(t_ov, [tv(d, (5,)), Wrapped(s)], tol, python_fn=fn, tag="_wrapped")
    if i_t:
        for a, b in [(F32, F32), (F32, I64), (I64, F32), (I32, I64), (BOOL, BOOL), (F16, F32),
                     (BF16, BF16)]:
            case(i_t, [tv(a, (3, 4)), tv(b, (4,), kind=rhs_kind), *extra], tol)
        case(i_t, [tv(F32, (4,)), tv(F32, (3, 4), kind=rhs_kind), *extra], tol)
        case(i_t, [tv(F32, (3, 4), "expand"), tv(F32, (4,), kind=rhs_kind), *extra], tol)
    if i_s:
        for d, s in [(F32, 2), (I64, 2.5), (I64, 3), (BOOL, True), (BF16, 0.1), (U8, -1)]:
            case(i_s, [tv(d, (2, 3)), s, *extra], tol)
    if o_t:
        for a, b, o in [(F32, F32, F64), (I64, I64, F32), (F32, F32, I64), (I64, I64, BOOL),
                        (F32, I32, F16)]:
            case(o_t, [tv(a, (2, 3)), tv(b, (2, 3), kind=rhs_kind), *extra,
                       tv(o, (2, 3))], tol)
            case(o_t, [tv(a, (2, 3)), tv(b, (3,), kind=rhs_kind), *extra, tv(o, (0,))], tol)
        case(o_t, [tv(F32, (3, 2), "t"), tv(F32, (3, 2), "t"), *extra, tv(F32, (7,))], tol)
        # out= aliasing the first input
        case(o_t, [tv(F32, (2, 3)), tv(F32, (2, 3), kind=rhs_kind), *extra, Ref(0)], tol)
    if o_s:
        for d, s, o in [(F32, 2, F32), (I64, 2.5, F32), (I64, 2.5, I64), (F32, 2, F64)]:
            case(o_s, [tv(d, (2, 3)), s, *extra, tv(o, (2, 3))], tol)


def ovs(name, t="Tensor", s="Scalar", out="out", s_out="Scalar_out"):
    return (f"aten::{name}.{t}", f"aten::{name}.{s}" if s else None,
            f"aten::{name}_.{t}", f"aten::{name}_.{s}" if s else None,
            f"aten::{name}.{out}" if out else None, f"aten::{name}.{s_out}" if s_out else None)


binary_family("add", ovs("add"), extra=(1,))
binary_family("add", ovs("add"), extra=(3,), dtypes=[F32, F64, BF16, F16, I64, I8])
binary_family("add", ovs("add"), extra=(0.5,), dtypes=[F32, BF16, I64])
binary_family("sub", ovs("sub"), extra=(1,))
binary_family("sub", ovs("sub"), extra=(2,), dtypes=[F32, I32, BF16])
binary_family("mul", ovs("mul"))
binary_family("div", ovs("div"))
binary_family("remainder", ovs("remainder", out="Tensor_out"), rhs_kind="nonzero")
binary_family("fmod", ovs("fmod", out="Tensor_out"), rhs_kind="nonzero")
for mode in (None, "trunc", "floor"):
    binary_family("div", ovs("div", "Tensor_mode", "Scalar_mode", "out_mode", "Scalar_mode_out"),
                  rhs_kind="nonzero", extra=(mode,), scalars=(2, 2.5, -3))
binary_family("pow", ("aten::pow.Tensor_Tensor", None, "aten::pow_.Tensor", None,
                      "aten::pow.Tensor_Tensor_out", None), rhs_kind="small")
for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
    binary_family(cmp, ovs(cmp, out="Tensor_out"))
for lg in ("logical_and", "logical_or", "logical_xor"):
    binary_family(lg, (f"aten::{lg}", None, f"aten::{lg}_", None, f"aten::{lg}.out", None))
for bw in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    binary_family(bw, ovs(bw, out="Tensor_out"), scalars=(2, True, -3))
for mm in ("maximum", "minimum"):
    binary_family(mm, (f"aten::{mm}", None, None, None, f"aten::{mm}.out", None))
for cm in ("clamp_min", "clamp_max"):
    binary_family(cm, (f"aten::{cm}.Tensor", None, f"aten::{cm}_.Tensor", None,
                       f"aten::{cm}.Tensor_out", None))

for d in ALL:  # rsub, remainder/bitwise with a Scalar self, pow with Scalar/Tensor exponents
    case("aten::rsub.Tensor", [tv(d, (2, 3)), tv(d, (3,)), 2])
    case("aten::rsub.Scalar", [tv(d, (2, 3)), 5, 1])
    case("aten::remainder.Scalar_Tensor", [7, tv(d, (5,), kind="nonzero")])
    case("aten::remainder.Scalar_Tensor", [-2.5, tv(d, (5,), kind="nonzero")])
    case("aten::bitwise_and.Scalar_Tensor", [6, tv(d, (5,))])
    case("aten::pow.Scalar", [2, tv(d, (5,), kind="small")], True)
    case("aten::pow.Scalar", [2.5, tv(d, (5,), kind="small")], True)
    case("aten::pow.Scalar", [1, tv(d, (5,))], True)
    for e in (0, 1, 2, 3, -2, 0.5, -0.5, -1, 2.7, -1.5, True, False, 4):
        case("aten::pow.Tensor_Scalar", [tv(d, (3, 5)), e], True)
    case("aten::pow.Tensor_Scalar", [tv(d, (40,), "step"), 2.7], True)
case("aten::rsub.Tensor_out", [tv(F32, (2, 3)), tv(F32, (3,)), 2, tv(F64, (2, 3))])
case("aten::rsub.Scalar_out", [tv(I64, (2, 3)), 5, 1, tv(I64, (2, 3))])
case("aten::pow.Scalar_out", [2.5, tv(I64, (5,), kind="small"), tv(I64, (5,))], True)
case("aten::pow.Scalar_out", [1.0, tv(I64, (5,)), tv(I64, (5,))], True)
case("aten::pow.Scalar_out", [2, tv(I64, (5,), kind="small"), tv(F64, (5,))], True)
case("aten::pow.Scalar", [2.5, tv(F32, (3, 4), "t")], True)
case("aten::pow.Tensor_Scalar_out", [tv(I64, (5,)), 2.5, tv(I64, (5,))], True)
case("aten::pow.Tensor_Scalar_out", [tv(F32, (5,)), 2, tv(F64, (5,))], True)
case("aten::pow_.Scalar", [tv(I64, (5,)), 2.5], True)
case("aten::pow_.Scalar", [tv(F32, (5,)), 3], True)
case("aten::pow.Tensor_Tensor", [tv(F32, (3000,)), tv(F32, (3000,), kind="small")], True)
case("aten::pow.Tensor_Scalar", [tv(F32, (3000,)), 2.7], True)
case("aten::pow.Tensor_Scalar", [tv(I64, (4,)), -1], True)
case("aten::pow.Tensor_Scalar", [tv(I8, (4,)), 1000], True)

# --- where, clamp ----------------------------------------------------------------------------

for d in ALL:
    cond = tv(BOOL, (3, 4))
    case("aten::where.self", [cond, tv(d, (3, 4)), tv(F32, (4,))])
    case("aten::where.self", [tv(BOOL, (3, 1)), tv(d, (4,)), tv(d, ())])
    case("aten::where.ScalarOther", [tv(BOOL, (2, 3)), tv(d, (2, 3)), 2.5])
    case("aten::where.ScalarOther", [tv(BOOL, (2, 3)), tv(d, (2, 3)), 2])
    case("aten::where.ScalarSelf", [tv(BOOL, (2, 3)), True, tv(d, (2, 3))])
case("aten::where.Scalar", [tv(BOOL, (2, 3)), 1, 2])
case("aten::where.Scalar", [tv(BOOL, (2, 3)), 1, 2.5])
case("aten::where.Scalar", [tv(BOOL, (2, 3)), True, False])
case("aten::where.self", [tv(U8, (2, 3)), tv(F32, (2, 3)), tv(F32, (2, 3))])
case("aten::where.self", [tv(I64, (2, 3)), tv(F32, (2, 3)), tv(F32, (2, 3))])
case("aten::where.self", [tv(BOOL, (2, 3)), tv(F32, (2, 3)), tv(F32, (3, 3))])
case("aten::where.self_out", [tv(BOOL, (2, 3)), tv(F32, (2, 3)), tv(I64, (3,)), tv(F32, (0,))])
case("aten::where.self_out", [tv(BOOL, (2, 3)), tv(F32, (2, 3)), tv(F32, (3,)), tv(F64, (2, 3))])
case("aten::where.self", [tv(BOOL, (5, 4), "t"), tv(F32, (5, 4), "t"), tv(F32, (5, 4), "t")])

NAN = float("nan")
for d in ALL:
    for lo, hi in [(-1, 1), (0.5, None), (None, 2), (-1.5, 2.5), (NAN, 1), (None, NAN), (2, 1),
                   (None, None), (True, None), (-1000, None)]:
        case("aten::clamp", [tv(d, (3, 5)), lo, hi])
    case("aten::clamp_min", [tv(d, (3, 5)), 0])
    case("aten::clamp_min", [tv(d, (3, 5)), 0.5])
    case("aten::clamp_max", [tv(d, (3, 5)), -2])
    case("aten::clamp_min", [tv(d, (3, 5)), NAN])
    case("aten::clamp.Tensor", [tv(d, (3, 5)), tv(d, (5,)), tv(d, (3, 1))])
    case("aten::clamp.Tensor", [tv(d, (3, 5)), None, tv(F32, (5,))])
    case("aten::clamp.Tensor", [tv(d, (3, 5)), tv(I64, ()), None])
    case("aten::clamp.Tensor", [tv(d, (3, 5)), None, None])
    case("aten::clip", [tv(d, (3, 5)), -1, 1])
for d in (F32, I64, I8, U8, BF16):
    case("aten::clamp_", [tv(d, (3, 5)), 0.5, None])
    case("aten::clamp_", [tv(d, (3, 5)), -1, 3])
    case("aten::clamp_min_", [tv(d, (3, 5)), 0.5])
    case("aten::clamp_max_", [tv(d, (3, 5)), 2])
    case("aten::clamp.out", [tv(d, (3, 5)), 0, 2, tv(F64, (3, 5))])
    case("aten::clamp.out", [tv(d, (3, 5)), 0, 2, tv(d, (0,))])
    case("aten::clamp_.Tensor", [tv(d, (3, 5)), tv(F32, (5,)), None])
    case("aten::clamp.Tensor_out", [tv(d, (3, 5)), tv(F32, (5,)), None, tv(F64, (3, 5))])
case("aten::clamp", [tv(F32, (2000,)), -0.5, 0.5])

# --- unary ops ----------------------------------------------------------------------------------

FLOAT_FNS = ["sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin",
             "cos", "tan", "tanh", "erf", "reciprocal", "sigmoid"]
EXACT_FNS = ["neg", "abs", "sign", "floor", "ceil", "round", "trunc", "bitwise_not",
             "logical_not", "square", "negative", "absolute", "fix"]
TOLERANT_FNS = set(FLOAT_FNS) - {"reciprocal"}
for fn in FLOAT_FNS + EXACT_FNS + ["relu", "isnan", "isinf", "isfinite", "nan_to_num"]:
    tol = fn in TOLERANT_FNS
    key = f"aten::{fn}"
    for d in ALL:
        case(key, [tv(d, (37,))], tol)
        case(key, [tv(d, (7, 6), "t")], tol)
        case(key, [tv(d, (3, 4), "expand")], tol)
    for d in (F32, BF16):
        case(key, [tv(d, (3000,), "offset")], tol)
        case(key, [tv(d, (300,), "step")], tol)
    if fn in ("relu", "isnan", "isinf", "isfinite"):
        continue
    for d in (F32, I64, BOOL, BF16):
        case(f"aten::{fn}_", [tv(d, (2, 5))], tol)
    if fn == "nan_to_num":  # its out= follows three optional floats
        continue
    for d, o in [(F32, F64), (I64, F32), (F32, I64), (I64, I64), (BF16, F32), (F32, F32)]:
        case(f"aten::{fn}.out", [tv(d, (2, 5)), tv(o, (2, 5))], tol)
    case(f"aten::{fn}.out", [tv(F32, (2, 5)), tv(F32, (3,))], tol)
for fn in ("relu", "isnan", "isinf"):
    for d, o in [(F32, F32), (F32, F64), (I64, BOOL), (F32, BOOL), (I64, I64)]:
        case(f"aten::{fn}.out", [tv(d, (2, 5)), tv(o, (2, 5))])
for d in (F32, I64, BF16):
    case("aten::relu_", [tv(d, (2, 5))])
for d in ALL:
    for dec in (0, 1, 2, -1, -2):
        case("aten::round.decimals", [tv(d, (20,)), dec])
    case("aten::nan_to_num", [tv(d, (20,)), 1.5, 2e10, -3.0])
    case("aten::nan_to_num", [tv(d, (20,)), None, None, -1e30])
    for approx in ("none", "tanh", "other"):
        case("aten::gelu", [tv(d, (37,)), approx], True)
    case("aten::silu", [tv(d, (37,))], True)
    case("aten::nan_to_num_", [tv(d, (20,)), 0.0, None, None])
case("aten::round_.decimals", [tv(F32, (20,)), 2])
case("aten::round.decimals_out", [tv(F32, (20,)), 2, tv(F64, (20,))])
case("aten::nan_to_num.out", [tv(F32, (5,)), None, None, None, tv(F64, (5,))])
case("aten::nan_to_num.out", [tv(F32, (5,)), None, None, None, tv(F32, (0,))])
for approx in ("none", "tanh"):
    for d in (F32, BF16):
        case("aten::gelu", [tv(d, (3000,), "offset"), approx], True)
        case("aten::gelu", [tv(d, (300,), "step"), approx], True)
    case("aten::gelu_", [tv(F32, (37,)), approx], True)
    case("aten::gelu.out", [tv(F32, (37,)), approx, tv(F64, (37,))], True)
case("aten::silu", [tv(F32, (3000,))], True)
case("aten::silu_", [tv(F32, (37,))], True)
case("aten::silu.out", [tv(F32, (37,)), tv(F32, (2,))], True)
case("aten::sigmoid", [tv(F32, (300,), "step")], True)

# --- broadcasting and overlap errors ----------------------------------------------------------

case("aten::add.Tensor", [tv(F32, (2, 3)), tv(F32, (2, 4)), 1])
case("aten::mul.Tensor", [tv(F32, (5, 1, 3)), tv(F32, (4, 2, 1))])
case("aten::add_.Tensor", [tv(F32, (3,)), tv(F32, (2, 3)), 1])
case("aten::add_.Tensor", [tv(F32, (2, 3), "expand"), tv(F32, (2, 3)), 1])
case("aten::mul.Tensor", [tv(F32, (0, 3)), tv(F32, (3,))])
case("aten::mul.Tensor", [tv(F32, ()), tv(F64, ())])
case("aten::add.Tensor", [tv(I32, ()), Wrapped(2.5), 1],
     python_fn=lambda a, b, alpha: torch.add(a, b, alpha=alpha))

# --- one magnitude at a time (appended last, so the cases above keep their inputs) ------------

# A kernel whose error is small only next to its own error on large values (gelu with
# Abramowitz and Stegun's erf alone: 3.3x upstream's error on |x| < 1) fails here.
for kind in NARROW:
    for d in (F32, BF16):
        case("aten::gelu", [tv(d, (3000,), kind=kind), "none"], True, tag=f"_{kind}")
        case("aten::gelu", [tv(d, (3000,), "step", kind), "none"], True, tag=f"_{kind}")


def main(cases_path, expected_path):
    expected = {}
    with open(cases_path, "w") as f:
        for name, key, args, tolerant, python_fn in CASES:
            op = overload(key)
            types = [str(a.type) for a in op._schema.arguments]
            f.write(f"case {name} {key} {len(args)}\n")
            for a, t in zip(args, types):
                write_arg(f, a, t)
            e = answer(op, args, python_fn)
            e["key"] = key
            e["tolerant"] = tolerant
            if tolerant and e["ok"]:
                wide = answer(op, args, python_fn, dtype64=True)
                if wide["ok"]:
                    e["hex64"], e["dtype64"] = wide["hex"], wide["dtype"]
            expected[name] = e
    with open(expected_path, "w") as f:
        json.dump(expected, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
