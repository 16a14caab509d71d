"""histogram (.bin_ct, .bins_tensor and their out= forms), ours and upstream each in its own
process, bit for bit: counts and weighted sums (in the input dtype, over upstream's per-chunk
private histograms), the linspace edges, density, errors and the meta refusal.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
x = torch.randn(3, 50)
x[0, :3] = torch.tensor([float("nan"), 0.0, -0.0])
big, wbig = torch.randn(3000), torch.rand(3000)
w = torch.rand(3, 50)
edges = torch.tensor([-2.0, -0.5, 0.0, 0.1, 1.0, 3.0])
def H(r):
    return [bits(r[0]), bits(r[1])]
for dt in ("float32", "float64", "bfloat16", "float16"):
    d = getattr(torch, dt)
    xd, wd = x.to(d), w.to(d)
    for bins in (1, 7, 100):
        case(f"ct_{bins}_{dt}", lambda: H(torch.histogram(xd, bins, range=(-1.5, 2.0))))
        case(f"ct_w_{bins}_{dt}", lambda: H(torch.histogram(xd, bins, range=(-1.0, 1.0),
                                                            weight=wd)))
        case(f"ct_d_{bins}_{dt}", lambda: H(torch.histogram(xd, bins, range=(-3.0, 3.0),
                                                            weight=wd, density=True)))
    case(f"ct_data_{dt}", lambda: H(torch.histogram(xd[1:], 9)))
    case(f"ct_data_d_{dt}", lambda: H(torch.histogram(xd[1:], 9, density=True)))
    case(f"bt_{dt}", lambda: H(torch.histogram(xd, edges.to(d))))
    case(f"bt_w_{dt}", lambda: H(torch.histogram(xd, edges.to(d), weight=wd, density=True)))
    case(f"big_{dt}", lambda: H(torch.histogram(big.to(d), 13, weight=wbig.to(d))
                                if d in (torch.float32, torch.float64) else
                                torch.histogram(big.to(d), 13, range=(-2., 2.),
                                                weight=wbig.to(d))))
case("ct_same", lambda: H(torch.histogram(torch.full((4,), 2.0), 4)))
case("ct_empty", lambda: H(torch.histogram(torch.empty(0), 3)))
case("ct_nan_data", lambda: torch.histogram(x, 4))
case("ct_inf_range", lambda: torch.histogram(x, 4, range=(0.0, float("inf"))))
case("ct_bad_range", lambda: torch.histogram(x, 4, range=(2.0, 1.0)))
case("ct_zero_bins", lambda: torch.histogram(x, 0))
case("ct_half_data", lambda: torch.histogram(x.half(), 4))
case("ct_long", lambda: torch.histogram(x.long(), 4, range=(0.0, 1.0)))
case("ct_w_dtype", lambda: torch.histogram(x, 4, weight=w.double()))
case("ct_w_shape", lambda: torch.histogram(x, 4, weight=w[:2]))
case("bt_dtype", lambda: torch.histogram(x, edges.double()))
case("bt_2d", lambda: torch.histogram(x, edges.reshape(2, 3)))
case("bt_one", lambda: torch.histogram(x, edges[:1]))
case("bt_strided", lambda: H(torch.histogram(x.t(), edges.flip(0).flip(0)[::2])))
def outs(*args, **kw):
    h, e = torch.empty(0), torch.empty(0)
    r = torch.histogram(*args, **kw, out=(h, e))
    return [bits(r[0]), bits(r[1]), bits(h), bits(e)]
case("ct_out", lambda: outs(x, 6, range=(-1.0, 1.0)))
case("bt_out", lambda: outs(x, edges, weight=w))
case("ct_out_dtype", lambda: torch.histogram(x, 6, out=(torch.empty(0).double(),
                                                         torch.empty(0))))
case("meta", lambda: torch.histogram(x.to("meta"), 4))
print(json.dumps(out))
"""


def test_histogram_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    # no meta kernel upstream (the edges depend on the data): both refuse
    assert ours["meta"][:2] == upstream["meta"][:2] == ["raises", "NotImplementedError"]
    differ.pop("meta", None)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
