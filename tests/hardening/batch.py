"""Runs named snippets in child processes, one interpreter at a time, surviving crashes.

Each snippet runs in a child of ours or of upstream's interpreter (they never share a process).
One child runs many snippets in turn and reports each outcome as a JSON line; a snippet that kills
its child (a signal, an abort) is recorded as a crash with the return code, and a fresh child
carries on with the next snippet. The outcome of a snippet is what its last statement returned
(its JSON form) or the type and text of what it raised.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = r'''
import ast, json, os, resource, sys
if not os.environ.get("TN_ASAN"):  # ASan reserves terabytes of address space up front
    resource.setrlimit(resource.RLIMIT_AS, (16 << 30, 16 << 30))
import warnings
import torch
cases = json.loads(sys.stdin.read())
def jsonable(v):
    if isinstance(v, torch.Tensor):
        return {"tensor": v.tolist(), "dtype": str(v.dtype), "type": type(v).__name__}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)
for name, src in cases:
    print(json.dumps({"start": name}), flush=True)
    tree = ast.parse(src)
    g = {"torch": torch, "warnings": warnings}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            body, last = tree.body[:-1], tree.body[-1]
            if isinstance(last, ast.Expr):
                exec(compile(ast.Module(body, []), name, "exec"), g)
                value = eval(compile(ast.Expression(last.value), name, "eval"), g)
            else:
                exec(compile(tree, name, "exec"), g)
                value = None
        out = {"returned": jsonable(value)}
    except BaseException as e:  # the outcome under test, whatever it is
        out = {"raised": type(e).__name__, "text": str(e)}
    out["name"] = name
    print(json.dumps(out), flush=True)
'''


def run_cases(python, cases: dict[str, str], env: dict | None = None, timeout: int = 600):
    """{name: outcome} for each snippet; outcome is {"returned": v}, {"raised": type, "text": s}
    or {"crashed": returncode, "stderr": tail}."""
    results: dict[str, dict] = {}
    todo = list(cases.items())
    child_env = dict(os.environ, **(env or {}))
    while todo:
        proc = subprocess.run([str(python), "-I", "-c", CHILD], input=json.dumps(todo),
                              capture_output=True, text=True, timeout=timeout, cwd="/",
                              env=child_env)
        started = None
        for line in proc.stdout.splitlines():
            if not line.startswith("{"):
                continue
            rec = json.loads(line)
            if "start" in rec:
                started = rec["start"]
            else:
                results[rec.pop("name")] = rec
                started = None
        if proc.returncode == 0 and started is None:
            break
        if started is None:  # died before (or after) every snippet: report it on the first left
            started = next(n for n, _ in todo if n not in results)
        results[started] = {"crashed": proc.returncode, "stderr": proc.stderr[-2000:]}
        todo = [(n, s) for n, s in todo if n not in results]
    return results


def describe(outcome: dict) -> str:
    if "crashed" in outcome:
        return f"crashed (rc {outcome['crashed']}): {outcome['stderr'][-600:]}"
    if "raised" in outcome:
        return f"raised {outcome['raised']}: {outcome['text'][:300]}"
    return f"returned {json.dumps(outcome['returned'])[:300]}"


if __name__ == "__main__":
    print(json.dumps(run_cases(sys.argv[1], {"x": sys.argv[2]}), indent=1))
