"""The agreement harness end to end on its fast subset, its coverage rule, and a deliberately
wrong kernel (docs/AGREEMENT_RULES.md). The full run is `make agree` (docs/AGREEMENT.md)."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import CACHE, ROOT, run_harness


def test_ours_lists_its_implemented_ops():
    code = "import json, torch; print(json.dumps(torch._C._tn_implemented_ops()))"
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-I", "-c", code],
                          capture_output=True, text=True, cwd="/", timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    keys = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "aten.add.Tensor" in keys and "aten.linear.default" in keys
    assert len(keys) == len(set(keys))


def test_the_subset_runs_without_a_crash(subset):
    assert subset["cases"] > 500
    assert subset["case_grades"]["crashes"] == 0, [
        (r["overload"], r["example"]) for r in subset["overloads"] if r["grade"] == "crashes"]
    rows = {r["overload"]: r for r in subset["overloads"]}
    # Kernels of ours that agree today; a regression in either turns this red.
    assert rows["aten.add.Tensor"]["grade"] == "agrees", rows["aten.add.Tensor"]["example"]
    assert rows["aten.transpose.int"]["grade"] == "agrees"


def test_the_subset_judges_every_spelling(subset):
    rows = {r["overload"] for r in subset["overloads"]}
    for ov in ("aten.add.Tensor", "aten.add_.Tensor", "aten.add.out", "aten.max.dim",
               "aten.absolute.default", "aten.add.Scalar"):
        assert ov in rows, ov


def test_every_implemented_op_has_a_case():
    out = CACHE / "coverage.json"
    proc = subprocess.run([sys.executable, "-m", "torchnative.harness", "--coverage", "--json",
                           str(out), "--cache", str(CACHE)], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["implemented"] > 300
    assert result["uncovered"] == [], "implemented ops with no case: write one in " \
        "torchnative/harness/extra_cases.py"


def test_a_wrong_gelu_kernel_is_reported_as_not_agreeing():
    """gelu computed with the tanh approximation where exact was asked (TN_HARNESS_INJECT)."""
    summary = run_harness("--only", "nn.functional.gelu", "--max-samples", "3",
                          "--inject", "gelu_tanh")
    row = {r["overload"]: r for r in summary["overloads"]}["aten.gelu.default"]
    assert row["grade"] == "reaches", row
    ex = row["example"]
    assert "exceeds the allowance" in ex["reason"]
    assert ex["error"] > 100 * ex["allowance"]
    clean = run_harness("--only", "nn.functional.gelu", "--max-samples", "3")
    row = {r["overload"]: r for r in clean["overloads"]}["aten.gelu.default"]
    assert row["grade"] == "agrees", row["example"]


def test_an_extra_dispatched_op_is_reported_as_a_dispatch_mismatch():
    """abs of a clone of its input (TN_HARNESS_INJECT=abs_clone): the same values, one more op
    under a logging TorchDispatchMode; the sequence comparison must name it, and the clean run
    of the same cases must show none."""
    summary = run_harness("--only", "abs", "--max-samples", "3", "--inject", "abs_clone")
    d = summary["dispatch"]
    assert d["counts"].get("mismatch", 0) > 0, d["counts"]
    assert any(m["ours"][:1] == ["aten.clone.default"] and m["at"] == 0
               for m in d["mismatches"]), d["mismatches"][:3]
    rows = {r["overload"]: r for r in summary["overloads"]}
    assert rows["aten.abs.default"]["grade"] == "agrees", rows["aten.abs.default"]["example"]
    clean = run_harness("--only", "abs", "--max-samples", "3")
    assert clean["dispatch"]["counts"].get("mismatch", 0) == 0, clean["dispatch"]["mismatches"][:3]
    assert clean["dispatch"]["counts"].get("same", 0) > 0, clean["dispatch"]["counts"]
