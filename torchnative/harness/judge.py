"""The third step: ours against upstream, case by case, with NumPy only (no torch here).

Each comparator is a small function that returns None or why ours differs; `judge` runs them in
order and the first objection decides the grade. The rule they implement, and why the tolerance
is what it is, is docs/AGREEMENT_RULES.md; tests/harness/test_faults.py injects one defect per
comparator and requires that exactly that comparator objects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

GRADES = ("crashes", "refuses", "builds", "reaches", "agrees")  # worst first
FLOOR_ULPS = 4  # the allowance never goes below 4 ulp of the dtype (AGREEMENT_RULES.md)
NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
             "int32": np.int32, "int64": np.int64, "float16": np.float16,
             "bfloat16": np.uint16, "float32": np.float32, "float64": np.float64,
             "complex64": np.complex64, "complex128": np.complex128,
             "complex32": np.dtype([("re", np.float16), ("im", np.float16)])}
# Complex results are judged as floating ones, as pairs of reals (tensor_values).
FLOATING = ("float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128")
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
       "float64": 2.0 ** -52, "complex32": 2.0 ** -10, "complex64": 2.0 ** -23,
       "complex128": 2.0 ** -52}


def floor_of(dtype: str) -> float:
    return FLOOR_ULPS * EPS[dtype]


def tensor_values(outcome: dict, i: int) -> np.ndarray:
    """Tensor i of an outcome as a NumPy array (bfloat16 widened exactly to float32; a complex
    tensor as its real and imaginary parts, a last dim of 2, as torch.view_as_real)."""
    rec = outcome["tensors"][i]
    dtype = rec["dtype"]
    if dtype not in NP_DTYPES:
        raise ValueError(f"no NumPy form for {dtype}")
    np_dtype = np.dtype(NP_DTYPES[dtype])
    blob = np.frombuffer(outcome["storages"][rec["storage"]], np.uint8)
    if not rec["shape"] or min(rec["shape"]) > 0:
        base = blob.view(np_dtype) if blob.size else np.zeros(1, np_dtype)
        size = np_dtype.itemsize
        arr = np.lib.stride_tricks.as_strided(
            base[rec["offset"]:], rec["shape"], [s * size for s in rec["stride"]],
            writeable=False).copy()
    else:
        arr = np.zeros(rec["shape"], np_dtype)
    if dtype == "bfloat16":
        arr = (arr.astype(np.uint32) << 16).view(np.float32)
    if np.iscomplexobj(arr):
        arr = np.stack([arr.real, arr.imag], axis=-1)
    elif dtype == "complex32":
        arr = np.stack([arr["re"], arr["im"]], axis=-1)
    return arr


def leaves(tree) -> list:
    """The leaves of an outcome tree in order: ("tensor", i) or ("value", v)."""
    if isinstance(tree, dict) and "\x00" in tree:
        if tree["\x00"] == "tensor":
            return [("tensor", tree["v"])]
        if tree["\x00"] == "namedtuple":
            return [x for item in tree["v"] for x in leaves(item)]
        return [("value", (tree["\x00"], repr(tree.get("v"))))]
    if isinstance(tree, (tuple, list)):
        return [x for item in tree for x in leaves(item)]
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in leaves(tree[k])]
    return [("value", tree)]


def skeleton(tree):
    """The tree's nesting with every leaf replaced by its kind."""
    if isinstance(tree, dict) and "\x00" in tree:
        if tree["\x00"] == "namedtuple":
            return ("tuple", [skeleton(x) for x in tree["v"]])
        return tree["\x00"]
    if isinstance(tree, (tuple, list)):
        return ("tuple" if isinstance(tree, tuple) else "list", [skeleton(x) for x in tree])
    return type(tree).__name__


