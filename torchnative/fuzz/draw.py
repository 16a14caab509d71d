"""Draws fuzz cases from upstream's op schemas with hypothesis; imports no torch.

A case is plain data (recipe.md): the op key, one recipe per argument, a seed for the element
values. Each argument is drawn from its schema type and name: mostly a plausible value (tensors of
one shared shape and dtype, dims in range), often a hostile one (the HOSTILE_* pools: ints past
int64, dims out of range, empty, 0-dim and non-contiguous tensors, mismatched dtypes and shapes,
NaN/inf scalars, meta mixed with cpu, out= of the wrong dtype or shape, expanded in-place
targets). Draws are deterministic: one fixed hypothesis seed per op, no example database.

A case: {"id", "op": "aten.add.Tensor", "args": [recipe...], "kwargs": {name: recipe}, "seed"}
(or {"id", "expr": "torch...."} for surface.py). A recipe is a JSON value passed as it is (int,
float, bool, str, None; a list of recipes is a list) or a one-key object: {"t": {"dtype",
"shape", "view": contig|t|expand|offset|step, "fill": rand|int|special, "device": cpu|meta}} a
tensor (child.py builds the view from a larger base; elements from NumPy seeded by "seed"),
{"f": "nan"|"inf"|"-inf"}, {"dtype": name}, {"layout": name}, {"memory_format": name},
{"device": name}, {"storage": {"dtype", "n"}}.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

# No example database is used; hypothesis still keeps small caches, which go to build/, not to
# a .hypothesis folder in the working directory.
set_hypothesis_home_dir(str(Path(__file__).resolve().parents[2] / "build" / "hypothesis"))

HOSTILE_INTS = (2**31, 2**62, 2**63 - 1, -(2**63), 2**64, 2**70, -1, -(2**31) - 1, -(2**70))
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
          "int8", "complex64")
SHAPES = ([2, 3], [3], [4, 1, 3], [], [0], [2, 0, 3], [1], [3, 2], [2, 3, 4], [1, 3])
VIEWS = ("contig", "contig", "contig", "t", "expand", "offset", "step")
HOSTILE_SIZES = ([-1], [2**62], [2**31, 2**31], [2**63 - 1], [-(2**63)], [2**64], [3, -2],
                 [2**40, 2**40], [0], [])
STRINGS = ("none", "tanh", "trunc", "floor", "mean", "sum", "bogus", "")
FLOATS = (0.5, -1.0, 0.0, 2.0, 1e-5, 3.0, 1e308, -0.0)
SPECIAL_FLOATS = ("nan", "inf", "-inf")
MEMORY_FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")
DIM_NAMES = ("dim", "dim0", "dim1", "dim2", "start_dim", "end_dim", "source", "destination",
             "dimension", "dims")


def hostile(data, label: str) -> bool:
    """True about one time in four: this argument gets a hostile value."""
    return data.draw(st.integers(0, 3), label=label) == 3


def draw_shape(data) -> list[int]:
    return list(data.draw(st.sampled_from(SHAPES), label="shape"))


def draw_tensor(data, ctx: dict, role: str = "input") -> dict:
    """A tensor recipe; shape and dtype follow the case's shared ones unless drawn hostile."""
    shape, dtype, view, device = ctx["shape"], ctx["dtype"], "contig", "cpu"
    if hostile(data, "tensor shape"):
        shape = draw_shape(data)
    elif data.draw(st.booleans(), label="broadcast") and shape:
        shape = shape[1:] if data.draw(st.booleans()) else [1] + shape[1:]
    if hostile(data, "tensor dtype"):
        dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    view = data.draw(st.sampled_from(VIEWS), label="view")
    if role == "inplace" and data.draw(st.booleans(), label="expanded self"):
        view = "expand"
    if data.draw(st.integers(0, 11), label="meta") == 11:
        device = "meta"
    fill = data.draw(st.sampled_from(("rand", "rand", "int", "special")), label="fill")
    return {"t": {"dtype": dtype, "shape": shape, "view": view, "fill": fill, "device": device}}


def draw_int(data, name: str, ctx: dict) -> object:
    if hostile(data, f"{name} hostile"):
        return data.draw(st.sampled_from(HOSTILE_INTS), label=name)
    if name in DIM_NAMES:
        rank = max(len(ctx["shape"]), 1)
        return data.draw(st.integers(-rank - 1, rank), label=name)
    return data.draw(st.integers(-2, 6), label=name)


def draw_int_list(data, name: str, ctx: dict) -> list:
    if name in DIM_NAMES:
        return [draw_int(data, name, ctx) for _ in range(data.draw(st.integers(0, 3)))]
    if hostile(data, f"{name} hostile"):
        return list(data.draw(st.sampled_from(HOSTILE_SIZES), label=name))
    if name in ("size", "shape", "sizes", "normalized_shape"):
        return list(data.draw(st.sampled_from([ctx["shape"], *SHAPES]), label=name))
    return [data.draw(st.integers(-1, 4)) for _ in range(data.draw(st.integers(0, 3)))]


def draw_float(data, name: str) -> object:
    if hostile(data, f"{name} hostile"):
        return {"f": data.draw(st.sampled_from(SPECIAL_FLOATS), label=name)}
    return data.draw(st.sampled_from(FLOATS), label=name)


