"""Whole models through the real transformers, ours against upstream: writes docs/BENCH_MODELS.md.

Run from the repository root: `.venv/bin/python bench/model_bench.py [--rounds N] [--quick]`.
The cases are in bench/_model_child.py, the method in bench/_common.py: GPT-2 small and a
SmolLM2-135M-shaped Llama (random weights from a seeded config) prefilling 8 to 1024 tokens and
decoding greedily with `generate()`, and the real all-MiniLM-L6-v2 embedding 1 to 32 sentences;
float32, eval(), under torch.no_grad(). For each thread count a fresh set of workers (ours,
upstream A, upstream B) starts with that count. A case's speed is reported only where its check
passes: prefill logits of the last position and MiniLM embeddings within 2 × upstream's own
float32 error (from upstream A's float64 copy of the same weights), decoded ids identical to
upstream A's; otherwise the row says why not. `--busy` runs one busy-loop process beside the
workers for the whole run. `--quick` is a smoke run (2 rounds, prefill at 8 and 128 tokens,
decode of 8 tokens, MiniLM at batch 1): it checks that the bench runs, it is no record.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _common  # noqa: E402
from _model_child import CASES, FAMILIES, KINDS  # noqa: E402

from torchnative.agree import within_own_error  # noqa: E402
from torchnative.children import Child, format_failure  # noqa: E402
from torchnative.demo import SENTENCES  # noqa: E402
from torchnative.envs import ROOT, THREAD_VARIABLES, model_path  # noqa: E402

CHILD = Path(__file__).with_name("_model_child.py")
THREAD_COUNTS = (1, 2)
NEW_TOKENS = 64
QUICK_NEW_TOKENS = 8
QUICK_CASES = ("gpt2-prefill-8", "gpt2-prefill-128", "llama-prefill-8", "llama-prefill-128",
               "gpt2-decode", "llama-decode", "minilm-b1")
BUSY = "while True: pass"
# A worker silent this long is stopped (a hang, not a slow round). Generous: at 2 threads
# beside a busy process upstream's OpenMP pool has been seen 10-25 times slower than alone, and
# a full round or upstream A's float64 checks then take many minutes.
TIMEOUT_S = 3600
SPECS = {spec.name: spec for spec in CASES}


def start(label: str, env, threads: int, request: dict, echo: bool) -> _common.Side:
    expect_c, missing = _common.expected_c(label, env)
    if missing is not None:
        return missing
    request = {**request, "expect_c": expect_c, "threads": threads,
               "reference64": label == "upstream A"}
    log = ROOT / "build" / "bench" / f"models-{threads}t-{label.replace(' ', '-')}.log"
    child = Child(env, CHILD, [json.dumps(request)], log, threads, echo, label)
    return _common.Side(label, env, child, child.receive(TIMEOUT_S))


def unpacked(message: dict) -> np.ndarray:
    """A worker's packed tensor (bench/_model_child.py, `packed`) as the array it was."""
    data = base64.b64decode(message["b64"])
    return np.frombuffer(data, dtype=message["dtype"]).reshape(message["shape"])


def compare(name: str, mine: dict, theirs: dict) -> tuple[str, str]:
    """(grade, detail) of one side's check against upstream A's, both of which ran."""
    if mine["inputs"] != theirs["inputs"]:
        return "disagrees", "input ids differ from upstream A's"
    if SPECS[name].kind == "decode":
        ours_ids, ref_ids = mine["float32"], theirs["float32"]
        if ours_ids == ref_ids:
            return "agrees", f"{len(ref_ids)} generated ids identical to upstream A's"
        first = next((k for k, (a, b) in enumerate(zip(ours_ids, ref_ids)) if a != b),
                     min(len(ours_ids), len(ref_ids)))
        return "disagrees", (f"generated ids differ from upstream A's from new token {first} "
                             f"on ({len(ours_ids)} ids against {len(ref_ids)})")
    got, ref32 = unpacked(mine["float32"]), unpacked(theirs["float32"])
    what = "last-position logits" if SPECS[name].kind == "prefill" else "embeddings"
    verdict = within_own_error(got, ref32, unpacked(theirs["float64"]), name=what)
    same = (" (bit-identical to upstream A's float32)"
            if got.shape == ref32.shape and np.array_equal(got, ref32) else "")
    return ("agrees" if verdict.ok else "disagrees"), f"{verdict}{same}"


def check(name: str, side: _common.Side, ref: _common.Side) -> tuple[str, str]:
    """(grade, detail) of one case on one side, against upstream A's."""
    if (failure := _common.case_failure(name, side, ref)) is not None:
        return failure
    mine, theirs = side.hello["checks"][name], ref.hello["checks"][name]
    return compare(name, mine, theirs)