@dataclass
class Context:
    """What the comparators look at for one case."""
    up: dict  # upstream's outcome of this spelling
    ours: dict  # ours
    ref: dict | None = None  # upstream's float64 outcome of the same sample, when it applies
    allowance: float = 0.0  # derived for (entry, dtype): max(p90 own error, floor)
    own: float = 0.0  # upstream's own float32 error on this very sample
    errors: list = field(default_factory=list)  # the scaled errors values() measured
    values_defined: bool = True  # False where OpInfo says the values are arbitrary (empty)

    def tensor_pairs(self):
        ups = [v for k, v in leaves(self.up["tree"]) if k == "tensor"]
        ours = [v for k, v in leaves(self.ours["tree"]) if k == "tensor"]
        return list(zip(ups, ours))


def raises(c: Context):
    """Where upstream raises, ours raises the same type; where upstream returns, ours returns."""
    if c.up["ok"] and c.ours["ok"]:
        return None
    if not c.up["ok"] and not c.ours["ok"]:
        if c.up["exc"] == c.ours["exc"]:
            return None
        return f"upstream raises {c.up['exc']}, ours raises {c.ours['exc']}: {c.ours['msg']}"
    if c.up["ok"]:
        return f"ours raises {c.ours['exc']}: {c.ours['msg']}"
    return f"upstream raises {c.up['exc']} ({c.up['msg'][:80]}), ours returns"


def structure(c: Context):
    """The same nesting of results: tuple against tuple, tensor against tensor, same count."""
    a, b = skeleton(c.up["tree"]), skeleton(c.ours["tree"])
    if a != b:
        return f"result structure: upstream {a}, ours {b}"
    return None


def scalars(c: Context):
    """Non-tensor results (Python numbers, bools, dtypes) are equal exactly."""
    ups = [v for k, v in leaves(c.up["tree"]) if k == "value"]
    ours = [v for k, v in leaves(c.ours["tree"]) if k == "value"]
    for u, o in zip(ups, ours):
        both_nan = isinstance(u, float) and isinstance(o, float) and math.isnan(u) \
            and math.isnan(o)
        if type(u) is not type(o) or (u != o and not both_nan):
            return f"non-tensor result: upstream {u!r}, ours {o!r}"
    return None


def dtype(c: Context):
    for k, (u, o) in enumerate(c.tensor_pairs()):
        du, do = c.up["tensors"][u]["dtype"], c.ours["tensors"][o]["dtype"]
        if du != do:
            return f"result {k} dtype: upstream {du}, ours {do}"
    return None


def shape(c: Context):
    for k, (u, o) in enumerate(c.tensor_pairs()):
        su, so = c.up["tensors"][u]["shape"], c.ours["tensors"][o]["shape"]
        if su != so:
            return f"result {k} shape: upstream {su}, ours {so}"
    return None


def alias(c: Context):
    """A result shares storage with the same input as upstream's (a view), or with none."""
    for k, (u, o) in enumerate(c.tensor_pairs()):
        au, ao = c.up["tensors"][u]["alias"], c.ours["tensors"][o]["alias"]
        if au != ao:
            def say(a):
                return f"a view of input {a}" if a >= 0 else "not a view of any input"
            return f"result {k}: upstream's is {say(au)}, ours is {say(ao)}"
    return None


def identity(c: Context):
    """In-place and out= forms return the very input object, as upstream's do."""
    for k, (u, o) in enumerate(c.tensor_pairs()):
        iu, io = c.up["tensors"][u]["is_input"], c.ours["tensors"][o]["is_input"]
        if iu != io:
            def say(i):
                return f"input object {i}" if i >= 0 else "a new object"
            return f"result {k}: upstream returns {say(iu)}, ours {say(io)}"
    return None


def strides(c: Context):
    """A view has upstream's strides and storage offset (its layout is part of its meaning)."""
    for k, (u, o) in enumerate(c.tensor_pairs()):
        ru, ro = c.up["tensors"][u], c.ours["tensors"][o]
        if ru["alias"] < 0 or 0 in ru["shape"]:
            continue
        lu = [(n, s) for n, s in zip(ru["shape"], ru["stride"]) if n != 1]
        lo = [(n, s) for n, s in zip(ro["shape"], ro["stride"]) if n != 1]
        if lu != lo or ru["offset"] != ro["offset"]:
            return (f"view {k}: upstream strides {ru['stride']} offset {ru['offset']}, ours "
                    f"{ro['stride']} offset {ro['offset']}")
    return None


