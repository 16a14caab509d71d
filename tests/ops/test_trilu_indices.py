"""tril_indices and triu_indices, ours and upstream each in its own process: values, dtype,
shape and strides over a grid of (row, col, offset), both index dtypes, errors (type and
message) on the CPU and on Meta (where upstream's Python reference checks), meta shapes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + r"""
def geo(t):
    return [str(t.dtype), t.device.type, list(t.shape), list(t.stride())]
for fn in (torch.tril_indices, torch.triu_indices):
    n = fn.__name__
    for row in (0, 1, 3, 5):
        for col in (0, 1, 4, 7):
            for off in (-9, -4, -1, 0, 1, 2, 5, 9):
                case(f"{n}_{row}_{col}_{off}", lambda: fn(row, col, off))
                case(f"{n}_meta_{row}_{col}_{off}", lambda: geo(fn(row, col, off, device="meta")))
    case(f"{n}_int32", lambda: fn(4, 3, 1, dtype=torch.int32))
    case(f"{n}_big", lambda: fn(300, 200, -17))
    for dt in (torch.float32, torch.int16, torch.uint8, torch.bool, torch.complex64):
        case(f"{n}_{dt}", lambda: fn(3, 3, dtype=dt))
        case(f"{n}_meta_{dt}", lambda: geo(fn(3, 3, dtype=dt, device="meta")))
    case(f"{n}_none_dtype", lambda: fn(3, 3, dtype=None))
    case(f"{n}_neg_row", lambda: fn(-1, 3))
    case(f"{n}_neg_col", lambda: fn(3, -2))
    case(f"{n}_meta_neg_row", lambda: fn(-1, 3, device="meta"))
    case(f"{n}_meta_pinned", lambda: fn(3, 3, device="meta", pin_memory=True))
print(json.dumps(out))
"""


def test_trilu_indices_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["tril_indices_5_7_2"][0] == "torch.int64"
