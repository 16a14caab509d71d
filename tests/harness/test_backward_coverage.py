"""The backward coverage rule (docs/AGREEMENT_RULES.md, "Backward coverage"): every implemented
overload upstream's autograd differentiates gets a backward case of which upstream computes a
gradient, in-place spellings included (run on clones of the leaves), and the overloads it does
not differentiate are a class of their own, not graded.

On the fast subset (conftest.py), whose entries reach in-place overloads (add_, abs_, div_)
that no entry's own backward case (torch.add, torch.abs, ...) reaches, so only the top-up
cases can grade them; and on differentiable.py's classes, checked against upstream's autograd
at run time in upstream's own process.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from torchnative.envs import UPSTREAM
from torchnative.harness import codec

from .conftest import CACHE

IN_PLACE = ("aten.add_.Tensor", "aten.abs_.default", "aten.div_.Tensor_mode")


def test_every_differentiable_overload_the_subset_reaches_is_graded(subset):
    cov = subset["backward"]["coverage"]
    assert cov["uncovered"] == {}
    assert cov["graded"] >= 8, cov
    assert cov["grades"]["crashes"] == 0 and cov["grades"]["builds"] == 0, cov


def test_in_place_overloads_are_graded_on_clones_with_a_gradient(subset):
    rows = subset["backward"]["overloads"]
    folder = Path(subset["backward_folder"])
    for ov in IN_PLACE:
        assert rows[ov]["grade"] == "agrees", (ov, rows.get(ov))
        record = codec.load(folder / f"topup:{ov}.pkl")
        cases = [c for c in record["cases"] if c["upstream"]["ok"]]
        assert {c["dtype"] for c in cases} == {"float32", "float64"}, (ov, record["tried"])
        for c in cases:
            assert c["clone"] and ov in c["reached"]
            assert c["upstream"]["tree"], "upstream computed no gradient"


def test_outputs_never_differentiable_are_their_own_class(subset):
    """An overload with no differentiable output (eq, isnan, argmax, all) is listed apart, not
    in the denominator; out= overloads are counted apart and not listed."""
    cov = subset["backward"]["coverage"]
    for ov in ("aten.eq.Tensor", "aten.isnan.default", "aten.argmax.default",
               "aten.all.default"):
        assert ov in cov["not_differentiable"], ov
    assert cov["classes"]["out"] > 100
    for listed in (cov["not_differentiable"], cov["uncovered"], cov["refusing"]):
        assert "aten.add.out" not in listed


PROBE = r'''
import json, sys, torch
classes = json.load(open(sys.argv[1]))
out = {}
x = torch.randn(3, 4, requires_grad=True)
calls = {
    "aten.exp_.default": lambda: torch.ops.aten.exp_.default(x.clone()),
    "aten.pow_.Scalar": lambda: torch.ops.aten.pow_.Scalar(x.clone(), 2),
    "aten.div_.Tensor": lambda: torch.ops.aten.div_.Tensor(x.clone(), 2.0 + x.detach()),
    "aten.eq.Tensor": lambda: torch.ops.aten.eq.Tensor(x, x.detach()),
    "aten.isnan.default": lambda: torch.ops.aten.isnan.default(x),
    "aten.argmax.default": lambda: torch.ops.aten.argmax.default(x),
    "aten.all.default": lambda: torch.ops.aten.all.default(x),
    "aten.max.dim": lambda: torch.ops.aten.max.dim(x, 1)[0],
}
for ov, call in calls.items():
    out[ov] = {"class": classes[ov]["class"], "requires_grad": call().requires_grad}
print(json.dumps(out))
'''


def test_the_classes_are_upstreams_autograd_at_run_time(subset):
    """differentiable.py reads derivatives.yaml through torchgen; upstream's own autograd, run,
    must agree: a differentiable overload's output requires grad, a non-differentiable one's
    does not."""
    files = sorted(CACHE.glob("differentiable-*.json"), key=lambda p: p.stat().st_mtime)
    assert files, "the harness wrote no classes"
    proc = subprocess.run([str(UPSTREAM.python), "-I", "-c", PROBE, str(files[-1])],
                          capture_output=True, text=True, timeout=300, cwd="/")
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    wrong = {ov: r for ov, r in seen.items()
             if (r["class"] == "differentiable") != r["requires_grad"]}
    assert wrong == {}