def _float_pairs(c: Context):
    for k, (u, o) in enumerate(c.tensor_pairs()):
        if c.up["tensors"][u]["dtype"] in FLOATING:
            yield k, u, o


def nonfinite(c: Context):
    """NaN, +inf and -inf sit exactly where upstream's do."""
    if not c.values_defined:
        return None
    for k, u, o in _float_pairs(c):
        a, b = tensor_values(c.up, u), tensor_values(c.ours, o)
        for name, test in (("NaN", np.isnan), ("+inf", np.isposinf), ("-inf", np.isneginf)):
            diff = test(a) != test(b)
            if diff.any():
                at = tuple(int(x) for x in np.argwhere(diff)[0])
                return (f"result {k}: {name} positions differ at {list(at)}: upstream "
                        f"{a[at]!r}, ours {b[at]!r}")
    return None


def exact(c: Context):
    """Integer, bool and index results are equal element for element."""
    if not c.values_defined:
        return None
    for k, (u, o) in enumerate(c.tensor_pairs()):
        if c.up["tensors"][u]["dtype"] in FLOATING:
            continue
        a, b = tensor_values(c.up, u), tensor_values(c.ours, o)
        diff = a != b
        if diff.any():
            at = tuple(int(x) for x in np.argwhere(diff)[0])
            return (f"result {k}: {int(diff.sum())} of {diff.size} elements differ, first at "
                    f"{list(at)}: upstream {a[at]!r}, ours {b[at]!r}")
    return None


def scaled_error(got: np.ndarray, ref: np.ndarray) -> float:
    """max |got - ref| over positions finite in both, over the largest finite |ref| (1 if
    there is none or it is 0), so tiny and denormal references cannot inflate the error."""
    try:
        got, ref = np.broadcast_arrays(got.astype(np.float64), ref.astype(np.float64))
    except ValueError:  # shapes that cannot be compared are the shape comparator's
        return math.inf
    both = np.isfinite(got) & np.isfinite(ref)
    if not both.any():
        return 0.0
    finite_ref = np.abs(ref[np.isfinite(ref)])
    scale = float(finite_ref.max()) if finite_ref.size else 0.0
    scale = scale if scale > 0 else 1.0
    with np.errstate(over="ignore"):  # divided first, so huge values cannot overflow
        return float(np.abs(got[both] / scale - ref[both] / scale).max())


def values(c: Context):
    """Floating results are within the allowance of upstream's float64 answer (or of upstream's
    own answer when there is no float64 rerun), or no further from it than upstream's own
    float32 result on this same sample."""
    if not c.values_defined:
        return None
    refs = None
    if c.ref is not None and c.ref.get("ok"):
        refs = [v for k, v in leaves(c.ref["tree"]) if k == "tensor"]
    for k, u, o in _float_pairs(c):
        got = tensor_values(c.ours, o)
        ref = tensor_values(c.up, u)
        if refs is not None and k < len(refs):
            wide = tensor_values(c.ref, refs[k])
            if wide.shape == ref.shape:
                ref = wide
        err = scaled_error(got, ref)
        c.errors.append(err)
        bound = max(c.allowance, c.own)
        if not err <= bound:
            return (f"result {k}: scaled error {err:.3g} exceeds the allowance {bound:.3g}"
                    + (f" (upstream's own on this sample {c.own:.3g})" if c.own > c.allowance
                       else ""))
    return None


# In judging order: the first objection decides. Each belongs to the grade it denies.
COMPARATORS = (
    ("raises", raises, "builds"),
    ("structure", structure, "builds"),
    ("dtype", dtype, "builds"),
    ("shape", shape, "builds"),
    ("scalars", scalars, "reaches"),
    ("alias", alias, "reaches"),
    ("identity", identity, "reaches"),
    ("strides", strides, "reaches"),
    ("nonfinite", nonfinite, "reaches"),
    ("exact", exact, "reaches"),
    ("values", values, "reaches"),
)


