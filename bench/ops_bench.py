"""Single ops at model scale, ours against upstream, at 1 and 2 threads: writes docs/BENCH_OPS.md.

Run from the repository root: `.venv/bin/python bench/ops_bench.py [--rounds N] [--quick]
[--threads 1 2] [--cases NAME ...] [--busy]`. The rows (issue 10's items 1, 2 and 5: elementwise
math at GPT-2's MLP shape, layer_norm, softmax, causal scaled_dot_product_attention at three
lengths, and decode-sized sum and cat) and their seeded inputs are in bench/_ops_child.py, the
method in bench/_common.py. For each thread count a fresh set of workers (ours, upstream A,
upstream B) starts with that count; each writes every row's result as .npy under
build/bench/ops-<side>/, compared here with NumPy: a row's speed is reported only where ours is
bit-identical to upstream A's result or, for a math row, within 2 × upstream's own float32 error
(from upstream A's float64 run of the same inputs). SDPA's peak memory at L = 1024 is measured
apart, in one fresh short-lived process per side. `--busy` runs one busy-loop process beside
the workers for the whole run. `--quick` is a smoke run (2 measured rounds, short repeats): it
checks that the bench runs, it is no record.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _common  # noqa: E402
from _ops_child import CASES, INPUTS, MEMORY_LENGTH, MEMORY_WARMUP_LENGTH  # noqa: E402

from torchnative.agree import max_abs_diff, within_own_error  # noqa: E402
from torchnative.children import Child, format_failure  # noqa: E402
from torchnative.envs import ROOT, THREAD_VARIABLES  # noqa: E402

CHILD = Path(__file__).with_name("_ops_child.py")
THREAD_COUNTS = (1, 2)  # one, and this machine's default (its 2 cores)
TARGET_S = 0.05  # one timeit repeat takes at least this long
QUICK_TARGET_S = 0.01
MEMORY_CASE = f"sdpa_{MEMORY_LENGTH}"  # the row whose check the memory figure leans on
CHECK_NAMES = {"exact": "bit-identical", "derived": "≤ 2 × upstream's own f32 error"}
BUSY = "while True: pass"


def worker(label: str, env, request: dict, log_name: str, echo: bool) -> _common.Side:
    """Starts one worker and waits for its first message."""
    expect_c, missing = _common.expected_c(label, env)
    if missing is not None:
        return missing
    request = {**request, "expect_c": expect_c}
    log = ROOT / "build" / "bench" / f"{log_name}-{label.replace(' ', '-')}.log"
    child = Child(env, CHILD, [json.dumps(request)], log, request["threads"], echo, label)
    return _common.Side(label, env, child, child.receive())


def out_dir(label: str) -> Path:
    return ROOT / "build" / "bench" / f"ops-{label.replace(' ', '-')}"


def compare(check: str, mine: dict, theirs: dict) -> tuple[str, str]:
    """(grade, detail) of one row's result file against upstream A's."""
    got, want = np.load(mine["file"]), np.load(theirs["file"])
    if got.dtype != want.dtype or got.shape != want.shape:
        return "disagrees", (f"result is {got.dtype} {got.shape}, upstream's is {want.dtype} "
                             f"{want.shape}")
    if got.tobytes() == want.tobytes():
        return "bit-identical", ""
    if check == "exact":
        if got.dtype == bool:
            return "disagrees", f"{int((got != want).sum())} of {got.size} elements differ"
        return "disagrees", f"max |Δ| = {max_abs_diff(got, want):.3g}, not 0"
    verdict = within_own_error(got, want, np.load(theirs["file64"]), name="result")
    if not verdict.ok:
        return "disagrees", str(verdict)
    return "agrees", f"max error {verdict.error:.2g} ≤ allowance {verdict.allowance:.2g}"


def check(name: str, kind: str, side: _common.Side, ref: _common.Side) -> tuple[str, str]:
    """(grade, detail) of one row on one side, against upstream A's result of the same inputs."""
    if (failure := _common.case_failure(name, side, ref, "cases", reference=False)) is not None:
        return failure
    mine, theirs = side.hello["cases"][name], ref.hello["cases"][name]
    if mine["inputs"] != theirs["inputs"]:
        differ = [n for n in mine["inputs"] if mine["inputs"][n] != theirs["inputs"][n]]
        return "disagrees", f"inputs {', '.join(differ)} differ from upstream A's (sha256)"
    return compare(kind, mine, theirs)


