"""aten.item and aten.is_nonzero as operators (what torch.ops and traced code call), ours and
upstream each in its own process: values, Python types and messages compare exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
values = {"bool": torch.tensor(True), "zero": torch.tensor(0.), "int": torch.tensor([2]),
          "complex0": torch.tensor(0j), "complex": torch.tensor(1j), "tiny": torch.tensor(1e-300,
          dtype=torch.float64), "nan": torch.tensor(float("nan")), "empty": torch.tensor([]),
          "two": torch.tensor([1, 2]), "half": torch.tensor(0.5).half(),
          "meta": torch.ones(1, device="meta")}
for name, v in values.items():
    case("is_nonzero_" + name, lambda: torch.ops.aten.is_nonzero(v))
    case("item_" + name, lambda: [repr(torch.ops.aten.item(v)), type(torch.ops.aten.item(v)).__name__])
print(json.dumps(out))
"""


def test_item_and_is_nonzero_agree():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["is_nonzero_nan"] is True
