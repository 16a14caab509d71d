"""The logic that publishes numbers: README's status section and the benchmark rows.

No timing is measured here; the rows are built from made-up worker messages.
"""

from __future__ import annotations

import base64
import importlib.util
import sys

import numpy as np

from torchnative.envs import OURS, ROOT, UPSTREAM

sys.path.insert(0, str(ROOT / "bench"))
import _common  # noqa: E402
import dispatch_bench  # noqa: E402


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


status = _load(ROOT / "tools" / "status.py")


def test_status_rewrites_only_its_section():
    readme = "# T\n\nintro\n\n## Status\n\nold\n\n## Next\n\nkept\n"
    new = status.rewrite(readme, ["- **x** — builds: y"])
    assert new == "# T\n\nintro\n\n## Status\n\n- **x** — builds: y\n\n## Next\n\nkept\n"
    assert status.rewrite(new, ["- **x** — builds: y"]) == new
    assert status.rewrite("# T\n\n## Status\n\nold\n", ["z"]) == "# T\n\n## Status\n\nz\n"
    assert status.rewrite("# T\n", ["z"]) == "# T\n\n## Status\n\nz\n"


def tensor(values, dtype=np.float32) -> dict:
    array = np.asarray(values, dtype=dtype)
    return {"type": "Tensor", "dtype": f"torch.{array.dtype}", "shape": list(array.shape),
            "stride": [1], "data": base64.b64encode(array.tobytes()).decode()}


def side(label, env, result, seconds=1e-6, reference64=None) -> _common.Side:
    hello = {"ok": True, "cases": {"s": {"ok": True, "result": result}},
             "reference64": {"s": reference64} if reference64 else {}}
    made = _common.Side(label, env, None, hello)
    made.rounds = [{"seconds": {"s": seconds}} for _ in range(5)]
    return made


def test_a_result_that_disagrees_gets_no_speed():
    up_a = side("upstream A", UPSTREAM, tensor([1.0, 2.0]))
    up_b = side("upstream B", UPSTREAM, tensor([1.0, 2.0]))
    ours = side("ours", OURS, tensor([1.0, 2.5]), seconds=1e-9)
    row = dispatch_bench.row("s", "exact", ours, up_a, up_b)
    assert row["ours"]["grade"] == "disagrees", row
    assert "seconds" not in row["ours"] and "ratios" not in row["ours"], row
    assert row["control"]["grade"] == "agrees" and row["control"]["ratios"] == [1.0] * 5, row
    assert "disagrees" in dispatch_bench.table([row])[2]


def test_derived_check_uses_upstream_float64_and_its_own_error():
    ref64 = tensor([1.0, 2.0 + 2**-20], np.float64)
    up_a = side("upstream A", UPSTREAM, tensor([1.0, 2.0]), reference64=ref64)
    up_b = side("upstream B", UPSTREAM, tensor([1.0, 2.0]))
    good = side("ours", OURS, tensor([1.0, 2.0]), seconds=2e-6)
    bad = side("ours", OURS, tensor([1.0, 2.0 + 2**-21 * 8]))
    row = dispatch_bench.row("s", "derived", good, up_a, up_b)
    assert row["ours"]["grade"] == "agrees" and row["ours"]["ratios"] == [2.0] * 5, row
    assert dispatch_bench.row("s", "derived", bad, up_a, up_b)["ours"]["grade"] == "disagrees"


def test_a_side_that_does_not_run_says_why_and_gets_no_speed():
    up_a = side("upstream A", UPSTREAM, tensor([1.0]))
    up_b = side("upstream B", UPSTREAM, tensor([1.0]))
    failure = {"step": "import torch", "type": "TypeError", "message": "boom", "where": "a.py:1"}
    ours = _common.Side("ours", OURS, None, {"ok": False, "failure": failure})
    row = dispatch_bench.row("s", "exact", ours, up_a, up_b)
    assert row["ours"] == {"grade": "does not run",
                           "detail": 'step "import torch": TypeError: boom'}, row
    line = dispatch_bench.table([row])[2]
    assert "does not run: step \"import torch\": TypeError: boom" in line, line


def test_layout_check_only_reaches():
    record = {"type": "Tensor", "dtype": "torch.float32", "shape": [4], "stride": [1]}
    up_a, up_b = side("upstream A", UPSTREAM, record), side("upstream B", UPSTREAM, record)
    row = dispatch_bench.row("s", "layout", side("ours", OURS, record), up_a, up_b)
    assert row["ours"]["grade"] == "reaches" and "ratios" in row["ours"], row
