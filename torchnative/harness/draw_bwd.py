"""Upstream's half of the backward grading: gradients of recorded forward cases, as exact bytes.

Runs under .venv-upstream only (`python draw_bwd.py DRAW_DIR OUT_DIR --keys FILE`). For each
OpInfo entry that supports autograd, and each written case (extra:aten.X), and each of its float32 and float64 samples (at most
--max-samples per dtype), one case of the forward draw is taken (the entry's own call: its
torch.X, method or operator spelling, else its aten spelling) and backward.run_backward computes
its gradients, drawing the cotangents; float32 samples are rerun in float64 (inputs and
cotangents widened exactly) for the reference and upstream's own error. One pickle per entry.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from torchnative.harness import backward, codec  # noqa: E402
from torchnative.harness.draw import resolve, widened  # noqa: E402

BWD_VERSION = 1  # bump when the recorded format or the drawing changes
DTYPES = ("float32", "float64")
PREFERRED = ("torch", "method", "operator")


def entry_file(folder: Path, key: str) -> Path:
    return folder / (key.replace("/", "_") + ".pkl")


def pick(cases: list[dict]) -> dict | None:
    """The case of one sample whose call is the entry's own: torch.X, Tensor.X or the
    operator, else an alias, else the aten overload the entry's call alone reaches, else the
    first aten spelling; only a case upstream ran without raising."""
    ok = [c for c in cases if c["upstream"]["ok"]]

    def rank(c):
        s = c["spelling"]
        if s in PREFERRED:
            return PREFERRED.index(s)
        if s.startswith("alias:") and not s.endswith((":inplace", ":method")):
            return 3
        if s == "aten":
            return 4 if c.get("same_as_entry") else 5
        return None

    ranked = [(rank(c), n, c) for n, c in enumerate(ok) if rank(c) is not None]
    return min(ranked, key=lambda x: x[:2])[2] if ranked else None


def draw_entry(record: dict, max_samples: int) -> dict:
    out = {"key": record["key"], "cases": [], "skipped": [], "version": BWD_VERSION}
    by_sample: dict[tuple, list] = {}
    for case in record["cases"]:
        if case["dtype"] in DTYPES:
            by_sample.setdefault((case["dtype"], case["sample"]), []).append(case)
    kept = {d: 0 for d in DTYPES}
    for (dtype, sample), cases in sorted(by_sample.items(), key=lambda x: (x[0][0], x[0][1])):
        if kept[dtype] >= max_samples:
            continue
        case = pick(cases)
        if case is None:
            continue
        bid = f"{case['id']}|backward"
        try:
            fn = resolve(case["call"])
            up = backward.run_backward(fn, case["state"], case["args"], case["kwargs"],
                                       case["seed"], case_id=bid)
        except Exception as e:  # noqa: BLE001 - the harness's own failure, reported
            out["skipped"].append(f"{dtype} sample {sample}: harness raised "
                                  f"{type(e).__name__}: {e}"[:300])
            continue
        if up["ok"] and not up["tree"]:
            continue  # no differentiable output or no floating input: nothing to grade
        cot = up.pop("cotangents", None)
        bcase = {"id": bid, "op": record["key"], "dtype": dtype, "sample": sample,
                 "spelling": case["spelling"], "call": case["call"], "args": case["args"],
                 "kwargs": case["kwargs"], "state": case["state"], "seed": case["seed"],
                 "reached": case["reached"], "random": case.get("random", False),
                 "upstream": up, "cotangents": cot, "differentiable": up.get("differentiable")}
        if up["ok"] and dtype == "float32" and not bcase["random"]:
            wide = backward.run_backward(fn, widened(case["state"]), case["args"],
                                         case["kwargs"], case["seed"],
                                         backward.decode_cotangents(cot, widen=True),
                                         up["differentiable"])
            wide.pop("cotangents", None)
            bcase["upstream64"] = wide
        out["cases"].append(bcase)
        kept[dtype] += 1
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("draw_dir", type=Path)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--keys", required=True, help="file with one entry key per line")
    ap.add_argument("--max-samples", type=int, default=4)
    args = ap.parse_args(argv)
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    torch.set_num_threads(1)
    autograd = {op.name + (f".{op.variant_test_name}" if op.variant_test_name else ""):
                op.supports_autograd for op in op_db}
    keys = Path(args.keys).read_text().split()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for n, key in enumerate(keys):
        # A written case (extra:aten.X) is graded backward too: upstream's own run says whether
        # it differentiates (a gradient, an error ours must raise too, or nothing to grade).
        if key.startswith("extra:") or autograd.get(key):
            record = draw_entry(codec.load(entry_file(args.draw_dir, key)), args.max_samples)
        else:
            record = {"key": key, "cases": [], "skipped": [], "version": BWD_VERSION,
                      "no_autograd": True}
        codec.dump(record, entry_file(args.out_dir, key))
        print(f"drew backward {n + 1}/{len(keys)} {key} {len(record['cases'])} cases "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
