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
# histogramdd (composed of _histogramdd_bin_edges and _histogramdd_from_bin_cts, or
# _histogramdd_from_bin_tensors)
xd, wd = torch.randn(40, 3), torch.rand(40)
bigd, wbd = torch.randn(1000, 2), torch.rand(1000)
def HD(r):
    return [bits(r[0])] + [bits(e) for e in r[1]]
DD = torch.histogramdd
for dt in ("float32", "float64"):
    d = getattr(torch, dt)
    a, wa = xd.to(d), wd.to(d)
    case(f"dd_{dt}", lambda: HD(DD(a, [3, 4, 5])))
    case(f"dd_int_w_d_{dt}", lambda: HD(DD(a, 4, weight=wa, density=True)))
    case(f"dd_range_{dt}", lambda: HD(DD(a, [2, 3, 2], range=[-1., 1., -2, 2, 0, 1])))
    case(f"dd_tensors_{dt}", lambda: HD(DD(a[:, :2], [torch.tensor([-1., 0, 2]).to(d),
                                                      torch.tensor([-3., .1, .2, 3]).to(d)],
                                           weight=wa)))
    case(f"dd_big_{dt}", lambda: HD(DD(bigd.to(d), [7, 5], weight=wbd.to(d))))
    case(f"dd_big_t_{dt}", lambda: HD(DD(bigd.to(d), [torch.linspace(-2, 2, 6).to(d),
                                                      torch.tensor([-1., 0., .5]).to(d)],
                                         weight=wbd.to(d), density=True)))
case("dd_3d_w", lambda: HD(DD(xd.view(2, 20, 3), [2, 3, 2], weight=wd.view(2, 20))))
case("dd_bf16_range", lambda: HD(DD(xd.bfloat16(), [2, 3, 2], range=[-1., 1.] * 3)))
case("dd_empty", lambda: HD(DD(torch.empty(0, 2), [2, 3])))
case("dd_same", lambda: HD(DD(torch.ones(5, 2), [2, 3])))
case("dd_bins_len", lambda: DD(xd, [2, 3]))
case("dd_1d", lambda: DD(xd[:, 0], [2]))
case("dd_zero_bins", lambda: DD(xd, [2, 0, 2]))
case("dd_half", lambda: DD(xd.half(), [2, 3, 2]))
case("dd_range_len", lambda: DD(xd, [2, 3, 2], range=[0., 1.]))
case("dd_nan", lambda: DD(torch.tensor([[0., float("nan")], [1., 2.]]), [2, 2]))
case("dd_w_shape", lambda: DD(xd, [2, 2, 2], weight=wd[:10]))
case("dd_t_dtype", lambda: DD(xd[:, :1], [torch.tensor([0., 1.], dtype=torch.float64)]))
case("dd_edges_fn", lambda: [bits(e) for e in torch.ops.aten._histogramdd_bin_edges(
    xd, [3, 2, 4])])
print(json.dumps(out))
"""


def test_histogram_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    # no meta kernel upstream (the edges depend on the data): both refuse
    assert ours["meta"][:2] == upstream["meta"][:2] == ["raises", "NotImplementedError"]
    differ.pop("meta", None)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