def row(name: str, threads: int, ours, up_a, up_b) -> dict:
    out = {"case": name, "threads": threads}
    if up_a.failure is not None or not up_a.hello["checks"][name]["ok"]:
        failure = up_a.failure or up_a.hello["checks"][name]["failure"]
        out["upstream A"] = f"does not run: {format_failure(failure)}"
        # Every row has an `ours` grade, so that a reader of the JSON (tools/status.py) can
        # count it.
        out["ours"] = {"grade": "does not run", "detail": "no reference: upstream A does not run"}
        return out
    out["upstream_seconds"] = [r["cases"][name] for r in up_a.rounds]
    for key, side in (("ours", ours), ("control", up_b)):
        grade, detail = check(name, side, up_a)
        out[key] = {"grade": grade, "detail": detail}
        if grade == "agrees":  # a case whose check fails gets no speed
            out[key]["seconds"] = [r["cases"][name] for r in side.rounds]
            out[key]["ratios"] = _common.paired_ratios(out[key]["seconds"],
                                                       out["upstream_seconds"])
    return out


def time_cell(name: str, seconds: list[float], new_tokens: int) -> str:
    """Per call, median [min-max]; for decode also the median per generated token."""
    text = _common.seconds_text(seconds)
    if SPECS[name].kind == "decode":
        text += f"; {_common.seconds_text([s / new_tokens for s in seconds])} per token"
    return text