@dataclass
class Verdict:
    grade: str
    comparator: str | None  # the comparator that objected, or None
    reason: str
    error: float | None = None  # the largest scaled error measured (floating results)
    allowance: float | None = None
    exercised: tuple = ()  # the comparators that ran


def judge(c: Context, comparators=COMPARATORS) -> Verdict:
    """The grade of one case; `comparators` is replaceable so the fault test can remove one."""
    ran = []
    if c.ours.get("crash"):
        return Verdict("crashes", "crash", c.ours["crash"])
    if c.ours.get("harness"):
        return Verdict("crashes", "harness", f"replay failed: {c.ours['exc']}: {c.ours['msg']}")
    both_returned = c.up["ok"] and c.ours["ok"]
    for name, fn, denied in comparators:
        if name != "raises" and not both_returned:
            continue  # results to compare exist only when both sides returned
        ran.append(name)
        why = fn(c)
        if why is None:
            if name == "raises" and not c.up["ok"] and not c.ours["ok"]:
                return Verdict("agrees", None, f"both raise {c.up['exc']}",
                               exercised=tuple(ran))
            continue
        grade = denied
        if name == "raises" and not c.ours["ok"]:
            grade = "refuses" if c.ours["exc"] == "NotImplementedError" else "crashes"
            if not c.up["ok"] and grade == "crashes":
                grade = "builds"
        return Verdict(grade, name, why, max(c.errors) if c.errors else None, c.allowance,
                       tuple(ran))
    return Verdict("agrees", None, "agrees", max(c.errors) if c.errors else None, c.allowance,
                   tuple(ran))


def allowance(own_errors: list[float], dtype: str) -> float:
    """The derived allowance for one (entry, dtype): the 90th percentile of upstream's own
    scaled float32-vs-float64 errors over the samples, never below the floor."""
    floor = floor_of(dtype)
    own_errors = [e for e in own_errors if math.isfinite(e)]
    if not own_errors:
        return floor
    return max(float(np.percentile(np.asarray(own_errors), 90)), floor)


def own_error(ref: dict) -> float | None:
    """Upstream's own scaled error on one sample: its result against its float64 rerun."""
    up, wide = ref.get("outcome"), ref.get("outcome64")
    if not up or not wide or not up["ok"] or not wide["ok"]:
        return None
    a = [v for k, v in leaves(up["tree"]) if k == "tensor"]
    b = [v for k, v in leaves(wide["tree"]) if k == "tensor"]
    if len(a) != len(b):
        return None
    worst = None
    for u, w in zip(a, b):
        if up["tensors"][u]["dtype"] not in FLOATING:
            continue
        x, y = tensor_values(up, u), tensor_values(wide, w)
        if x.shape != y.shape:
            return None
        e = scaled_error(x, y)
        worst = e if worst is None else max(worst, e)
    return worst


def differentiable(c: Context):
    """The same outputs carry a gradient (floating and requiring grad) as upstream's."""
    up, ours = c.up.get("differentiable"), c.ours.get("differentiable")
    if up is not None and ours is not None and up != ours:
        return f"outputs requiring grad: upstream {up}, ours {ours}"
    return None


# Backward cases compare gradients: a gradient is computed or not (structure: None where
# upstream has one, or one where upstream has None), with upstream's dtype, shape, non-finite
# positions and values. Any objection after `raises` means a gradient was built and is wrong.
# Aliasing, identity and strides are not part of a gradient's meaning (upstream may hand back
# the cotangent itself where ours copies it).
BACKWARD_COMPARATORS = (
    ("raises", raises, "builds"),
    ("differentiable", differentiable, "builds"),
    ("structure", structure, "builds"),
    ("dtype", dtype, "builds"),
    ("shape", shape, "builds"),
    ("nonfinite", nonfinite, "builds"),
    ("values", values, "builds"),
)


def judge_backward(c: Context, comparators=BACKWARD_COMPARATORS) -> Verdict:
    """The grade of one backward case: agrees, refuses (NotImplementedError, a derivative we
    lack), builds (a gradient computed and wrong, or none where upstream has one) or crashes."""
    return judge(c, comparators)