def row(case: tuple, threads: int, ours, up_a, up_b) -> dict:
    name, stmt, kind, reads = case
    out = {"case": name, "statement": stmt, "threads": threads, "check": kind}
    if up_a.failure is not None or not up_a.hello["cases"][name]["ok"]:
        failure = up_a.failure or up_a.hello["cases"][name]["failure"]
        out["upstream A"] = f"does not run: {format_failure(failure)}"
        return out
    out["upstream_seconds"] = [r["seconds"][name] for r in up_a.rounds]
    for key, side in (("ours", ours), ("control", up_b)):
        grade, detail = check(name, kind, side, up_a)
        out[key] = {"grade": grade, "detail": detail}
        if grade in ("bit-identical", "agrees"):  # a result that disagrees gets no speed
            out[key]["seconds"] = [r["seconds"][name] for r in side.rounds]
            out[key]["ratios"] = _common.paired_ratios(out[key]["seconds"],
                                                       out["upstream_seconds"])
    return out


def case_text(name: str, stmt: str) -> str:
    """The statement and the shape of what it reads, e.g. `torch.exp(x)` (1024, 3072)."""
    reads = next(case[3] for case in CASES if case[0] == name)
    shapes = dict.fromkeys(str(tuple(INPUTS[n][2])) for n in reads)
    return f"`{stmt}`, {' and '.join(shapes)}"


def cell(text: str) -> str:
    """Text for a markdown table cell: a reason's |x - y| must not end the cell."""
    return text.replace("|", "\\|")


