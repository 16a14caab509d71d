"""Our half: replays recorded cases through our core, one case at a time (runs under .venv only).

A worker process reads commands on stdin, `RUN DRAW_FILE RESULT_FILE START`, and for each case
from index START on prints `S INDEX` before running it, then appends the case's outcome to
RESULT_FILE as one length-prefixed pickle, and prints `D` when the entry is done. A case that
kills or hangs the worker is therefore known by the last `S` line; the parent (__main__.py) grades
it a crash and restarts the worker at the next index. TN_HARNESS_INJECT names a deliberate fault
(`gelu_tanh`: exact gelu computed with the tanh approximation) for the harness's own tests.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

from torchnative.harness import codec  # noqa: E402

INJECT = os.environ.get("TN_HARNESS_INJECT", "")


def resolve(path: str):
    head, *rest = path.split(".")
    obj = __import__("operator") if head == "operator" else __import__(head)
    for part in rest:
        obj = getattr(obj, part)
    return obj


def injected(path: str, fn):
    """fn, or fn with the fault TN_HARNESS_INJECT names wrapped around it."""
    if INJECT != "gelu_tanh" or not {"gelu", "gelu_"} & set(path.split(".")):
        return fn

    def tanh_gelu(*args, **kwargs):
        if kwargs.get("approximate", "none") == "none" and len(args) < 2:
            kwargs = dict(kwargs, approximate="tanh")
        return fn(*args, **kwargs)

    return tanh_gelu


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


def run_entry(draw_file: str, result_file: str, start: int) -> None:
    record = codec.load(draw_file)
    with open(result_file, "ab") as f:
        for i, case in enumerate(record["cases"]):
            if i < start:
                continue
            print(f"S {i}", flush=True)
            t0 = time.perf_counter()
            ours = run_case(case)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
