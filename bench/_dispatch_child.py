"""The per-call cases of bench/dispatch_bench.py, timed under this interpreter's torch.

Run by path, `python -I _dispatch_child.py REQUEST_JSON`; stays resident and answers each `round`
command with every runnable case's seconds per call. Before the rounds it sends each case's result
once (exact bytes, base64) so the parent can check it against upstream; a case that raises is
reported by name and left out of the rounds, the others still run. The parent imports CASES.
"""

from __future__ import annotations

import base64
import json
import sys
import timeit
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
from torchnative import _child  # noqa: E402
from torchnative._child import send, step  # noqa: E402

# (statement, check). Inputs: x, y (2, 2); v (1, 384); w (384, 384); b (384,); h (8, 384);
# g, c (384,); p, an nn.Parameter holding x's values; xr, x's values with requires_grad=True;
# add_no_grad(a, b), a + b under torch.no_grad(). The last three rows show what the Autograd
# layer costs: `xr + y` records an AddBackward0 node (issue 8's recording-overhead row, goal
# <= 0.8x upstream), `torch.add(p, y)` the same through a Parameter, and add_no_grad that
# grad mode off costs nothing. Checks: exact (same bytes), view (same bytes and aliases x),
# layout (shape, dtype and stride only: values are undefined), size (same torch.Size), derived
# (within 2 x upstream's own float32 error, from the same statement run in float64).
CASES = (
    ("torch.add(x, y)", "exact"),
    ("x + 1.0", "exact"),
    ("x.view(-1)", "view"),
    ("x.transpose(0, 1)", "view"),
    ("torch.empty(4)", "layout"),
    ("x[0]", "view"),
    ("x.size()", "size"),
    ("F.linear(v, w, b)", "derived"),
    ("F.layer_norm(h, (384,), g, c)", "derived"),
    ("xr + y", "exact"),
    ("torch.add(p, y)", "exact"),
    ("add_no_grad(xr, y)", "exact"),
)


def values(count: int, seed: int) -> list[float]:
    """Deterministic values in [-1, 1), multiples of 1/1024 (exact in float32), the same in every
    process: the top 11 bits of a 32-bit linear congruential sequence (no repeats at our sizes)."""
    state, out = seed, []
    for _ in range(count):
        state = (1664525 * state + 1013904223) % 2**32
        out.append(((state >> 21) - 1024) / 1024)
    return out


def rows(count: int, width: int, seed: int) -> list[list[float]]:
    flat = values(count * width, seed)
    return [flat[r * width:(r + 1) * width] for r in range(count)]


def inputs(torch, dtype) -> dict:
    """The cases' namespace, every tensor built from Python lists (no RNG, no factory ops)."""
    import torch.nn.functional as F

    def t(data):
        return torch.tensor(data, dtype=dtype)

    def add_no_grad(a, b):
        with torch.no_grad():
            return a + b

    return {"torch": torch, "F": F, "add_no_grad": add_no_grad,
            "p": torch.nn.Parameter(t(rows(2, 2, 1))), "xr": t(rows(2, 2, 1)).requires_grad_(),
            "x": t(rows(2, 2, 1)), "y": t(rows(2, 2, 2)),
            "v": t(rows(1, 384, 3)), "w": t(rows(384, 384, 4)), "b": t(values(384, 5)),
            "h": t(rows(8, 384, 6)), "g": t(values(384, 7)), "c": t(values(384, 8))}


def record(torch, result, namespace: dict, check: str) -> dict:
    """What the parent compares: type, dtype, shape, stride, exact bytes, aliasing."""
    if isinstance(result, torch.Size):
        return {"type": type(result).__name__, "value": list(result)}
    out = {"type": type(result).__name__, "dtype": str(result.dtype),
           "shape": list(result.shape), "stride": list(result.stride())}
    if check == "view":
        out["aliases_x"] = result.data_ptr() == namespace["x"].data_ptr()
    if check != "layout":
        data, out["route"] = _child.tensor_bytes(result)
        out["data"] = base64.b64encode(data).decode()
    return out



def main(request: dict) -> None:
    torch, loaded = _child.import_torch(request)
    with step("build the inputs"):
        namespace = inputs(torch, torch.float32)
        namespace64 = inputs(torch, torch.float64) if request["reference64"] else None
    results, references, timers = {}, {}, {}
    for stmt, check in CASES:
        try:
            results[stmt] = {"ok": True,
                             "result": record(torch, eval(stmt, namespace), namespace, check)}
            timers[stmt] = timeit.Timer(stmt, globals=namespace)
        except Exception as exc:  # reported by name; the other cases still run
            results[stmt] = {"ok": False, "failure": _child.describe(exc, f"run {stmt}")}
        if namespace64 is not None and check == "derived":
            with step(f"run {stmt} in float64", announce=False):
                references[stmt] = record(torch, eval(stmt, namespace64), namespace64, check)
    send({"ok": True, "torch": loaded, "threads": torch.get_num_threads(), "cases": results,
          "reference64": references})
    loops: dict[str, int] = {}
    for command in _child.commands():
        with step(f"timed round ({command})", announce=False):
            seconds = {stmt: _child.per_call(timer, request, loops, stmt)
                       for stmt, timer in timers.items()}
        send({"ok": True, "seconds": seconds, "loops": loops})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
