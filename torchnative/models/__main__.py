"""`make models`: the architecture sweep (docs/AGREEMENT_RULES.md, "Models").

For every model type the installed transformers registers and each head recipes.py picks,
upstream builds the model from a small config under a fixed seed, saves it with save_pretrained
and runs forward on seeded inputs in float32 and float64 (worker.py, in its own process, cached
in build/models by the source and the wheels); ours loads the saved model with the real
from_pretrained and runs forward on the same inputs (in another process). Ours is graded
against upstream's float64 forward with upstream's own float32 error as the allowance, and each
model that does not agree shows why (its first refusal). Writes docs/MODELS.md and
docs/MODELS.json. Resumable: upstream's results are kept, and ours per build of our core.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

from torchnative.children import Child
from torchnative.envs import OURS, ROOT, UPSTREAM
from torchnative.harness import codec, judge
from torchnative.provenance import git_commit, machine, now

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
FLOOR = 4 * 2.0 ** -23  # 4 ulp of float32, as the operator harness's floor
FACTOR = 2.0  # ours may be this many times upstream's own float32 error (the benchmarks' rule)
GRADES = ("agrees", "reaches", "builds", "refuses", "crashes")


def source_key() -> str:
    """Upstream's results depend on its wheels and on the recipes; not on our core."""
    h = hashlib.sha256()
    site = sorted(UPSTREAM.venv.glob("lib/python3*/site-packages"))[0]
    for rec in sorted(site.glob("torch-*.dist-info/RECORD")) + sorted(
            site.glob("transformers-*.dist-info/RECORD")):
        h.update(rec.read_bytes())
    for p in (HERE / "recipes.py", HERE / "worker.py"):
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def upstream_transformers() -> str:
    """The transformers version upstream's interpreter has (its dist-info folder's name)."""
    site = sorted(UPSTREAM.venv.glob("lib/python3*/site-packages"))[0]
    found = sorted(site.glob("transformers-*.dist-info"))
    return found[0].name.removeprefix("transformers-").removesuffix(".dist-info") if found else "?"


def ours_key() -> str:
    site = sorted(OURS.venv.glob("lib/python3*/site-packages"))[0]
    c_file = sorted((site / "torch").glob("_C.cpython-*.so"))[0].resolve()
    key = hashlib.sha256(c_file.read_bytes()).hexdigest()[:12]
    # A deliberate fault (tests/models) is never mistaken for ours' real results.
    return key + ("-" + os.environ["TN_MODELS_INJECT"] if os.environ.get("TN_MODELS_INJECT")
                  else "")


class Worker:
    """A worker.py process that is restarted after it dies."""

    def __init__(self, env, log: Path, label: str):
        self.env, self.log, self.label, self.child = env, log, label, None
        self.hello: dict | None = None

    def request(self, command: str, timeout: float) -> dict:
        if self.child is None:
            self.child = Child(self.env, WORKER, [], self.log, threads=1, echo=False,
                               label=self.label)
            self.hello = self.child.receive(timeout=300)
            if not self.hello.get("ok"):
                raise RuntimeError(f"{self.label} worker did not start: {self.hello}")
        message = self.child.request(command, timeout)
        if "failure" in message:  # the worker died or hung: the parent's failure message
            self.child.close()
            self.child = None
            f = message["failure"]
            return {"ok": False, "step": "worker", "exc": f["type"], "msg": f["message"],
                    "where": "", "died": True}
        return message

    def close(self) -> None:
        if self.child is not None:
            self.child.close()


def error_of(values, ref) -> float:
    """max |values - ref| / max finite |ref| over the positions where both are finite."""
    import numpy as np

    both = np.isfinite(values) & np.isfinite(ref)
    if not both.any():
        return 0.0
    scale = float(np.max(np.abs(ref[np.isfinite(ref)]))) or 1.0
    return float(np.max(np.abs(values[both] - ref[both]))) / scale


def reference_problem(folder: Path) -> str | None:
    """Why upstream's float64 forward cannot be the reference, or None: where it has non-finite
    values at positions its own float32 forward has finite ones (ProphetNet's and CANINE's
    float64 runs give NaN throughout), no error can be measured against it."""
    import numpy as np

    up = codec.load(folder / "upstream.pkl")
    for i in range(len(up["out32"]["tensors"])):
        u32 = judge.tensor_values(up["out32"], i).astype(np.float64)
        ref = judge.tensor_values(up["out64"], i).astype(np.float64)
        if u32.shape == ref.shape and not np.array_equal(np.isfinite(u32), np.isfinite(ref)):
            bad = int(np.sum(np.isfinite(u32) & ~np.isfinite(ref)))
            return (f"float64 forward: output {i} is non-finite at {bad} positions where the "
                    f"float32 forward is finite (no reference)")
    return None