def table(rows: list[dict], new_tokens: int) -> list[str]:
    lines = ["| case | threads | upstream A, per call | ours, per call | ours / upstream A | "
             "control: upstream B / A | ours: check |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        name = r["case"]
        case = f"{name} ({new_tokens} tokens)" if SPECS[name].kind == "decode" else name
        if "upstream_seconds" not in r:
            lines.append(f"| {case} | {r['threads']} | {r['upstream A']} | — | — | — "
                         "| does not run (no reference) |")
            continue
        ours, control = r["ours"], r["control"]
        up_text = time_cell(name, r["upstream_seconds"], new_tokens)
        if "ratios" in ours:
            ours_time = time_cell(name, ours["seconds"], new_tokens)
            ours_ratio = _common.ratio_text(ours["ratios"])
        else:
            ours_time = ours_ratio = "—"
        control_text = (_common.ratio_text(control["ratios"]) if "ratios" in control
                        else f"{control['grade']}: {control['detail']}")
        if ours["grade"] != "agrees":
            grade = f"{ours['grade']}: {ours['detail']}"
        elif SPECS[name].kind == "decode":
            grade = f"agrees: {ours['detail']}"
        else:
            grade = "agrees"
        lines.append(f"| {case} | {r['threads']} | {up_text} | {ours_time} | {ours_ratio} "
                     f"| {control_text} | {grade} |")
    return lines


def check_lines(rows: list[dict]) -> list[str]:
    """Each agreeing row's check in full (the table says only `agrees`)."""
    return [f"- {r['case']}, {r['threads']} thread(s): ours: {r['ours']['detail']}; control: "
            f"{r['control']['detail']}" for r in rows
            if r.get("ours", {}).get("grade") == "agrees"]


def measure(threads: int, rounds: int, request: dict, echo: bool) -> list[_common.Side]:
    sides = []
    try:
        for label, env in _common.SIDES:
            print(f"starting {label} at {threads} thread(s) (builds the models, checks) ...",
                  flush=True)
            sides.append(start(label, env, threads, request, echo))
        _common.rotate(sides, rounds, TIMEOUT_S)
    finally:
        _common.close(sides)
    return sides


@contextlib.contextmanager
def busy_loop(on: bool):
    """One process spinning on a core beside the workers while the block runs (--busy)."""
    if not on:
        yield None
        return
    proc = subprocess.Popen([sys.executable, "-c", BUSY])
    print(f"started the busy-loop process (pid {proc.pid})", flush=True)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()
        print(f"stopped the busy-loop process (pid {proc.pid})", flush=True)


def model_facts(facts: dict | None) -> str:
    """What upstream A's worker reported of a built model: attention path, parameter count."""
    if not facts:
        return ""
    return (f" (upstream A: attention `{facts['attn_implementation']}`, "
            f"{facts['parameters']:,} parameters)")


def method_lines(args, models: dict) -> list[str]:
    calls = ", ".join(f"{name} {SPECS[name].calls}" for name in args.cases)
    lines = [_common.ORDER,
             f"{_common.WARMUP_ROUNDS} warm-up round discarded, {args.rounds} measured; per "
             "round a case's figure is the best of a fixed number of calls, each timed with "
             f"time.perf_counter in the worker ({calls}); the check's own call comes first, "
             "untimed",
             *[f"model {family}: {text}{model_facts(models.get(family))}"
               for family, text in FAMILIES.items()
               if any(SPECS[name].family == family for name in args.cases)],
             *[f"{kind}: {text}" for kind, text in KINDS.items()
               if any(SPECS[name].kind == kind for name in args.cases)],
             "every model float32, eval(), under torch.no_grad(), built after "
             "torch.manual_seed(0) in each worker; decode generates "
             f"{args.new_tokens} tokens",
             "check, prefill: the last position's logits against upstream A's float64 run of "
             "the same weights (`.double()` of a copy), allowance 2 × upstream A's own float32 "
             "error; MiniLM: the embeddings, the same rule; decode: the generated ids must be "
             "identical to upstream A's (no float64 run); input ids compared first; no speed "
             "without agreement"]
    if args.busy:
        lines.append(f"BUSY: one process `python -c '{BUSY}'` spun beside the workers for the "
                     "whole run (started before the first worker, killed after the last)")
    if args.quick:
        lines.append("QUICK SMOKE RUN (--quick): too few rounds to be a measurement")
    return lines


def threads_text(counts: list[int]) -> str:
    text = (f"`torch.set_num_threads(n)` in every worker and "
            + ", ".join(f"`{v}=n`" for v in THREAD_VARIABLES)
            + f", for n in {', '.join(map(str, counts))} (a fresh set of workers per n)")
    if os.environ.get("OMP_WAIT_POLICY"):
        # Inherited by every worker alike; see bench/train_bench.py for why it may be set.
        text += f"; `OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}` in every worker"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (at least 5)")
    parser.add_argument("--threads", type=int, nargs="+", default=list(THREAD_COUNTS),
                        help="thread counts, a fresh set of workers for each (default 1 2)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 2 rounds, prefill at 8 and 128 tokens, decode of "
                             f"{QUICK_NEW_TOKENS} tokens, MiniLM batch 1; not a record")
    parser.add_argument("--busy", action="store_true",
                        help="run one busy-loop process beside the workers the whole time")
    parser.add_argument("--out", type=lambda p: Path(p).resolve(),
                        default=ROOT / "docs" / "BENCH_MODELS.md")
    parser.add_argument("--quiet", action="store_true", help="do not echo worker progress")
    parser.add_argument("--cases", nargs="+", choices=list(SPECS), default=list(SPECS),
                        help="the cases to run (all by default; a subset writes a partial doc)")
    args = parser.parse_args()
    if any(n < 1 for n in args.threads):
        parser.error("--threads must be positive")
    args.new_tokens = NEW_TOKENS
    if args.quick:
        args.rounds, args.new_tokens = 2, QUICK_NEW_TOKENS
        args.cases = [name for name in args.cases if name in QUICK_CASES]
        if not args.cases:
            parser.error(f"--quick runs only {', '.join(QUICK_CASES)}; none of them is in --cases")
    elif args.rounds < _common.MIN_ROUNDS:
        parser.error(f"--rounds must be at least {_common.MIN_ROUNDS}")
    request = {"cases": args.cases, "new_tokens": args.new_tokens,
               "sentences": list(SENTENCES), "minilm_model": str(model_path())}
    rows, all_sides = [], []
    with busy_loop(args.busy):
        for threads in args.threads:
            ours, up_a, up_b = sides = measure(threads, args.rounds, request, not args.quiet)
            all_sides += [_common.Side(f"{s.label}, {threads} thread(s)", s.env, None,
                                       s.hello, s.rounds, s.failure)
                          for s in sides]
            rows += [row(name, threads, ours, up_a, up_b) for name in args.cases]
    run = _common.provenance("bench/model_bench.py")
    run["threads"] = threads_text(args.threads)
    models = next((s.hello.get("models", {}) for s in all_sides
                   if s.label.startswith("upstream A") and s.failure is None), {})
    lines = _common.header("Model benchmark: ours against upstream torch 2.13.0", run,
                           method_lines(args, models), all_sides)
    controls = [r["control"]["ratios"] for r in rows if "ratios" in r.get("control", {})]
    lines += ["", *table(rows, args.new_tokens), "", "Checks of the agreeing rows:", "",
              *check_lines(rows), "", _common.control_note(controls)]
    print("\n".join(table(rows, args.new_tokens)))
    _common.write(args.out, lines, {**run, "rounds": args.rounds, "quick": args.quick,
                                    "busy": args.busy, "new_tokens": args.new_tokens,
                                    "rows": rows, "sides": _common.side_records(all_sides)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
