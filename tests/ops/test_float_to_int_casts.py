"""Float to integer conversion of values an integer cannot hold (NaN, infinities, out of range),
ours and upstream each in its own process: upstream's conversion compiles to x86's truncating
instructions, so to int32, int16 and int8 such a value is INT32_MIN's low bits, to int64 and uint8
INT64_MIN's; in range values truncate toward zero (uint8 wrapping through int64). Every float
source dtype, contiguous and strided, .to / copy_ / the complex real part.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + r"""
vals = [float("nan"), -float("nan"), float("inf"), -float("inf"), 3e10, -3e10, 2147483647.0,
        2147483648.0, -2147483648.0, -2147483904.0, 9.3e18, -9.3e18, 300.7, -129.5, -1.5, 0.99,
        65535.9, 40000.0, -40000.0, 255.5, 256.0, -0.0]
x = torch.tensor(vals * 3, dtype=torch.float64)
ints = ("int8", "int16", "int32", "int64", "uint8", "bool")
for src in ("float64", "float32", "float16", "bfloat16"):
    xs = x.to(getattr(torch, src))
    for dst in ints:
        d = getattr(torch, dst)
        case(f"to_{src}_{dst}", lambda: xs.to(d))
        case(f"strided_{src}_{dst}", lambda: xs[::2].to(d))
        case(f"copy_{src}_{dst}", lambda: torch.empty(xs.numel(), dtype=d).copy_(xs))
for dst in ints:
    case(f"complex_{dst}", lambda: torch.complex(x[:20], x[20:40]).to(getattr(torch, dst)))
print(json.dumps(out))
"""


def test_float_to_int_casts_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["to_float32_int32"][4][0] == -2147483648  # NaN, as upstream computes it
