"""The backward grading (judge.judge_backward, draw_bwd.py, replay.py's BWD): a known-good
derivative grades agrees, a deliberately wrong one builds, a missing one refuses, and the
judge's backward comparators each catch the defect aimed at them."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np

from torchnative.harness import codec, judge
from torchnative.harness.report import backward_allowances, backward_context

from .conftest import run_harness

ENTRY = ("--only", "nn.functional.gelu", "--max-samples", "3")


def gelu_row(*inject: str) -> dict:
    summary = run_harness(*ENTRY, *inject)
    assert summary["backward"]["cases"] >= 4, summary["backward"]
    return summary["backward"]["overloads"]["aten.gelu.default"]


def test_a_known_good_derivative_agrees():
    row = gelu_row()
    assert row["grade"] == "agrees", row["example"]
    assert row["grades"]["agrees"] >= 4


def test_a_wrong_derivative_builds():
    """gelu's gradients scaled by 1.25, its values untouched (TN_HARNESS_INJECT=grad_wrong)."""
    row = gelu_row("--inject", "grad_wrong:gelu")
    assert row["grade"] == "builds", row
    ex = row["example"]
    assert "exceeds the allowance" in ex["reason"]
    assert ex["error"] > 100 * ex["allowance"]


def test_a_missing_derivative_refuses():
    """A backward that raises NotImplementedError by name (TN_HARNESS_INJECT=grad_missing)."""
    row = gelu_row("--inject", "grad_missing:gelu")
    assert row["grade"] == "refuses", row
    assert set(row["grades"]) == {"refuses"}


def test_the_subset_grades_backward_without_a_crash(subset):
    b = subset["backward"]
    assert b["cases"] > 20
    assert b["case_grades"]["crashes"] == 0, [
        (ov, r["example"]) for ov, r in b["overloads"].items() if r["grade"] == "crashes"]
    assert b["overloads"]["aten.add.Tensor"]["grade"] == "agrees"


def backward_case(subset, entry: str):
    record = codec.load(Path(subset["backward_folder"]) / f"{entry}.pkl")
    case = next(c for c in record["cases"] if c["dtype"] == "float32" and c["upstream"]["ok"])
    return case, backward_allowances(record)


def test_each_backward_comparator_catches_its_defect(subset):
    case, allow = backward_case(subset, "add")
    clean = judge.judge_backward(backward_context(case, copy.deepcopy(case["upstream"]), allow))
    assert clean.grade == "agrees", clean.reason

    def graded(mutate):
        ours = copy.deepcopy(case["upstream"])
        mutate(ours)
        return judge.judge_backward(backward_context(case, ours, allow))

    def no_gradient(o):
        o["tree"] = (None, *o["tree"][1:])

    def wrong_value(o):
        t = next(v for k, v in judge.leaves(o["tree"]) if k == "tensor")
        rec = o["tensors"][t]
        blob = bytearray(o["storages"][rec["storage"]])
        view = np.frombuffer(blob, judge.NP_DTYPES[rec["dtype"]])
        view[rec["offset"]] += 1.0
        o["storages"][rec["storage"]] = bytes(blob)

    def not_differentiable(o):
        o["differentiable"] = []

    def raises_other(o):
        o.clear()
        o.update({"ok": False, "exc": "NotImplementedError", "msg": "no derivative"})

    for mutate, comparator, grade in ((no_gradient, "structure", "builds"),
                                      (wrong_value, "values", "builds"),
                                      (not_differentiable, "differentiable", "builds"),
                                      (raises_other, "raises", "refuses")):
        v = graded(mutate)
        assert (v.comparator, v.grade) == (comparator, grade), (mutate.__name__, v)


def make_dual_summary(*inject: str) -> dict:
    return run_harness("--only", "extra:aten._make_dual.default", "--max-samples", "1", *inject)


def test_a_call_made_inside_its_state_is_graded_backward():
    """aten._make_dual raises outside a forward-AD dual level, in both cores; its written case
    runs it inside one too (wrapped.py), and that call's gradients are graded (coverage counts
    the overload), agreeing as it is and building with its gradients scaled."""
    summary = make_dual_summary()
    row = summary["backward"]["overloads"]["aten._make_dual.default"]
    assert row["grade"] == "agrees" and row["grades"]["agrees"] == 2, row
    assert "aten._make_dual.default" not in summary["backward"]["coverage"]["uncovered"]
    forward = next(r for r in summary["overloads"] if r["overload"] == "aten._make_dual.default")
    assert forward["grade"] == "agrees" and forward["grades"]["agrees"] == 6, forward
    wrong = make_dual_summary("--inject", "grad_wrong:make_dual_in_level")
    assert wrong["backward"]["overloads"]["aten._make_dual.default"]["grade"] == "builds"
