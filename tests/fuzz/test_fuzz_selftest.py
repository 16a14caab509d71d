"""The fuzzer's own test: faults injected into our side must come out as failures.

Three real cases of aten.add.Tensor go through the whole pipeline (both interpreters, one batch
each); our child is told to die by SIGSEGV before one and to swallow the exception of another.
The comparator must call the first a crash (isolated: the case after it in the batch still gets
its own verdict) and the second a return where upstream raises, and the gate must report both.
"""

from __future__ import annotations

import pytest

from torchnative.fuzz import compare, fuzz, gate
from torchnative.fuzz.draw import with_id


def add(shape_a, shape_b):
    def t(shape):
        return {"t": {"dtype": "float32", "shape": shape, "view": "contig", "fill": "rand",
                      "device": "cpu"}}
    return with_id({"op": "aten.add.Tensor", "args": [t(shape_a), t(shape_b)], "kwargs": {},
                    "seed": 1})


CASES = (add([2, 3], [4]), add([2, 3], [3]), add([3], [3]))  # raises, returns, returns


@pytest.fixture(scope="module")
def clean():
    """The three cases without faults: the first raises under both, the others agree."""
    return fuzz(list(CASES))


def test_cases_agree_without_faults(clean):
    assert [r["verdict"] for r in clean] == ["agree-raise", "agree", "agree"], clean


def test_injected_faults_are_failures(clean):
    raising, crashing, fine = CASES
    rows = fuzz(list(CASES), inject=f"segv:{crashing['id']},swallow:{raising['id']}")
    verdicts = [r["verdict"] for r in rows]
    assert verdicts == ["returns-where-upstream-raises", "crash", "agree"], verdicts
    assert rows[1]["ours"]["crash"] == "killed by SIGSEGV"
    problems = gate(rows, {})
    assert len(problems) == 2 and all(p.split(":")[0] in compare.FAILURES for p in problems)
    assert gate(clean, {}) == []


def test_gate_is_strict_about_its_list(clean):
    """A listed case that passes, and a listed case not drawn, are problems too."""
    fine = CASES[2]
    problems = gate(clean, {fine["id"]: "listed by mistake", "aten.add.Tensor#0": "stale"})
    assert len(problems) == 2, problems
    assert "is now agree" in problems[0] and "not in the sample" in problems[1]
