"""Our half: replays recorded cases through our core, one case at a time (runs under .venv only).

A worker process reads commands on stdin, `RUN DRAW_FILE RESULT_FILE START`, and for each case
from index START on prints `S INDEX` before running it, then appends the case's outcome to
RESULT_FILE as one length-prefixed pickle, and prints `D` when the entry is done. A case that
kills or hangs the worker is therefore known by the last `S` line; the parent (__main__.py) grades
it a crash and restarts the worker at the next index. Each case is also run with its tensors on
meta and compared with our CPU run (shapes, dtypes, strides; exception types): the Meta-vs-CPU
differential that docs/AGREEMENT.md reports; and once more under a logging TorchDispatchMode,
for the overload sequence report.py compares with upstream's. TN_HARNESS_INJECT names a
deliberate fault for the harness's own tests (`gelu_tanh`: exact gelu computed with the tanh
approximation; `abs_clone`: abs of a clone of its input, the same values through one more op;
`grad_wrong:NAME` and `grad_missing:NAME`, for backward replays only: the op NAME's gradients
scaled by 1.25 (a wrong derivative), or a backward that refuses by name (a missing one)). The
command `BWD DRAW_FILE RESULT_FILE START` replays draw_bwd.py's backward cases the same way.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

from torchnative.harness import backward, codec  # noqa: E402
from torchnative.harness.dispatch_log import dispatch_sequence  # noqa: E402
from torchnative.harness.wrapped import resolve  # noqa: E402

INJECT = os.environ.get("TN_HARNESS_INJECT", "")


def injected(path: str, fn, for_backward: bool = False):
    """fn, or fn with the fault TN_HARNESS_INJECT names wrapped around it."""
    parts = set(path.split("."))
    kind, _, name = INJECT.partition(":")
    if kind in ("grad_wrong", "grad_missing") and name in parts:
        return grad_fault(kind, path, fn) if for_backward else fn
    if INJECT == "abs_clone" and "abs" in parts:
        def abs_of_clone(*args, **kwargs):
            if args:
                args = (args[0].clone(), *args[1:])
            else:
                kwargs = {k: v.clone() if k in ("self", "input") else v for k, v in kwargs.items()}
            return fn(*args, **kwargs)

        return abs_of_clone
    if INJECT != "gelu_tanh" or not {"gelu", "gelu_"} & parts:
        return fn

    def tanh_gelu(*args, **kwargs):
        if kwargs.get("approximate", "none") == "none" and len(args) < 2:
            kwargs = dict(kwargs, approximate="tanh")
        return fn(*args, **kwargs)

    return tanh_gelu


class _Refuses(torch.autograd.Function):
    """The identity forward; a backward that refuses by name, as a missing derivative does."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for the injected op is not implemented")


def grad_fault(kind: str, path: str, fn):
    """fn whose floating outputs carry the same values and a wrong gradient (scaled by 1.25:
    y + 0.25 (y - y.detach()) adds 0.25 y's gradient) or a refusing one."""
    def fault(t):
        if not (isinstance(t, torch.Tensor) and t.is_floating_point() and t.requires_grad):
            return t
        return t + 0.25 * (t - t.detach()) if kind == "grad_wrong" else _Refuses.apply(t)

    def wrapped(*args, **kwargs):
        result = fn(*args, **kwargs)
        if isinstance(result, (tuple, list)):
            return type(result)(fault(t) for t in result)
        return fault(result)

    return wrapped


def run_case(case: dict) -> dict:
    """Our outcome of one recorded case; an exception the harness itself raises is reported as
    such (kind "harness"), so it is never mistaken for the op's own."""
    try:
        tensors = codec.rebuild(case["state"])
        args = codec.decode(case["args"], tensors)
        kwargs = codec.decode(case["kwargs"], tensors)
        fn = injected(case["call"], resolve(case["call"]))
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "exc": type(e).__name__, "msg": str(e)[:300], "harness": True}
    torch.manual_seed(case["seed"])
    try:
        result = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - every exception type is an outcome
        return codec.outcome(None, tensors, e)
    try:
        return codec.outcome(result, tensors)
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "exc": type(e).__name__, "msg": f"encoding our result: {e}"[:300],
                "harness": True}