def draw_scalar(data, name: str) -> object:
    kind = data.draw(st.sampled_from(("int", "float", "bool", "hostile")), label=name)
    if kind == "int":
        return data.draw(st.integers(-3, 5))
    if kind == "float":
        return data.draw(st.sampled_from(FLOATS))
    if kind == "bool":
        return data.draw(st.booleans())
    if data.draw(st.booleans()):
        return data.draw(st.sampled_from(HOSTILE_INTS))
    return {"f": data.draw(st.sampled_from(SPECIAL_FLOATS))}


def draw_index_list(data, ctx: dict) -> list:
    """Tensor?[] (indices): None, int64 index tensors or bool masks, possibly out of range."""
    out = []
    for _ in range(data.draw(st.integers(0, 3), label="indices")):
        kind = data.draw(st.sampled_from(("none", "long", "long", "mask", "other")))
        if kind == "none":
            out.append(None)
        elif kind == "mask":
            out.append({"t": {"dtype": "bool", "shape": ctx["shape"][:1], "view": "contig",
                              "fill": "rand", "device": "cpu"}})
        elif kind == "long":
            fill = "special" if hostile(data, "index range") else "int"
            out.append({"t": {"dtype": "int64", "shape": draw_shape(data), "view": "contig",
                              "fill": fill, "device": "cpu"}})
        else:
            out.append(draw_tensor(data, ctx))
    return out


def draw_value(data, arg: dict, ctx: dict, role: str) -> object:
    """A recipe for one argument of schema type arg["type"]."""
    kind, name = arg["type"], arg["name"]
    if kind.startswith("Optional["):
        if data.draw(st.integers(0, 3), label=f"{name} is None") == 3:
            return None
        kind = kind[len("Optional["):-1]
    if kind == "Tensor":
        return draw_tensor(data, ctx, role)
    if kind == "int":
        return draw_int(data, name, ctx)
    if kind == "List[int]":
        return draw_int_list(data, name, ctx)
    if kind == "float":
        return draw_float(data, name)
    if kind == "List[float]":  # scale factors: empty, the right length, or not
        n = data.draw(st.integers(0, 3), label=f"{name} length")
        return [draw_float(data, name) for _ in range(n)]
    if kind == "number":
        return draw_scalar(data, name)
    if kind == "List[number]":
        n = data.draw(st.integers(0, 3), label=f"{name} length")
        return [draw_scalar(data, name) for _ in range(n)]
    if kind == "bool":
        return data.draw(st.booleans(), label=name)
    if kind == "List[bool]":  # output_mask: bool[3], sometimes of a wrong length
        n = data.draw(st.sampled_from((3, 3, 3, 2)), label=f"{name} length")
        return [data.draw(st.booleans(), label=name) for _ in range(n)]
    if kind == "ScalarType":
        return {"dtype": data.draw(st.sampled_from(DTYPES), label=name)}
    if kind == "Layout":
        return {"layout": data.draw(st.sampled_from(("strided", "strided", "sparse_coo")))}
    if kind == "Device":
        return {"device": data.draw(st.sampled_from(("cpu", "cpu", "meta")), label=name)}
    if kind == "MemoryFormat":
        return {"memory_format": data.draw(st.sampled_from(MEMORY_FORMATS), label=name)}
    if kind == "str":
        return data.draw(st.sampled_from(STRINGS), label=name)
    if kind == "List[Tensor]":
        n = data.draw(st.integers(0, 3), label=f"{name} length")
        return [draw_tensor(data, ctx) for _ in range(n)]
    if kind == "List[Optional[Tensor]]":
        return draw_index_list(data, ctx)
    if kind == "Storage":
        return {"storage": {"dtype": ctx["dtype"], "n": data.draw(st.sampled_from((0, 6, 24)))}}
    if kind == "Generator":
        return None
    raise ValueError(f"no strategy for schema type {kind!r}")


def draw_case(data, op: str, schema: dict) -> dict:
    """One case of op: shared shape and dtype first, then every argument in schema order."""
    ctx = {"shape": draw_shape(data),
           "dtype": data.draw(st.sampled_from(DTYPES[:5] if hostile(data, "dtype") else
                                              ("float32",)), label="case dtype")}
    args, kwargs = [], {}
    inplace = op.split(".")[1].endswith("_")
    omit_rest = False
    for arg in schema["args"]:
        role = "inplace" if inplace and arg["write"] and not arg["kwarg_only"] else "input"
        if arg["has_default"] and data.draw(st.integers(0, 2), label="use default") == 2:
            omit_rest = omit_rest or not arg["kwarg_only"]
            continue
        value = draw_value(data, arg, ctx, role)
        if arg["kwarg_only"]:
            kwargs[arg["name"]] = value
        elif omit_rest:
            kwargs[arg["name"]] = value
        else:
            args.append(value)
    case = {"op": op, "args": args, "kwargs": kwargs,
            "seed": data.draw(st.integers(0, 2**16), label="values seed")}
    return with_id(case)


def with_id(case: dict) -> dict:
    """The case with its id: the op key and a hash of the rest, stable across draw order."""
    body = {k: v for k, v in case.items() if k != "id"}
    digest = hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()[:10]
    return {"id": f"{case.get('op', 'expr')}#{digest}", **body}


def cases_for(op: str, schema: dict, n: int, salt: int = 0) -> list[dict]:
    """Up to n distinct cases of op, the same on every run (a fixed seed per op and salt)."""
    found: dict[str, dict] = {}

    @seed(zlib.crc32(op.encode()) + salt)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        case = draw_case(data, op, schema)
        found.setdefault(case["id"], case)

    collect()
    return list(found.values())
