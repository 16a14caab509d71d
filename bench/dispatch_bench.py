"""Per-call cost of small torch calls, ours against upstream: writes docs/BENCH_DISPATCH.md.

Run from the repository root: `.venv/bin/python bench/dispatch_bench.py [--rounds N]`. The cases
and their inputs are in bench/_dispatch_child.py, the method in bench/_common.py. A case's speed
is reported only where its result agrees with upstream's (or, for torch.empty, reaches: same
shape, dtype and stride); otherwise the row says it disagrees or does not run, with the reason.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _common  # noqa: E402
from _dispatch_child import CASES  # noqa: E402

from torchnative.agree import max_abs_diff, within_own_error  # noqa: E402
from torchnative.children import Child, format_failure  # noqa: E402
from torchnative.envs import ROOT  # noqa: E402

CHILD = Path(__file__).with_name("_dispatch_child.py")
CHECK_NAMES = {"exact": "bit-identical", "view": "bit-identical, a view of x",
               "layout": "shape, dtype, stride", "size": "same torch.Size",
               "derived": "≤ 2 × upstream's own f32 error"}


def start(label: str, env, target_s: float, echo: bool) -> _common.Side:
    expect_c, missing = _common.expected_c(label, env)
    if missing is not None:
        return missing
    request = {"expect_c": expect_c, "threads": _common.THREADS, "target_s": target_s,
               "repeats": _common.REPEATS, "reference64": label == "upstream A"}
    log = ROOT / "build" / "bench" / f"dispatch-{label.replace(' ', '-')}.log"
    child = Child(env, CHILD, [json.dumps(request)], log, _common.THREADS, echo, label)
    return _common.Side(label, env, child, child.receive())


def decode(record: dict) -> np.ndarray:
    dtype = {"torch.float32": np.float32, "torch.float64": np.float64}[record["dtype"]]
    return np.frombuffer(base64.b64decode(record["data"]), dtype=dtype).reshape(record["shape"])


def compare(check: str, got: dict, ref: dict, ref64: dict | None) -> tuple[str, str]:
    """(grade, detail) of one case's result against upstream A's."""
    for key in ("type", "dtype", "shape", "stride", "value", "aliases_x"):
        if got.get(key) != ref.get(key):
            return "disagrees", f"{key} {got.get(key)} where upstream has {ref.get(key)}"
    if check == "size":
        return "agrees", "same torch.Size"
    if check == "layout":
        return "reaches", "shape, dtype and stride match; values undefined, not compared"
    if check in ("exact", "view"):
        if got["data"] == ref["data"]:
            return "agrees", "bit-identical"
        return "disagrees", f"max |Δ| = {max_abs_diff(decode(got), decode(ref)):.3g}, not 0"
    verdict = within_own_error(decode(got), decode(ref), decode(ref64), name="result")
    return ("agrees" if verdict.ok else "disagrees"), str(verdict)


def case_outcome(stmt: str, check: str, side: _common.Side, ref: _common.Side):
    """(grade, detail, per-round seconds or None) of one case on one side, against A."""
    if side.failure is not None:
        return "does not run", format_failure(side.failure, where=False), None
    mine, theirs = side.hello["cases"][stmt], ref.hello["cases"][stmt]
    if not mine["ok"]:
        return "does not run", format_failure(mine["failure"]), None
    if not theirs["ok"]:
        return "does not run", f"upstream A: {format_failure(theirs['failure'])}", None
    grade, detail = compare(check, mine["result"], theirs["result"],
                            ref.hello["reference64"].get(stmt))
    return grade, detail, [r["seconds"][stmt] for r in side.rounds]


def row(stmt: str, check: str, ours, up_a, up_b) -> dict:
    out = {"case": stmt, "check": check}
    if up_a.failure is not None:
        out["upstream A"] = f"does not run: {format_failure(up_a.failure)}"
        return out
    a_times = [r["seconds"][stmt] for r in up_a.rounds]
    out["upstream_seconds"] = a_times
    for key, side in (("ours", ours), ("control", up_b)):
        grade, detail, times = case_outcome(stmt, check, side, up_a)
        out[key] = {"grade": grade, "detail": detail}
        if grade in ("agrees", "reaches"):  # a result that disagrees gets no speed
            out[key]["seconds"] = times
            out[key]["ratios"] = _common.paired_ratios(times, a_times)
    return out


def table(rows: list[dict]) -> list[str]:
    lines = ["| case | check | upstream A, per call | ours, per call | ours / upstream A | "
             "control: upstream B / A | ours: grade |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "upstream_seconds" not in r:
            lines.append(f"| `{r['case']}` | {CHECK_NAMES[r['check']]} | {r['upstream A']} "
                         "| — | — | — | does not run (no reference) |")
            continue
        ours, control = r["ours"], r["control"]
        ours_time = _common.seconds_text(ours["seconds"]) if "seconds" in ours else "—"
        ours_ratio = _common.ratio_text(ours["ratios"]) if "ratios" in ours else "—"
        control_text = (_common.ratio_text(control["ratios"]) if "ratios" in control
                        else f"{control['grade']}: {control['detail']}")
        grade = ours["grade"] if ours["grade"] == "agrees" else f"{ours['grade']}: {ours['detail']}"
        lines.append(f"| `{r['case']}` | {CHECK_NAMES[r['check']]} | "
                     f"{_common.seconds_text(r['upstream_seconds'])} | {ours_time} | {ours_ratio} "
                     f"| {control_text} | {grade} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (at least 5)")
    parser.add_argument("--target", type=float, default=0.03,
                        help="seconds per timeit repeat, for choosing the loop count")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCH_DISPATCH.md")
    parser.add_argument("--quiet", action="store_true", help="do not echo worker progress")
    args = parser.parse_args()
    if args.rounds < _common.MIN_ROUNDS:
        parser.error(f"--rounds must be at least {_common.MIN_ROUNDS}")
    sides = []
    try:
        for label, env in _common.SIDES:
            print(f"starting {label} ...", flush=True)
            sides.append(start(label, env, args.target, not args.quiet))
        _common.rotate(sides, args.rounds)
    finally:
        _common.close(sides)
    ours, up_a, up_b = sides
    rows = [row(stmt, check, ours, up_a, up_b) for stmt, check in CASES]
    method = [_common.ORDER,
              f"{_common.WARMUP_ROUNDS} warm-up round discarded, {args.rounds} measured; "
              f"per round a case's time is the best of {_common.REPEATS} `timeit` repeats, the "
              f"loop count chosen at the warm-up so that one repeat takes at least {args.target} s",
              "inputs: x, y (2, 2); v (1, 384), w (384, 384), b (384,); h (8, 384), g, c (384,);"
              " float32, from fixed values (bench/_dispatch_child.py)",
              "each result is checked against upstream A's in the parent; float64 references "
              "for the derived checks come from upstream A running the same statement in "
              "float64; a row whose result disagrees shows no speed"]
    run = _common.provenance("bench/dispatch_bench.py")
    lines = _common.header("Dispatch per-call benchmark: ours against upstream torch 2.13.0",
                           run, method, sides)
    controls = [r["control"]["ratios"] for r in rows if "ratios" in r.get("control", {})]
    lines += ["", *table(rows), "", _common.control_note(controls)]
    print("\n".join(table(rows)))
    _common.write(args.out, lines, {**run, "rounds": args.rounds, "rows": rows,
                                    "sides": _common.side_records(sides)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