def dispatch_of(case: dict) -> list[str] | None:
    """Our overload sequence for the case, as draw.py logged upstream's (None where upstream's
    was not logged: error inputs)."""
    if "dispatch" not in case:
        return None
    try:
        tensors = codec.rebuild(case["state"])
        args = codec.decode(case["args"], tensors)
        kwargs = codec.decode(case["kwargs"], tensors)
        fn = injected(case["call"], resolve(case["call"]))
    except Exception:  # noqa: BLE001 - the case's own outcome already says why
        return None
    torch.manual_seed(case["seed"])
    return dispatch_sequence(fn, args, kwargs)


def _structure(obj):
    """Shapes, dtypes and strides of a result tree's tensors; other leaves by type name."""
    if isinstance(obj, torch.Tensor):
        return ["T", list(obj.shape), str(obj.dtype), list(obj.stride())]
    if isinstance(obj, (list, tuple)):
        return [_structure(x) for x in obj]
    return type(obj).__name__


def _to_meta(obj, memo: dict | None = None):
    """The same geometry on meta: sizes, strides, storage offset and storage size (a view's
    arguments stay in bounds), dtype and requires_grad. Aliasing is kept (memo, shared by every
    argument of one call): the same tensor twice is one meta tensor, and tensors of one storage
    and dtype are views of one meta base, so overlap checks (cat(x, y, out=y)) see it."""
    memo = {} if memo is None else memo
    if isinstance(obj, torch.Tensor):
        if id(obj) in memo:
            return memo[id(obj)]
        t = obj.detach()
        storage = t.untyped_storage()
        key = ("base", storage.data_ptr(), storage.nbytes(), t.dtype)
        if storage.data_ptr() == 0 or key not in memo:
            elems = storage.nbytes() // max(t.element_size(), 1)
            memo[key] = torch.empty(elems, dtype=t.dtype, device="meta")
        m = memo[key].as_strided(t.shape, t.stride(), t.storage_offset())
        m = m.requires_grad_(obj.requires_grad) if obj.requires_grad else m
        memo[id(obj)] = m
        return m
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_meta(x, memo) for x in obj)
    if isinstance(obj, dict):
        return {k: _to_meta(v, memo) for k, v in obj.items()}
    return obj


def _holds_tensor(obj) -> bool:
    if isinstance(obj, torch.Tensor):
        return True
    return isinstance(obj, (list, tuple)) and any(_holds_tensor(x) for x in obj)


def _holds_storage(obj) -> bool:
    if isinstance(obj, (torch.UntypedStorage, torch.TypedStorage)):
        return True
    return isinstance(obj, (list, tuple)) and any(_holds_storage(x) for x in obj)


# A CPU result that needs the data (a Python number, a data-dependent shape) has no meta twin:
# upstream's meta kernels refuse these too, with these messages.
_DATA_DEPENDENT = ("cannot be called on meta tensors", "Cannot copy out of meta tensor",
                   "data-dependent", "has no data")


