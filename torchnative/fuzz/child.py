"""The fuzzer's child process, the same file under either interpreter (ours or upstream's).

`child.py schemas`: reads op keys (JSON list) on stdin, prints each op's upstream schema as
plain data. `child.py case JSON`: one case, for a reproducer. `child.py run CASES.json`: builds
each case's arguments from its recipes (the format: draw.py's docstring), calls the op through
torch.ops.aten (or evaluates the case's expression), and prints `S ID` before and `R {json}`
after each case, so the parent knows which case was running when the process died.
TN_FUZZ_INJECT (ours only, for the fuzzer's own tests) names deliberate faults: `segv:ID` dies
by SIGSEGV before case ID, `swallow:ID` reports case ID as returning even when it raises.
"""

from __future__ import annotations

import json
import os
import resource
import sys

import numpy as np
import torch

READ_LIMIT = 1 << 16  # results with more elements are summarised, not read element by element
NP_OF = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
         "int32": np.int32, "int64": np.int64, "float16": np.float16, "bfloat16": np.float32,
         "float32": np.float32, "float64": np.float64, "complex64": np.complex64}
FLOATS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


def schemas(keys: list[str]) -> dict:
    """op key -> {"args": [...], "returns": n, "text": schema} from upstream's schema."""
    out = {}
    for key in keys:
        _, name, overload = key.split(".", 2)
        try:
            packet = getattr(torch.ops.aten, name)
            schema = getattr(packet, overload)._schema
        except (AttributeError, RuntimeError) as e:
            out[key] = {"error": f"{type(e).__name__}: {e}"[:200]}
            continue
        args = []
        for a in schema.arguments:
            alias = a.alias_info
            args.append({"name": a.name, "type": str(a.real_type), "kwarg_only": a.kwarg_only,
                         "has_default": a.has_default_value(),
                         "write": bool(alias is not None and alias.is_write)})
        out[key] = {"args": args, "returns": len(schema.returns), "text": str(schema)}
    return out


def values(rng: np.random.Generator, dtype: str, n: int, fill: str) -> np.ndarray:
    """n deterministic elements of dtype (bfloat16 as float32; the caller converts)."""
    np_dtype = NP_OF[dtype]
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        if fill == "special":
            pool = np.array([0, 1, -1, info.min, info.max, 2, 7], dtype=np.int64)
            return pool[rng.integers(0, len(pool), n)].astype(np_dtype)
        lo, hi = (0, 10) if info.min == 0 else (-5, 10)
        return rng.integers(lo, hi, n).astype(np_dtype)
    if fill == "special":
        pool = np.array([0.0, -0.0, 1.0, -1.5, np.nan, np.inf, -np.inf, 1e30, -1e-30, 65504.0])
        vals = pool[rng.integers(0, len(pool), n)]
    elif fill == "int":
        vals = rng.integers(-3, 4, n).astype(np.float64)
    else:
        vals = rng.standard_normal(n)
    if np_dtype is np.complex64:
        return (vals + 1j * rng.standard_normal(n)).astype(np.complex64)
    return vals.astype(np_dtype)


def dense(spec: dict, shape: list[int], rng) -> torch.Tensor:
    """A contiguous tensor of shape with the recipe's dtype, device and fill."""
    dtype = getattr(torch, spec["dtype"])
    if spec.get("device", "cpu") == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    flat = torch.from_numpy(values(rng, spec["dtype"], n, spec.get("fill", "rand")))
    if spec["dtype"] == "bfloat16":
        flat = flat.to(torch.bfloat16)
    return flat.reshape(shape)


def tensor(spec: dict, rng) -> torch.Tensor:
    """A tensor from a recipe {"dtype", "shape", "view", "fill", "device"}; the view is made from
    a larger base so that strides, offsets and expansion are what the recipe says."""
    shape, view = list(spec["shape"]), spec.get("view", "contig")
    if view == "t" and len(shape) >= 2:
        base = dense(spec, shape[:-2] + [shape[-1], shape[-2]], rng)
        return base.transpose(-1, -2)
    if view == "expand" and any(s > 1 for s in shape):
        first = next(i for i, s in enumerate(shape) if s > 1)
        small = shape[:first] + [1] + shape[first + 1:]
        return dense(spec, small, rng).expand(shape)
    if view == "offset":
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        return dense(spec, [n + 3], rng)[3:].view(shape)
    if view == "step" and shape:
        base = dense(spec, shape[:-1] + [2 * shape[-1]], rng)
        return base[..., ::2]
    return dense(spec, shape, rng)