def grade(folder: Path, ours: dict) -> dict:
    """Ours against upstream for one model: the grade and why."""
    import numpy as np

    if not ours.get("ok"):
        kind = "refuses" if ours.get("exc") == "NotImplementedError" else "crashes"
        return {"grade": kind, "why": f"{ours.get('step')}: {ours.get('exc')}: {ours.get('msg')}"
                + (f" (at {ours['where']})" if ours.get("where") else "")}
    up = codec.load(folder / "upstream.pkl")
    got = codec.load(folder / f"ours-{ours['key']}.pkl")
    n32, n = len(up["out32"]["tensors"]), len(got["tensors"])
    if n != n32:
        return {"grade": "builds", "why": f"{n} floating outputs where upstream has {n32}"}
    worst = {"error": 0.0, "allowance": FLOOR, "output": -1}
    for i in range(n):
        a = judge.tensor_values(got, i).astype(np.float64)
        u32 = judge.tensor_values(up["out32"], i).astype(np.float64)
        ref = judge.tensor_values(up["out64"], i)
        if a.shape != ref.shape or got["tensors"][i]["dtype"] != up["out32"]["tensors"][i]["dtype"]:
            return {"grade": "builds", "why": f"output {i}: {got['tensors'][i]['dtype']} "
                    f"{list(a.shape)} where upstream gives {up['out32']['tensors'][i]['dtype']} "
                    f"{list(ref.shape)}"}
        if not np.array_equal(np.isfinite(a), np.isfinite(ref)):
            return {"grade": "reaches", "why": f"output {i}: non-finite values where upstream's "
                    "float64 forward has none (or the reverse)"}
        err, allow = error_of(a, ref), max(FACTOR * error_of(u32, ref), FLOOR)
        if err / allow > worst["error"] / worst["allowance"]:
            worst = {"error": err, "allowance": allow, "output": i}
        if err > allow:
            return {"grade": "reaches", "why": f"output {i}: error {err:.3g} exceeds the "
                    f"allowance {allow:.3g}", **worst}
    return {"grade": "agrees", "why": f"worst output {worst['output']}: error "
            f"{worst['error']:.3g} within {worst['allowance']:.3g}", **worst}


def first_op(why: str) -> str:
    """The operator a refusal names (aten.X.overload or torch.X), else its exception text."""
    m = re.search(r"(aten[.:]{1,2}[\w.]+|torch\.[\w.]+|_C\.[\w.]+)", why)
    return m.group(1) if m else why.split(": ", 1)[-1][:80]