def meta_differential(case: dict) -> dict | None:
    """The case again with every tensor argument on meta, against our CPU run of it: where CPU
    returns, meta must return the same shapes, dtypes and strides; where CPU raises, meta must
    raise the same type. None when there is nothing to move (no tensor argument but out=, or a
    storage argument, which stays on the CPU)."""
    tensors = codec.rebuild(case["state"])
    probe_args = codec.decode(case["args"], tensors)
    probe_kwargs = codec.decode(case["kwargs"], tensors)
    movable = [a for a in list(probe_args) + [v for k, v in probe_kwargs.items() if k != "out"]
               if _holds_tensor(a)]
    # Nothing to move but an out= tensor (a factory's), or a storage that stays on the CPU.
    if not movable or any(_holds_storage(a) for a in list(probe_args) + list(
            probe_kwargs.values())):
        return None
    fn = resolve(case["call"])

    def run(on_meta: bool):
        ts = codec.rebuild(case["state"])
        args = codec.decode(case["args"], ts)
        kwargs = codec.decode(case["kwargs"], ts)
        if on_meta:
            memo: dict = {}
            args, kwargs = _to_meta(args, memo), _to_meta(kwargs, memo)
        torch.manual_seed(case["seed"])
        try:
            return ["returns", _structure(fn(*args, **kwargs))]
        except Exception as e:  # noqa: BLE001 - every exception type is an outcome
            return ["raises", type(e).__name__, str(e)[:200]]

    cpu, meta = run(False), run(True)
    if meta[0] == "raises" and any(m in meta[2] for m in _DATA_DEPENDENT):
        return {"verdict": "data-dependent"}  # whatever CPU did with the values
    same = cpu[:2] == meta[:2]
    return {"verdict": "same" if same else "mismatch", "cpu": cpu[:2], "meta": meta[:3]}


def run_entry(draw_file: str, result_file: str, start: int) -> None:
    record = codec.load(draw_file)
    with open(result_file, "ab") as f:
        for i, case in enumerate(record["cases"]):
            if i < start:
                continue
            print(f"S {i}", flush=True)
            t0 = time.perf_counter()
            ours = run_case(case)
            try:
                meta = meta_differential(case)
            except NotImplementedError:  # its inputs cannot be built here (complex dtypes)
                meta = {"verdict": "not built"}
            except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
                meta = {"verdict": "harness", "error": f"{type(e).__name__}: {e}"[:300]}
            try:
                dispatch = dispatch_of(case)
            except Exception:  # noqa: BLE001 - a mode that cannot run is no sequence
                dispatch = None
            codec.append_record(f, {"index": i, "id": case["id"], "ours": ours, "meta": meta,
                                    "dispatch": dispatch, "seconds": time.perf_counter() - t0})
    print("D", flush=True)


def run_backward_case(case: dict) -> dict:
    """Our gradients of one backward case, with upstream's cotangents where upstream returned;
    an exception the harness itself raises is reported as such."""
    try:
        fn = injected(case["call"], resolve(case["call"]), for_backward=True)
        cot, which = None, None
        if case["upstream"]["ok"]:
            cot, which = backward.decode_cotangents(case["cotangents"]), case["differentiable"]
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "exc": type(e).__name__, "msg": str(e)[:300], "harness": True}
    out = backward.run_backward(fn, case["state"], case["args"], case["kwargs"], case["seed"],
                                cot, which, case_id=case["id"], clone=case.get("clone", False),
                                frozen=set(case.get("frozen", ())))
    out.pop("cotangents", None)
    return out


def run_backward_entry(draw_file: str, result_file: str, start: int) -> None:
    record = codec.load(draw_file)
    with open(result_file, "ab") as f:
        for i, case in enumerate(record["cases"]):
            if i < start:
                continue
            print(f"S {i}", flush=True)
            t0 = time.perf_counter()
            try:
                ours = run_backward_case(case)
            except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
                ours = {"ok": False, "exc": type(e).__name__, "msg": str(e)[:300],
                        "harness": True}
            codec.append_record(f, {"index": i, "id": case["id"], "ours": ours,
                                    "seconds": time.perf_counter() - t0})
    print("D", flush=True)


def main() -> int:
    torch.set_num_threads(1)
    print("READY", flush=True)
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "EXIT":
            break
        if parts[0] == "RUN":
            run_entry(parts[1], parts[2], int(parts[3]))
        elif parts[0] == "BWD":
            run_backward_entry(parts[1], parts[2], int(parts[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