def table(rows: list[dict]) -> list[str]:
    lines = ["| case | threads | upstream A, per call | ours, per call | ours / upstream A | "
             "control: upstream B / A | ours: check |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        case = case_text(r["case"], r["statement"])
        if "upstream_seconds" not in r:
            lines.append(f"| {case} | {r['threads']} | {cell(r['upstream A'])} | — | — | — "
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
        grade, control_text = (cell(t) for t in (grade, control_text))
        lines.append(f"| {case} | {r['threads']} | "
                     f"{_common.seconds_text(r['upstream_seconds'])} | {ours_time} | "
                     f"{ours_ratio} | {control_text} | {grade} |")
    return lines


def measure_memory(threads: int, echo: bool) -> dict:
    """One fresh process per side, each measuring one SDPA call's rise of ru_maxrss."""
    out = {}
    for label, env in _common.SIDES:
        print(f"measuring SDPA's peak memory: {label} at {threads} thread(s) ...", flush=True)
        side = worker(label, env, {"mode": "memory", "threads": threads},
                      f"ops-memory-{threads}t", echo)
        if side.child is not None:
            side.child.close()
        out[label] = ({"failure": format_failure(side.failure)} if side.failure is not None
                      else side.hello["memory"])
    return out


def memory_row(threads: int, measured: dict, sdpa_row: dict | None) -> dict:
    """The memory figures of one thread count, with ratios only where the same call's result
    agrees with upstream's (the resident workers' row at the same length and thread count)."""
    out = {"threads": threads, "sides": measured}
    up = measured["upstream A"].get("rise_kib")
    for key, label in (("ours", "ours"), ("control", "upstream B")):
        mine = measured[label]
        grade = sdpa_row[key]["grade"] if sdpa_row and key in sdpa_row else "no check"
        out[key] = {"grade": grade}
        if "rise_kib" in mine and up and grade in ("bit-identical", "agrees"):
            out[key]["ratio"] = mine["rise_kib"] / up
    return out


def memory_lines(memory: list[dict]) -> list[str]:
    def kib(side: dict) -> str:
        if "failure" in side:
            return cell(f"does not run: {side['failure']}")
        # The two counters come from different kernel paths (ru_maxrss, /proc/self/statm),
        # a few hundred KiB apart at most; a headroom at or below 0 means none.
        room = side["headroom_kib"]
        return (f"{side['rise_kib']} KiB (resident {side['rss_before_kib']} KiB before; "
                + (f"headroom {room} KiB" if room > 0 else "no headroom")
                + f"; VmHWM rise {side['vmhwm_rise_kib']} KiB)")

    lines = [f"| case | threads | upstream A, rise | ours, rise | ours / upstream A | "
             "control: upstream B / A | ours: check |", "|---|---|---|---|---|---|---|"]
    for m in memory:
        ratio = {k: f"{m[k]['ratio']:.2f}" if "ratio" in m[k] else "—"
                 for k in ("ours", "control")}
        lines.append(f"| causal SDPA, (1, 12, {MEMORY_LENGTH}, 64) | {m['threads']} | "
                     f"{kib(m['sides']['upstream A'])} | {kib(m['sides']['ours'])} | "
                     f"{ratio['ours']} | {ratio['control']} | {m['ours']['grade']} |")
    return lines


def measure(threads: int, rounds: int, target_s: float, echo: bool, cases: list[str]):
    sides = []
    try:
        for label, env in _common.SIDES:
            print(f"starting {label} at {threads} thread(s) ...", flush=True)
            request = {"mode": "rounds", "threads": threads, "target_s": target_s,
                       "repeats": _common.REPEATS, "reference64": label == "upstream A",
                       "cases": cases, "out_dir": str(out_dir(label))}
            sides.append(worker(label, env, request, f"ops-{threads}t", echo))
        _common.rotate(sides, rounds)
    finally:
        _common.close(sides)
    return sides


def method_lines(args, target_s: float) -> list[str]:
    method = [_common.ORDER,
              f"{_common.WARMUP_ROUNDS} warm-up round discarded, {args.rounds} measured; per "
              f"round a row's time is the best of {_common.REPEATS} `timeit` repeats of its "
              "statement, the loop count chosen at the warm-up so that one repeat takes at "
              f"least {target_s} s",
              "inputs: float32 unless bool, each from its own `torch.Generator().manual_seed` "
              "(randn; positive ones rand · 4 + 1/16; masks rand < 0.5), the same in every "
              "process (sha256 of every input compared with upstream A's); sin and cos read "
              "rotary angles (1, 1024, 64), position · 10000^(-2i/64) computed in Python "
              "(bench/_ops_child.py)",
              "check: every result written as .npy by its worker and compared here; comparison,"
              " where, masked_fill and cat bit for bit; math rows bit for bit or within 2 × "
              "upstream A's own float32 error from its float64 run of the same inputs; a row "
              "whose result disagrees shows no speed"]
    if MEMORY_CASE in args.cases:
        method.append(
            f"peak memory: causal SDPA at (1, 12, {MEMORY_LENGTH}, 64) in a fresh process per "
            "side and thread count (not the resident workers): the rise of "
            "`resource.getrusage(RUSAGE_SELF).ru_maxrss` across one call, its inputs built and "
            f"one call at L = {MEMORY_WARMUP_LENGTH} run first, then the high-water mark "
            "lowered to the resident set (`/proc/self/clear_refs`), these processes run before "
            "the resident workers; the rise counts only what goes above the mark, so each "
            "side's headroom (the mark minus the resident set just before the call) is shown "
            "beside it, with the rise of VmHWM (/proc/self/status) as a cross-check; the ratio "
            f"is shown only where the {MEMORY_CASE} row's result agrees")
    if args.busy:
        method.append(f"BUSY: one process running `python -c '{BUSY}'` beside the workers for "
                      "the whole run (the cores are shared), killed at the end")
    if args.quick:
        method.append("QUICK SMOKE RUN (--quick): too few rounds to be a measurement")
    return method


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (at least 5)")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: 2 rounds, repeats of {QUICK_TARGET_S} s, not a record")
    parser.add_argument("--threads", type=int, nargs="+", default=list(THREAD_COUNTS),
                        help="thread counts, a fresh set of workers for each")
    names = [case[0] for case in CASES]
    parser.add_argument("--cases", nargs="+", choices=names, default=names,
                        help="the rows to run (all by default; a subset writes a partial doc)")
    parser.add_argument("--busy", action="store_true",
                        help="run one busy-loop process beside the workers throughout")
    parser.add_argument("--out", type=lambda p: Path(p).resolve(),
                        default=ROOT / "docs" / "BENCH_OPS.md")
    parser.add_argument("--quiet", action="store_true", help="do not echo worker progress")
    args = parser.parse_args()
    if args.quick:
        args.rounds = 2
    elif args.rounds < _common.MIN_ROUNDS:
        parser.error(f"--rounds must be at least {_common.MIN_ROUNDS}")
    target_s = QUICK_TARGET_S if args.quick else TARGET_S
    cases = [case for case in CASES if case[0] in args.cases]
    busy = subprocess.Popen([sys.executable, "-c", BUSY]) if args.busy else None
    rows, memory, all_sides = [], [], []
    try:
        # Memory first: a child spawned through vfork starts with its parent's peak in
        # ru_maxrss, and this process grows once it loads the results to compare.
        measured = ({n: measure_memory(n, not args.quiet) for n in args.threads}
                    if MEMORY_CASE in args.cases else {})
        for threads in args.threads:
            ours, up_a, up_b = sides = measure(threads, args.rounds, target_s,
                                               not args.quiet, args.cases)
            all_sides += [_common.Side(f"{s.label}, {threads} thread(s)", s.env, None,
                                       s.hello, s.rounds, s.failure) for s in sides]
            print(f"comparing results at {threads} thread(s) ...", flush=True)
            rows += [row(case, threads, ours, up_a, up_b) for case in cases]
            if MEMORY_CASE in args.cases:
                sdpa = next(r for r in rows if r["case"] == MEMORY_CASE
                            and r["threads"] == threads)
                memory.append(memory_row(threads, measured[threads], sdpa))
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    run = _common.provenance("bench/ops_bench.py")
    run["threads"] = (f"`torch.set_num_threads(n)` in every worker and "
                      + ", ".join(f"`{v}=n`" for v in THREAD_VARIABLES)
                      + f", for n in {', '.join(map(str, args.threads))} (a fresh set of "
                      f"workers per n; this machine has {os.cpu_count()} cores)")
    if os.environ.get("OMP_WAIT_POLICY"):
        # Inherited by every worker, ours and upstream's alike, as in bench/train_bench.py.
        run["threads"] += f"; `OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}` in every worker"
    lines = _common.header("Ops at model scale: ours against upstream torch 2.13.0", run,
                           method_lines(args, target_s), all_sides)
    controls = [r["control"]["ratios"] for r in rows if "ratios" in r.get("control", {})]
    lines += ["", *table(rows)]
    if memory:
        lines += ["", "Peak memory of one call (rise of ru_maxrss):", "", *memory_lines(memory)]
    lines += ["", _common.control_note(controls)]
    print("\n".join(table(rows) + ([""] + memory_lines(memory) if memory else [])))
    _common.write(args.out, lines, {**run, "rounds": args.rounds, "target_s": target_s,
                                    "quick": args.quick, "busy": args.busy, "rows": rows,
                                    "memory": memory,
                                    "sides": _common.side_records(all_sides)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