def write_report(path: Path, rows: list[dict], summary: dict) -> None:
    lines = ["# Architecture sweep: transformers models on our core", "",
             "Generated by `make models` (`python -m torchnative.models`); do not edit by hand, "
             "rerun it to refresh. The rule is in docs/AGREEMENT_RULES.md, \"Models\".", "",
             f"- date: {summary['date']}; commit: {summary['commit']}; {summary['machine']}",
             f"- transformers {summary['transformers']}: {summary['types']} model types "
             f"registered, {summary['pairs']} (type, head) models tried",
             f"- upstream runs {summary['upstream_ok']} of them; of those, ours: "
             + ", ".join(f"{g} {summary['grades'][g]}" for g in GRADES)
             + f" ({summary['agree_pct']:.1f} % agree)",
             f"- upstream fails on {summary['upstream_failed']} (listed at the end, not counted);"
             f" {summary['no_head']} types have no head class in the auto mappings", ""]
    if summary["first_refusals"]:
        lines += ["## First refusals, most common first", "", "| refusal | models |", "|---|---|"]
        lines += [f"| `{op}` | {n} |" for op, n in summary["first_refusals"]]
        lines.append("")
    lines += ["## Models upstream runs", "", "| type | head | class | ours | why |",
              "|---|---|---|---|---|"]
    for r in rows:
        if r["upstream_ok"]:
            lines.append(f"| {r['type']} | {r['head']} | {r['class']} | {r['grade']} | "
                         f"{r['why'].replace('|', '/')} |")
    lines += ["", "## Models upstream does not run (not counted)", "",
              "| type | head | class | upstream's failure |", "|---|---|---|---|"]
    for r in rows:
        if not r["upstream_ok"]:
            lines.append(f"| {r['type']} | {r['head']} | {r['class']} | "
                         f"{r['why'].replace('|', '/')} |")
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", default="", help="comma-separated model types")
    ap.add_argument("--limit", type=int, default=0, help="at most this many (type, head) pairs")
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "models")
    ap.add_argument("--report", type=Path, default=ROOT / "docs" / "MODELS.md")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="where to write the summary")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per model and side")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    cache = args.cache / source_key()
    cache.mkdir(parents=True, exist_ok=True)
    okey = ours_key()
    up = Worker(UPSTREAM, cache / "upstream.log", "upstream")
    ours = Worker(OURS, cache / f"ours-{okey}.log", "ours")
    try:
        listing = cache / "pairs.json"
        if not listing.is_file():
            reply = up.request("LIST", 600)
            listing.write_text(json.dumps({"pairs": reply["pairs"]}))
        pairs = json.loads(listing.read_text())["pairs"]
        if args.only:
            wanted = set(args.only.split(","))
            pairs = [p for p in pairs if p[0] in wanted]
        types = sorted({p[0] for p in pairs})
        no_head = sorted({t for t, h, _ in pairs if h == "?"} | (set(types) - {
            t for t, h, _ in pairs if h != "?"}))
        pairs = [p for p in pairs if p[1] != "?"]
        if args.limit:
            pairs = pairs[:args.limit]
        rows = []
        for n, (model_type, head, cls) in enumerate(pairs):
            folder = cache / f"{model_type}__{head}"
            folder.mkdir(parents=True, exist_ok=True)
            up_file = folder / "upstream.json"
            if not up_file.is_file():
                up_file.write_text(json.dumps(up.request(
                    f"BUILD {model_type} {head} {cls} {folder}", args.timeout)))
            upstream = json.loads(up_file.read_text())
            row = {"type": model_type, "head": head, "class": cls,
                   "upstream_ok": bool(upstream.get("ok"))}
            problem = reference_problem(folder) if upstream.get("ok") else None
            if not upstream.get("ok"):
                row.update(grade="upstream fails", why=f"{upstream.get('step')}: "
                           f"{upstream.get('exc')}: {upstream.get('msg')}")
            elif problem:
                row.update(upstream_ok=False, grade="upstream fails", why=problem)
            else:
                ours_file = folder / f"ours-{okey}.json"
                if not ours_file.is_file():
                    reply = ours.request(f"RUN {cls} {folder} {folder / f'ours-{okey}.pkl'}",
                                         args.timeout)
                    ours_file.write_text(json.dumps({**reply, "key": okey}))
                row.update(grade(folder, json.loads(ours_file.read_text())))
            rows.append(row)
            print(f"[{n + 1}/{len(pairs)}] {model_type} {head}: {row['grade']}", flush=True)
    finally:
        up.close()
        ours.close()
    counted = [r for r in rows if r["upstream_ok"]]
    grades = {g: sum(r["grade"] == g for r in counted) for g in GRADES}
    refusals = collections.Counter(first_op(r["why"]) for r in counted
                                   if r["grade"] in ("refuses", "crashes"))
    summary = {"date": now(), "commit": git_commit(), "machine": machine(),
               "transformers": upstream_transformers(),
               "types": len(types), "pairs": len(rows), "no_head": len(no_head),
               "upstream_ok": len(counted), "upstream_failed": len(rows) - len(counted),
               "grades": grades,
               "agree_pct": 100.0 * grades["agrees"] / len(counted) if counted else 0.0,
               "first_refusals": refusals.most_common(40), "seconds": round(
                   time.perf_counter() - t0, 1)}
    if not args.no_report:
        write_report(args.report, rows, summary)
        args.report.with_suffix(".json").write_text(json.dumps(
            {**summary, "rows": rows}, indent=1) + "\n")
        print(f"wrote {args.report}")
    if args.json:
        args.json.write_text(json.dumps({**summary, "rows": rows}, indent=1) + "\n")
    print(f"models: {summary['pairs']} tried, upstream runs {summary['upstream_ok']}; ours: "
          + ", ".join(f"{g} {grades[g]}" for g in GRADES) + f"; {summary['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
