"""Compares our outcome of a fuzz case with upstream's; imports no torch.

Each case gets one verdict. FAILURES are what `make test` and `make fuzz` must never show:
ours crashed (or hung), or ours returned where upstream raised. The rest is reported: a
NotImplementedError where upstream returns is a refusal (allowed); another exception where
upstream returns, a different exception type where both raise, or a different result shape,
dtype or device where both return is a mismatch to list.
"""

from __future__ import annotations

import json

FAILURES = ("crash", "returns-where-upstream-raises")
VERDICTS = ("crash", "returns-where-upstream-raises", "raises-where-upstream-returns",
            "exception-mismatch", "result-mismatch", "refusal", "agree-raise", "agree",
            "not-built", "upstream-crash")


def verdict(ours: dict, upstream: dict) -> str:
    if ours.get("crash"):
        return "crash"
    if upstream.get("crash"):
        return "upstream-crash"
    if "setup" in ours or "setup" in upstream:
        return "not-built"
    if ours["ok"] and not upstream["ok"]:
        return "returns-where-upstream-raises"
    if not ours["ok"] and upstream["ok"]:
        if ours["exc"] == "NotImplementedError":
            return "refusal"
        return "raises-where-upstream-returns"
    if not ours["ok"]:
        return "agree-raise" if ours["exc"] == upstream["exc"] else "exception-mismatch"
    same = json.dumps(ours["result"]) == json.dumps(upstream["result"])
    return "agree" if same else "result-mismatch"


def judge(cases: list[dict], ours: dict, upstream: dict) -> list[dict]:
    """One row per case: id, op, verdict and both outcomes."""
    rows = []
    for case in cases:
        o, u = ours[case["id"]], upstream[case["id"]]
        rows.append({"id": case["id"], "op": case.get("op", "expr"), "verdict": verdict(o, u),
                     "ours": o, "upstream": u, "case": case})
    return rows


def describe(outcome: dict) -> str:
    """One short phrase for an outcome."""
    if outcome.get("crash"):
        return f"crash: {outcome['crash']}"
    if "setup" in outcome:
        return f"arguments not built: {outcome['setup'][:80]}"
    if outcome["ok"]:
        return "returns " + json.dumps(outcome["result"])[:120]
    first = outcome["msg"].strip().splitlines()[0][:120] if outcome["msg"].strip() else ""
    return f"raises {outcome['exc']}: {first}"
