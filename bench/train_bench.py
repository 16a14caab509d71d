"""One training step, ours against upstream, at 1 and 2 threads: writes docs/BENCH_TRAIN.md.

Run from the repository root: `.venv/bin/python bench/train_bench.py [--rounds N] [--quick]`.
The cases (an MLP with SGD+momentum, a conv net with Adam, a small GPT-2 with AdamW) are in
bench/_train_child.py, the method in bench/_common.py; a step is zero_grad, forward, loss,
backward and the optimizer's step, and each phase is also timed apart. For each thread count a
fresh set of workers (ours, upstream A, upstream B) starts with that count. A case's speed is
reported only where its first step's loss and gradient norm agree with upstream's (within 2 ×
upstream's own float32 error, from upstream A's float64 run); otherwise the row says why not.
`--quick` is a smoke run (2 measured rounds of 2 steps): it checks that the bench runs, it is
no record.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _common  # noqa: E402
from _train_child import CASES  # noqa: E402

from torchnative.agree import within_own_error  # noqa: E402
from torchnative.children import Child, format_failure  # noqa: E402
from torchnative.envs import ROOT, THREAD_VARIABLES  # noqa: E402

CHILD = Path(__file__).with_name("_train_child.py")
THREAD_COUNTS = (1, 2)
PHASES = ("forward", "backward", "step")


def start(label: str, env, threads: int, steps: int, warmup: int, echo: bool,
          cases: list[str]) -> _common.Side:
    expect_c, missing = _common.expected_c(label, env)
    if missing is not None:
        return missing
    request = {"expect_c": expect_c, "threads": threads, "steps": steps,
               "warmup_steps": warmup, "reference64": label == "upstream A", "cases": cases}
    log = ROOT / "build" / "bench" / f"train-{threads}t-{label.replace(' ', '-')}.log"
    child = Child(env, CHILD, [json.dumps(request)], log, threads, echo, label)
    return _common.Side(label, env, child, child.receive())


def check(name: str, side: _common.Side, ref: _common.Side) -> tuple[str, str]:
    """(grade, detail) of one case's first step on one side, against upstream A's."""
    if (failure := _common.case_failure(name, side, ref)) is not None:
        return failure
    mine, theirs = side.hello["checks"][name], ref.hello["checks"][name]
    verdict = within_own_error(mine["float32"], theirs["float32"], theirs["float64"],
                               name="first-step loss and gradient norm")
    return ("agrees" if verdict.ok else "disagrees"), str(verdict)


def row(name: str, threads: int, ours, up_a, up_b) -> dict:
    out = {"case": name, "threads": threads}
    if up_a.failure is not None or not up_a.hello["checks"][name]["ok"]:
        failure = up_a.failure or up_a.hello["checks"][name]["failure"]
        out["upstream A"] = f"does not run: {format_failure(failure)}"
        return out
    a_rounds = [r["cases"][name] for r in up_a.rounds]
    out["upstream_seconds"] = {k: [r[k] for r in a_rounds] for k in ("seconds", *PHASES)}
    for key, side in (("ours", ours), ("control", up_b)):
        grade, detail = check(name, side, up_a)
        out[key] = {"grade": grade, "detail": detail}
        if grade == "agrees":  # a step whose check disagrees gets no speed
            mine = [r["cases"][name] for r in side.rounds]
            out[key]["seconds"] = {k: [r[k] for r in mine] for k in ("seconds", *PHASES)}
            out[key]["ratios"] = {k: _common.paired_ratios(out[key]["seconds"][k],
                                                           out["upstream_seconds"][k])
                                  for k in ("seconds", *PHASES)}
    return out


def table(rows: list[dict]) -> list[str]:
    lines = ["| case | threads | upstream A, per step | ours, per step | ours / upstream A | "
             "forward / backward / step, ours / A (medians) | control: upstream B / A | "
             "ours: check |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "upstream_seconds" not in r:
            lines.append(f"| {r['case']} | {r['threads']} | {r['upstream A']} | — | — | — "
                         "| — | does not run (no reference) |")
            continue
        ours, control = r["ours"], r["control"]
        up_text = _common.seconds_text(r["upstream_seconds"]["seconds"])
        if "ratios" in ours:
            ours_time = _common.seconds_text(ours["seconds"]["seconds"])
            ours_ratio = _common.ratio_text(ours["ratios"]["seconds"])
            phases = " / ".join(f"{_common.spread(ours['ratios'][k])[0]:.2f}" for k in PHASES)
        else:
            ours_time = ours_ratio = phases = "—"
        control_text = (_common.ratio_text(control["ratios"]["seconds"]) if "ratios" in control
                        else f"{control['grade']}: {control['detail']}")
        grade = ours["grade"] if ours["grade"] == "agrees" else f"{ours['grade']}: {ours['detail']}"
        lines.append(f"| {r['case']} | {r['threads']} | {up_text} | {ours_time} | {ours_ratio} "
                     f"| {phases} | {control_text} | {grade} |")
    return lines


def phase_lines(rows: list[dict]) -> list[str]:
    """Per-phase times, median per step over the rounds, for each side that has them."""
    lines = ["| case | threads | phase | upstream A | ours | ours / upstream A |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        if "ratios" not in r.get("ours", {}):
            continue
        for k in PHASES:
            lines.append(f"| {r['case']} | {r['threads']} | {k} | "
                         f"{_common.seconds_text(r['upstream_seconds'][k])} | "
                         f"{_common.seconds_text(r['ours']['seconds'][k])} | "
                         f"{_common.ratio_text(r['ours']['ratios'][k])} |")
    return lines


def measure(threads: int, rounds: int, steps: int, warmup: int, echo: bool, cases: list[str]):
    sides = []
    try:
        for label, env in _common.SIDES:
            print(f"starting {label} at {threads} thread(s) ...", flush=True)
            sides.append(start(label, env, threads, steps, warmup, echo, cases))
        _common.rotate(sides, rounds)
    finally:
        _common.close(sides)
    return sides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (at least 5)")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per round")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 2 rounds of 2 steps, not a record")
    parser.add_argument("--out", type=lambda p: Path(p).resolve(),
                        default=ROOT / "docs" / "BENCH_TRAIN.md")
    parser.add_argument("--quiet", action="store_true", help="do not echo worker progress")
    names = [name for name, _ in CASES]
    parser.add_argument("--cases", nargs="+", choices=names, default=names,
                        help="the cases to run (all by default; a subset writes a partial doc)")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps = 2, 2
    elif args.rounds < _common.MIN_ROUNDS:
        parser.error(f"--rounds must be at least {_common.MIN_ROUNDS}")
    warmup = 1 if args.quick else 2
    rows, all_sides = [], []
    for threads in THREAD_COUNTS:
        ours, up_a, up_b = sides = measure(threads, args.rounds, args.steps, warmup,
                                           not args.quiet, args.cases)
        all_sides += [_common.Side(f"{s.label}, {threads} thread(s)", s.env, None,
                                   s.hello, s.rounds, s.failure)
                      for s in sides]
        rows += [row(name, threads, ours, up_a, up_b) for name in args.cases]
    run = _common.provenance("bench/train_bench.py")
    run["threads"] = (f"`torch.set_num_threads(n)` in every worker and "
                      + ", ".join(f"`{v}=n`" for v in THREAD_VARIABLES)
                      + f", for n in {', '.join(map(str, THREAD_COUNTS))} (a fresh set of "
                      "workers per n)")
    if os.environ.get("OMP_WAIT_POLICY"):
        # Inherited by every worker, ours and upstream's alike (both run on GNU OpenMP); on a
        # machine shared with other work, `passive` keeps idle OpenMP threads from spinning
        # against the ones doing the work.
        run["threads"] += f"; `OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}` in every worker"
    method = [_common.ORDER,
              f"{_common.WARMUP_ROUNDS} warm-up round discarded, {args.rounds} measured; per "
              f"round a case's figure is the median of {args.steps} training steps (zero_grad, "
              "forward, loss, backward, optimizer step), each phase timed with "
              f"time.perf_counter in the worker; {warmup} untimed step(s) first",
              *[f"case {name}: {text}" for name, text in CASES if name in args.cases],
              "check: the first step's loss and gradient norm against upstream A's float64 run "
              "of the same seeded model and data, allowance 2 × upstream A's own float32 error; "
              "no speed without agreement"]
    if args.quick:
        method.append("QUICK SMOKE RUN (--quick): too few rounds to be a measurement")
    lines = _common.header("Training-step benchmark: ours against upstream torch 2.13.0", run,
                           method, all_sides)
    controls = [r["control"]["ratios"]["seconds"] for r in rows
                if "ratios" in r.get("control", {})]
    lines += ["", *table(rows), "", "Phases:", "", *phase_lines(rows), "",
              _common.control_note(controls)]
    print("\n".join(table(rows) + [""] + phase_lines(rows)))
    _common.write(args.out, lines, {**run, "rounds": args.rounds, "steps": args.steps,
                                    "quick": args.quick, "rows": rows,
                                    "sides": _common.side_records(all_sides)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
