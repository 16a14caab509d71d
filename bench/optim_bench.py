"""optimizer.step() alone, ours against upstream, at 1 and 2 threads: writes docs/BENCH_OPTIM.md.

Run from the repository root: `.venv/bin/python bench/optim_bench.py [--rounds N] [--quick]`.
The cases (SGD with momentum and AdamW, foreach=None as by default, over the parameters of
bench/train_bench.py's mlp and gpt2, with seeded gradients) are in bench/_optim_child.py, the
method in bench/_common.py. For each thread count a fresh set of workers (ours, upstream A,
upstream B) starts with that count. A case's speed is reported only where its parameters after
3 steps are bit-identical to upstream A's; otherwise the row says why not. `--quick` is a smoke
run (2 measured rounds of 5 steps): it checks that the bench runs, it is no record.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _common  # noqa: E402
from _optim_child import CASES  # noqa: E402

from torchnative.children import Child, format_failure  # noqa: E402
from torchnative.envs import ROOT, THREAD_VARIABLES  # noqa: E402

CHILD = Path(__file__).with_name("_optim_child.py")
THREAD_COUNTS = (1, 2)


def start(label: str, env, threads: int, steps: int, warmup: int, echo: bool) -> _common.Side:
    expect_c, missing = _common.expected_c(label, env)
    if missing is not None:
        return missing
    request = {"expect_c": expect_c, "threads": threads, "steps": steps, "warmup_steps": warmup}
    log = ROOT / "build" / "bench" / f"optim-{threads}t-{label.replace(' ', '-')}.log"
    child = Child(env, CHILD, [json.dumps(request)], log, threads, echo, label)
    return _common.Side(label, env, child, child.receive())


def check(name: str, side: _common.Side, ref: _common.Side) -> tuple[str, str]:
    """(grade, detail): the parameters after 3 steps, bit for bit against upstream A's."""
    if (failure := _common.case_failure(name, side, ref, reference=False)) is not None:
        return failure
    mine, theirs = side.hello["checks"][name], ref.hello["checks"][name]
    if mine["digest"] != theirs["digest"]:
        return "disagrees", (f"parameters after 3 steps differ: {mine['digest']} against "
                            f"{theirs['digest']}")
    return "bit-identical", ""


def row(name: str, threads: int, ours, up_a, up_b) -> dict:
    out = {"case": name, "threads": threads}
    if up_a.failure is not None or not up_a.hello["checks"][name]["ok"]:
        failure = up_a.failure or up_a.hello["checks"][name]["failure"]
        out["upstream A"] = f"does not run: {format_failure(failure)}"
        return out
    out["upstream_seconds"] = [r["cases"][name]["seconds"] for r in up_a.rounds]
    for key, side in (("ours", ours), ("control", up_b)):
        grade, detail = check(name, side, up_a)
        out[key] = {"grade": grade, "detail": detail}
        if grade == "bit-identical":  # a step whose result differs gets no speed
            out[key]["seconds"] = [r["cases"][name]["seconds"] for r in side.rounds]
            out[key]["ratios"] = _common.paired_ratios(out[key]["seconds"],
                                                       out["upstream_seconds"])
    return out


def table(rows: list[dict]) -> list[str]:
    lines = ["| case | threads | upstream A, per step | ours, per step | ours / upstream A | "
             "control: upstream B / A | ours: check |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "upstream_seconds" not in r:
            lines.append(f"| {r['case']} | {r['threads']} | {r['upstream A']} | — | — | — "
                         "| does not run (no reference) |")
            continue
        ours, control = r["ours"], r["control"]
        if "ratios" in ours:
            ours_time = _common.seconds_text(ours["seconds"])
            ours_ratio = _common.ratio_text(ours["ratios"])
        else:
            ours_time = ours_ratio = "—"
        control_text = (_common.ratio_text(control["ratios"]) if "ratios" in control
                        else f"{control['grade']}: {control['detail']}")
        grade = ours["grade"] if not ours["detail"] else f"{ours['grade']}: {ours['detail']}"
        lines.append(f"| {r['case']} | {r['threads']} | "
                     f"{_common.seconds_text(r['upstream_seconds'])} | {ours_time} | "
                     f"{ours_ratio} | {control_text} | {grade} |")
    return lines


def measure(threads: int, rounds: int, steps: int, warmup: int, echo: bool):
    sides = []
    try:
        for label, env in _common.SIDES:
            print(f"starting {label} at {threads} thread(s) ...", flush=True)
            sides.append(start(label, env, threads, steps, warmup, echo))
        _common.rotate(sides, rounds)
    finally:
        _common.close(sides)
    return sides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (at least 5)")
    parser.add_argument("--steps", type=int, default=15, help="timed steps per round")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 2 rounds of 5 steps, not a record")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCH_OPTIM.md")
    parser.add_argument("--quiet", action="store_true", help="do not echo worker progress")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps = 2, 5
    elif args.rounds < _common.MIN_ROUNDS:
        parser.error(f"--rounds must be at least {_common.MIN_ROUNDS}")
    warmup = 2
    rows, all_sides = [], []
    for threads in THREAD_COUNTS:
        ours, up_a, up_b = sides = measure(threads, args.rounds, args.steps, warmup,
                                           not args.quiet)
        all_sides += [_common.Side(f"{s.label}, {threads} thread(s)", s.env, None,
                                   s.hello, s.rounds, s.failure)
                      for s in sides]
        rows += [row(name, threads, ours, up_a, up_b) for name, *_ in CASES]
    run = _common.provenance("bench/optim_bench.py")
    run["threads"] = (f"`torch.set_num_threads(n)` in every worker and "
                      + ", ".join(f"`{v}=n`" for v in THREAD_VARIABLES)
                      + f", for n in {', '.join(map(str, THREAD_COUNTS))} (a fresh set of "
                      "workers per n)")
    method = [_common.ORDER,
              f"{_common.WARMUP_ROUNDS} warm-up round discarded, {args.rounds} measured; per "
              f"round a case's figure is the median of {args.steps} optimizer.step() calls, "
              f"each timed with time.perf_counter in the worker; 3 + {warmup} untimed steps "
              "first",
              *[f"case {name}: {text}" for name, _, _, text in CASES],
              "gradients: torch.randn(shape, generator=Generator().manual_seed(2)) * 1e-2 per "
              "parameter in order, set once (the step's inputs are the same every step)",
              "path: on CPU both builds take the for-loop (single-tensor) path: upstream's "
              "_default_to_fused_or_foreach picks foreach only for cuda, xpu, mtia and "
              "privateuse1 parameters",
              "check: every parameter's bytes after 3 steps against upstream A's (sha-256); "
              "no speed without bit-identity"]
    if args.quick:
        method.append("QUICK SMOKE RUN (--quick): too few rounds to be a measurement")
    lines = _common.header("Optimizer-step benchmark: ours against upstream torch 2.13.0", run,
                           method, all_sides)
    controls = [r["control"]["ratios"] for r in rows if "ratios" in r.get("control", {})]
    lines += ["", *table(rows), "", _common.control_note(controls)]
    print("\n".join(table(rows)))
    _common.write(args.out, lines, {**run, "rounds": args.rounds, "steps": args.steps,
                                    "quick": args.quick, "rows": rows,
                                    "sides": _common.side_records(all_sides)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
