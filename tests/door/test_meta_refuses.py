"""Meta refuses what our CPU refuses, because the checks live in the ops' rules (docs/AGREEMENT.md's
"Meta against CPU" section measures this over every OpInfo sample; these are the cases it found).

Acceptance: each snippet, run under ours with its tensors on the CPU and again on meta, ends the
same way (the same exception type, or a result of the same shape and dtype), and the CPU run ends
as upstream's CPU run does. Upstream's own meta kernels let gelu/silu of an integer tensor through
(their CPU kernels refuse it); ours refuse on both, the dtype check being the rule's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.door import _both
from tests.helpers import OURS, run_json

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = r'''
import json, torch
out = {}
def case(name, fn):
    try:
        r = fn()
        out[name] = ["returns", list(r.shape), str(r.dtype)]
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
'''

# Each body names the device `dev`; the same tensor object twice is one tensor on either device.
SNIPPETS = {
    "gelu_int64": "torch.nn.functional.gelu(torch.ones(3, 4, dtype=torch.long, device=dev))",
    "gelu__int64": "torch.ops.aten.gelu_(torch.ones(3, 4, dtype=torch.long, device=dev))",
    "gelu_out_int64": "torch.ops.aten.gelu.out(torch.ones(3, dtype=torch.long, device=dev), "
                      "out=torch.empty(3, dtype=torch.long, device=dev))",
    "silu_int64": "torch.nn.functional.silu(torch.ones(3, 4, dtype=torch.long, device=dev))",
    "silu__int64": "torch.ops.aten.silu_(torch.ones(3, 4, dtype=torch.long, device=dev))",
    "gelu_float": "torch.nn.functional.gelu(torch.ones(3, device=dev))",
    "cat_out_expanded": "torch.cat([torch.ones(5, 5, device=dev), torch.ones(5, 5, device=dev)], "
                        "out=torch.ones(1, 5, device=dev).expand(10, 5))",
    "cat_out_is_input": "(lambda y: torch.cat([torch.zeros(0, device=dev), y], out=y))("
                        "torch.ones(4, 6, device=dev))",
    "cat_out_is_skipped_input": "(lambda x: torch.cat([x, torch.ones(4, 6, device=dev)], "
                                "out=x))(torch.zeros(0, device=dev))",
    "cat_out_partial": "(lambda z: torch.cat([torch.ones(4, 6, device=dev), z], out=z[:2]))("
                       "torch.zeros(4, 6, device=dev))",
    "cat_out_fresh": "torch.cat([torch.ones(2, device=dev)], out=torch.empty(2, device=dev))",
    # composites that cast: the cast goes through the door, so meta casts too
    "softmax_dtype": "torch.softmax(torch.ones(5, dtype=torch.bool, device=dev), 0, "
                     "dtype=torch.float64)",
    "log_softmax_dtype": "torch.log_softmax(torch.ones(2, 3, device=dev), 1, dtype=torch.half)",
    "sum_out": "torch.sum(torch.ones(2, 3, device=dev), 0, out=torch.empty(3, device=dev))",
    "mm_out": "torch.mm(torch.ones(2, 3, device=dev), torch.ones(3, 2, device=dev), "
              "out=torch.empty(2, 2, device=dev))",
    "arange_out": "torch.arange(5, out=torch.empty(0, device=dev))",
    "index_select_out": "torch.index_select(torch.ones(4, 2, device=dev), 0, "
                        "torch.tensor([0, 3], device=dev), out=torch.empty(2, 2, device=dev))",
}


@pytest.fixture(scope="module")
def outcomes():
    body = "\n".join(f"for dev in ('cpu', 'meta'):\n    case('{k}@' + dev, lambda: {v})"
                     for k, v in SNIPPETS.items())
    return _both.both(PRELUDE, body)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_meta_ends_as_cpu_does(outcomes, name):
    ours, upstream = outcomes
    assert ours[f"{name}@meta"] == ours[f"{name}@cpu"]
    assert ours[f"{name}@cpu"] == upstream[f"{name}@cpu"]


def test_harness_meta_copies_keep_aliasing():
    # The Meta differential moves a case's tensors to meta; cat(x, y, out=y) must still alias.
    ours = run_json(OURS, f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n" + r'''
import json, torch
from torchnative.harness.replay import _to_meta
y = torch.ones(4, 6)
memo = {}
args, kwargs = _to_meta([torch.zeros(0), y, y[:2]], memo), _to_meta({"out": y}, memo)
print(json.dumps({"same": kwargs["out"] is args[1],
                  "view_shares": args[2]._base is args[1]._base,
                  "other_apart": args[0]._base is not args[1]._base}))
''')
    assert ours == {"same": True, "view_shares": True, "other_apart": True}