def build(recipe, rng):
    """The Python object a recipe stands for (lists recursively; see recipe.md)."""
    if isinstance(recipe, list):
        return [build(r, rng) for r in recipe]
    if not isinstance(recipe, dict):
        return recipe
    (kind, v), = recipe.items()
    if kind == "t":
        return tensor(v, rng)
    if kind == "f":
        return FLOATS[v]
    if kind in ("dtype", "layout", "memory_format"):
        return getattr(torch, v)
    if kind == "device":
        return torch.device(v)
    if kind == "storage":
        return torch.zeros(v["n"], dtype=getattr(torch, v["dtype"])).untyped_storage()
    raise ValueError(f"unknown recipe kind {kind!r}")


def summary(obj) -> object:
    """Plain data for a result: tensors by shape, dtype and device (and read through, so that a
    view past its storage is touched); Python scalars by type."""
    if isinstance(obj, torch.Tensor):
        rec = {"shape": list(obj.shape), "dtype": str(obj.dtype).removeprefix("torch."),
               "device": obj.device.type}
        if obj.device.type == "cpu" and obj.numel() <= READ_LIMIT:
            obj.tolist()
        return {"tensor": rec}
    if isinstance(obj, (list, tuple)):
        return [summary(x) for x in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"py": type(obj).__name__}
    return {"py": type(obj).__qualname__}


def call(case: dict):
    """Runs one case; returns its result (raises what the op raises)."""
    if "expr" in case:
        return eval(case["expr"], {"torch": torch})  # noqa: S307 - our own committed cases
    _, name, overload = case["op"].split(".", 2)
    fn = getattr(getattr(torch.ops.aten, name), overload)
    rng = np.random.default_rng(case.get("seed", 0))
    try:
        args = [build(r, rng) for r in case["args"]]
        kwargs = {k: build(r, rng) for k, r in case["kwargs"].items()}
    except Exception as e:  # noqa: BLE001
        raise SetupError(f"{type(e).__name__}: {e}") from e
    return fn(*args, **kwargs)


class SetupError(Exception):
    """The arguments could not be built (the case is not judged)."""


def outcome(case: dict, inject: dict) -> dict:
    if inject.get("segv") == case["id"]:
        import ctypes

        ctypes.string_at(0)
    torch.manual_seed(0)
    try:
        result = call(case)
        return {"ok": True, "result": summary(result)}
    except SetupError as e:
        return {"ok": False, "setup": str(e)[:300]}
    except Exception as e:  # noqa: BLE001 - every exception type is an outcome
        if inject.get("swallow") == case["id"]:
            return {"ok": True, "result": {"py": "NoneType"}}
        return {"ok": False, "exc": type(e).__name__, "msg": str(e)[:300]}


def run(path: str) -> None:
    inject = {}
    for item in filter(None, os.environ.get("TN_FUZZ_INJECT", "").split(",")):
        kind, _, case_id = item.partition(":")
        inject[kind] = case_id
    torch.set_num_threads(1)
    with open(path) as f:
        cases = json.load(f)
    for case in cases:
        print("S " + case["id"], flush=True)
        print("R " + json.dumps({"id": case["id"], **outcome(case, inject)}), flush=True)
    print("D", flush=True)


def limit_memory() -> None:
    """Caps the address space, so a hostile size fails to allocate instead of swapping the
    machine (both interpreters run under the same cap)."""
    cap = int(os.environ.get("TN_FUZZ_MEMORY_MB", "6144")) << 20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def main(argv: list[str]) -> int:
    if argv[0] == "schemas":
        print(json.dumps(schemas(json.load(sys.stdin))))
        return 0
    if argv[0] == "case":  # a reproducer: one case, its exception left to propagate
        print(summary(call(json.loads(argv[1]))))
        return 0
    limit_memory()
    run(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
