"""The differential fuzzer (issue 7 item 8): hostile arguments for every op we implement, each
case run in a child process under ours and under upstream, the outcomes compared.

draw.py (hypothesis, no torch) turns upstream's schemas into cases, plain JSON data; surface.py
adds expressions for the Python surface; child.py runs cases under either interpreter; run.py
batches them and isolates crashes; compare.py gives each case a verdict; __main__.py is
`make fuzz`, writing docs/FUZZ.md. tests/fuzz/ runs a fixed sample in `make test`. It lives
beside the agreement harness because it is a runner of the same kind (interpreters, children,
reports), not a generator or build tool (tools/).
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

from torchnative.envs import OURS, UPSTREAM, worker_environ
from torchnative.fuzz import compare, draw, run, surface


def implemented_ops() -> list[str]:
    code = "import json, torch; print(json.dumps(sorted(torch._C._tn_implemented_ops())))"
    out = subprocess.run([str(OURS.python), "-I", "-c", code], capture_output=True, text=True,
                         cwd="/", check=True, env=worker_environ(1))
    return json.loads(out.stdout.strip().splitlines()[-1])


def schemas(ops: list[str]) -> dict:
    """Upstream's schema of each op, as child.py's `schemas` mode gives it."""
    out = subprocess.run([str(UPSTREAM.python), "-I", str(run.CHILD), "schemas"],
                         input=json.dumps(ops), capture_output=True, text=True, cwd="/",
                         check=True, env=worker_environ(1))
    return json.loads(out.stdout.strip().splitlines()[-1])


def draw_cases(per_op: int, ops: list[str] | None = None, with_surface: bool = True) -> list:
    """The deterministic draw: per_op cases of every implemented op (or of ops), then the
    surface expressions."""
    ops = ops or implemented_ops()
    found = []
    for op, schema in schemas(ops).items():
        if "error" not in schema:
            found += draw.cases_for(op, schema, per_op)
    return found + (surface.cases() if with_surface else [])


def fuzz(cases: list[dict], progress=None, inject: str | None = None) -> list[dict]:
    """Runs the cases under both interpreters at once (one child each) and judges them; inject
    names faults for our side (child.py), for the fuzzer's own tests."""
    with ThreadPoolExecutor(2) as pool:
        ours = pool.submit(run.run_cases, OURS, cases, progress=progress, inject=inject)
        upstream = pool.submit(run.run_cases, UPSTREAM, cases)
        return compare.judge(cases, ours.result(), upstream.result())


def reproducer(case: dict) -> str:
    """A line that runs the case alone under an interpreter (ours: .venv/bin/python)."""
    if "expr" in case:
        return f".venv/bin/python -c \"import torch; print({case['expr']})\""
    body = json.dumps({k: v for k, v in case.items() if k != "id"}, separators=(",", ":"))
    return f".venv/bin/python torchnative/fuzz/child.py case '{body}'"


def call_text(case: dict) -> str:
    """A short human form of a case: `aten.add.Tensor(float32[2, 3] t, 18446744073709551616)`."""
    if "expr" in case:
        return case["expr"]

    def one(r):
        if isinstance(r, list):
            return "[" + ", ".join(one(x) for x in r) + "]"
        if not isinstance(r, dict):
            return repr(r)
        (k, v), = r.items()
        if k == "t":
            extra = "" if v["view"] == "contig" else f" {v['view']}"
            return f"{v['dtype']}{v['shape']}{extra}" + ("" if v["device"] == "cpu" else " meta")
        if k in ("dtype", "layout", "memory_format"):
            return f"torch.{v}"
        return v if k == "f" else f"{k}({v})"

    parts = [one(a) for a in case["args"]] + [f"{k}={one(v)}" for k, v in case["kwargs"].items()]
    return f"{case['op']}({', '.join(parts)})"


def failure_line(row: dict) -> str:
    """A failure as one report line, with both outcomes and the reproducer."""
    return (f"{row['verdict']}: `{row['id']}` `{call_text(row['case'])}`: ours "
            f"{compare.describe(row['ours'])}; upstream {compare.describe(row['upstream'])}; "
            f"reproducer: `{reproducer(row['case'])}`")


def gate(rows: list[dict], expected: dict[str, str]) -> list[str]:
    """The problems `make test` fails on: a failure not in the expected list, and an expected
    failure that no longer fails or is no longer drawn (the list must then be pruned)."""
    problems = [failure_line(r) for r in rows
                if r["verdict"] in compare.FAILURES and r["id"] not in expected]
    by_id = {r["id"]: r for r in rows}
    for case_id, why in expected.items():
        row = by_id.get(case_id)
        if row is None:
            problems.append(f"expected failure {case_id} ({why}) is not in the sample: "
                            "remove it from the list")
        elif row["verdict"] not in compare.FAILURES:
            problems.append(f"expected failure {case_id} ({why}) is now {row['verdict']}: "
                            "remove it from the list")
    return problems
